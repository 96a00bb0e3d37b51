"""The per-benchmark demo commands, ``egoworld beyond3d demo`` and ``egoworld vsi-wild demo``: added to the
benchmarks' command groups from here, the top floor, since a demo runs every stage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import fail
from egoworld.core.folders.files import InputFileError
from egoworld.media.media_error import MediaError

_ERRORS = (InputFileError, ValueError, FileNotFoundError)
_MEDIA_ERRORS = (InputFileError, MediaError, ValueError, FileNotFoundError)


def beyond3d_demo_cmd(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for worlds, benchmarks, runs and the report.")
    ] = Path("demo-beyond3d"),
    anchors: Annotated[int, typer.Option(help="Out-of-sight anchors of the text-only benchmark.")] = 100,
    controls: Annotated[int, typer.Option(help="Visible controls.")] = 100,
    sim: Annotated[
        bool, typer.Option(help="Also run the video + text and last frame + text settings.")
    ] = True,
) -> None:
    """Synthetic kitchens → Beyond3D → random / prior / oracle (text; video + text and last frame + text on
    sim kitchens) → report."""
    from egoworld.demo.beyond3d import run_demo

    try:
        run_demo(out, anchors=anchors, controls=controls, sim=sim, say=typer.echo)
    except _ERRORS as exc:
        fail(exc)


def vsi_wild_demo_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for walks, benchmark, runs and report.")] = Path(
        "demo-vsi-wild"
    ),
    per_task: Annotated[int, typer.Option("--questions-per-task", help="Questions to build per task.")] = 120,
    old_per_task: Annotated[int | None, typer.Option("--per-task", hidden=True)] = None,
) -> None:
    """Synthetic walks (0–10 min … 120+ min) → VSI-Super-Wild → random / prior / oracle with Shuffle24 → report."""
    from egoworld.demo.vsi_wild import run_demo

    try:
        per_task = old_per_task if old_per_task is not None else per_task  # --per-task: the old spelling
        index = run_demo(out, per_task=per_task, say=lambda m: typer.echo(m, err=True))
    except _MEDIA_ERRORS as exc:
        fail(exc)
    typer.echo(f"demo report: {index}")
