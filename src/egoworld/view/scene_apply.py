"""``egoworld scene apply``: the corrected annotation of a scene from its review log (registered in
pyproject.toml)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def apply_cmd(
    log: Annotated[
        Path, typer.Argument(help="Scene review log (SCENE/reviews/NAME.sqlite).", show_default=False)
    ],
    scene: Annotated[
        Path | None, typer.Option("--scene", help="Scene folder (default: the folder above reviews/).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="File to write (default SCENE/corrected.json).")
    ] = None,
) -> None:
    """Write the corrected scene annotation: scene.json with the review's live edits (accept / edit / delete /
    add, undone ones left out), plus its official end_frame_info list; `build explore --scenes` reads it."""
    from egoworld.view.scene_review import apply_scene_log

    r = apply_scene_log(log, scene_dir=scene, out=out)
    console.print(
        f"wrote {r['file']}: {r['edits']} edits ({r['accepted']} accepted, {r['edited']} edited, "
        f"{r['deleted']} deleted, {r['added']} added, {r['unreviewed']} objects not reviewed)"
    )
