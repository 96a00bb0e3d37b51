"""``egoworld demo``: the embedded default end to end with the built-in baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def demo(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the demo's worlds, benchmarks, runs and report.")
    ] = Path("demo-out"),
    data: Annotated[
        Path | None,
        typer.Option(
            help="The shared data folder (holds vsi-super-wild/); default: $EGOWORLD_DATA, else ../shared/data "
            "from here or beside the egoworld checkout."
        ),
    ] = None,
    per_task: Annotated[
        int | None,
        typer.Option(
            help="Official VSI-Super-Wild: questions per task in the subset (default 250; --small: 5)."
        ),
    ] = None,
    small: Annotated[
        bool,
        typer.Option(
            "--small",
            help="The smallest demo that takes every benchmark through every stage (fewer questions, kitchens, "
            "walks and scenes): a check of the installation in a few minutes.",
        ),
    ] = False,
    parts: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated parts: vsi-official, beyond3d, vsi-synthetic, explore (default: all)."
        ),
    ] = None,
) -> None:
    """The embedded default end to end with the built-in baselines (random, prior, oracle, copy-initial):
    the official VSI-Super-Wild questions text-only with Shuffle24; Beyond3D built from synthetic kitchens
    in all three settings; VSI-Super-Wild built from a synthetic walk; EXPLORE-Bench built from synthetic
    action scenes. One report covers every run."""
    from egoworld.demo import run_demo
    from egoworld.demo.size import FULL, SMALL

    chosen = tuple(p.strip() for p in parts.split(",") if p.strip()) if parts else None
    index = run_demo(out=out, data=data, per_task=per_task, parts=chosen, size=SMALL if small else FULL)
    console.print(f"demo report: {index}")
    console.print(
        f"look at every sample in the browser: egoworld view {out}", highlight=False, soft_wrap=True
    )
