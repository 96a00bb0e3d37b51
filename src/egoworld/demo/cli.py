"""The per-benchmark demo commands, ``egoworld beyond3d demo`` and ``egoworld vsi-wild demo``: added to the
benchmarks' command groups from here, the top floor, since a demo runs every stage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error


@exit_on_user_error
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

    run_demo(out, anchors=anchors, controls=controls, sim=sim, say=typer.echo)


@exit_on_user_error
def vsi_wild_demo_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for walks, benchmark, runs and report.")] = Path(
        "demo-vsi-wild"
    ),
    per_task: Annotated[int, typer.Option("--questions-per-task", help="Questions to build per task.")] = 120,
) -> None:
    """Synthetic walks (0–10 min … 120+ min) → VSI-Super-Wild → random / prior / oracle with Shuffle24 → report."""
    from egoworld.demo.vsi_wild import run_demo

    index = run_demo(out, per_task=per_task, say=lambda m: typer.echo(m, err=True))
    typer.echo(f"demo report: {index}")
