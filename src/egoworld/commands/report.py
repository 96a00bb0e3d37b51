"""``egoworld report``: tables, plots and a static HTML report from run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, fail


def report(
    out: Annotated[
        Path, typer.Option("--out", help="Report folder: tables (md, csv), plots (png), index.html.")
    ],
    run_dirs: Annotated[
        list[Path] | None,
        typer.Option("--run", help="Run folder (repeatable; scored or not, unscored ones are scored)."),
    ] = None,
    old_run_dirs: Annotated[list[Path] | None, typer.Argument(hidden=True)] = None,
    pages: Annotated[
        str,
        typer.Option(
            help="Per-question pages: auto (wrong answers, disagreements, the first of each task), all, none."
        ),
    ] = "auto",
) -> None:
    """Make the paper's tables, Shuffle24 diagnostics, plots and a static HTML report from run folders."""
    from egoworld.core.aliases import folders
    from egoworld.core.folders.files import InputFileError
    from egoworld.report.build import build_report

    run_dirs = folders(run_dirs, old_run_dirs, "--run")
    try:
        index = build_report(run_dirs, out, pages=pages)
    except (InputFileError, ValueError, FileNotFoundError) as exc:
        fail(exc)
    console.print(f"report: {index}")
