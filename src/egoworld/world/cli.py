"""``egoworld world …`` commands: import real recordings as episode folders and inspect episodes.

The ``world`` and ``world import`` groups and these commands are registered in pyproject.toml (the
``egoworld.commands`` entry-point group); other packages add to the groups the same way (the synthetic
worlds add ``world synth``, `egoworld.sim.cli`). Heavy imports stay inside the command functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error

GROUP_HELP = "Worlds (episodes): import recordings, synthesise, inspect."
IMPORT_HELP = "Import real recordings as episode folders."


def _say(text: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(text, highlight=False, soft_wrap=True)


@exit_on_user_error
def import_hd_epic_cmd(
    root: Annotated[
        Path,
        typer.Argument(help="HD-EPIC annotation folder (scene-and-object-movements/, youtube-links/ …)."),
    ],
    out: Annotated[Path, typer.Option("--out", help="World folder to write: one episode folder per video.")],
    video: Annotated[
        list[str] | None, typer.Option("--video-id", help="Import only this video id (repeatable).")
    ] = None,
    videos_dir: Annotated[
        Path | None, typer.Option("--videos", help="Folder of <PXX>/<video>.mp4 files to reference.")
    ] = None,
) -> None:
    """Import HD-EPIC: object movement tracks per video; with mask_info.json their 3D start / end
    locations, fixtures and boxes; digital-twin fixtures and mesh; Aria camera poses where the folder has
    them. Prints what was sorted, clipped or kept as overlapping and how the masks joined.

    Example: egoworld world import hd-epic hd-epic-annotations --out worlds/hd-epic --video-id P01-20240203-184045"""
    from egoworld.world.hd_epic.importer import import_hd_epic

    folders, rep = import_hd_epic(root, out, videos=video or None, video_dir=videos_dir)
    _say(
        f"wrote {len(folders)} episodes to {out} — assoc_info: {rep.videos} videos, {rep.objects} objects, "
        f"{rep.movements} movements; sorted tracks of {rep.reordered_objects} objects, kept "
        f"{rep.overlapping_pairs} overlapping track pairs, clipped {len(rep.clipped)} tracks at the video end, "
        f"{rep.unnamed_objects + rep.skipped_objects} unnamed objects (category 'unknown')"
    )
    m = rep.masks
    if m is not None:
        _say(
            f"mask_info: {m.located_movements} of {m.located_movements + m.movements_without_masks} movements "
            f"located from {m.masks} masks; {len(m.missing_masks)} mask ids not in mask_info.json, "
            f"{m.null_fixtures} 'Null' fixtures, {sum(m.unknown_fixtures.values())} fixtures not in the digital twin, "
            f"{m.no_location} masks without a 3D location"
        )
    else:
        _say("no scene-and-object-movements/mask_info.json: movements have times only (no 3D positions)")


@exit_on_user_error
def import_epic_kitchens_cmd(
    root: Annotated[
        Path, typer.Argument(help="Folder with EPIC_100_<split>.csv and EPIC_100_video_info.csv.")
    ],
    out: Annotated[Path, typer.Option("--out", help="World folder to write: one episode folder per video.")],
    split: Annotated[str, typer.Option(help="Which EPIC_100_<split>.csv to read.")] = "validation",
    video: Annotated[
        list[str] | None, typer.Option("--video-id", help="Import only this video id (repeatable).")
    ] = None,
) -> None:
    """Import EPIC-KITCHENS-100 action segments: one episode per video with its timestamped actions."""
    from egoworld.world.epic_kitchens import import_epic_kitchens

    folders = import_epic_kitchens(root, out, split=split, videos=video or None)
    _say(f"wrote {len(folders)} episodes to {out}")


@exit_on_user_error
def show_cmd(
    folder: Annotated[Path, typer.Argument(help="An episode folder, or a world folder of episode folders.")],
    episode: Annotated[
        str | None, typer.Option("--episode", help="In a world folder: the episode to show in full.")
    ] = None,
    png: Annotated[
        Path | None,
        typer.Option("--png", help="Picture to write (default: <episode id>.png in the current folder)."),
    ] = None,
    picture: Annotated[bool, typer.Option(help="Write the PNG (contact sheet or overview plot).")] = True,
) -> None:
    """Summarise an episode and draw it: a contact sheet of its video, or a top-down plot of fixtures,
    camera path and objects with a timeline of movements and actions. A world folder lists its episodes."""
    from egoworld.core.folders.files import InputFileError
    from egoworld.world.episode_folder import find_episodes, load_episode
    from egoworld.world.show import render_png, summarize

    folders = find_episodes(folder)
    if not folders:
        raise InputFileError(f"{folder}: no episode.json here or below (is this an episode folder?)")
    if len(folders) > 1 and episode is None:
        for f in folders:
            ep = load_episode(f)
            moves = sum(len(o.movements) for o in ep.objects)
            print(
                f"{ep.id:<24} {ep.duration_s:>9.1f} s  {len(ep.fixtures):>3} fixtures  {len(ep.objects):>4} "
                f"objects  {moves:>5} movements  {len(ep.actions):>5} actions"
                + ("  poses" if ep.poses is not None else "")
            )
        print(f"{len(folders)} episodes (show one with --episode ID)")
        return
    chosen = folders[0] if episode is None else next((f for f in folders if f.name == episode), None)
    if chosen is None:
        raise InputFileError(f"{folder}: no episode folder named {episode!r}")
    ep = load_episode(chosen)
    print(summarize(ep))
    if picture:
        path, kind = render_png(ep, chosen, png or Path(f"{ep.id}.png"))
        print(f"  picture  {path} ({kind})")
