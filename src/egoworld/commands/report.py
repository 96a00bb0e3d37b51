"""``egoworld report``: tables, plots and a static HTML report from run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def report(
    out: Annotated[
        Path, typer.Option("--out", help="Report folder: tables (md, csv), plots (png), index.html.")
    ],
    run_dirs: Annotated[
        list[Path],
        typer.Option("--run", help="Run folder (repeatable; scored or not, unscored ones are scored)."),
    ],
    pages: Annotated[
        str,
        typer.Option(
            help="Per-question pages: auto (wrong answers, disagreements, the first of each task), all, none."
        ),
    ] = "auto",
) -> None:
    """Make the paper's tables, Shuffle24 diagnostics, plots and a static HTML report from run folders."""
    from egoworld.report.build import build_report

    index = build_report(run_dirs, out, pages=pages)
    console.print(f"report: {index}")
