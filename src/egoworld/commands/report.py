"""``egoworld report``: tables, plots and a static HTML report from run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, fail


def report(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run folders (scored or not; unscored ones are scored).")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Report folder: tables (md, csv), plots (png), index.html.")
    ],
) -> None:
    """Make the paper's tables, Shuffle24 diagnostics, plots and a static HTML report from run folders."""
    from egoworld.core.files import InputFileError
    from egoworld.report.build import build_report

    try:
        index = build_report(run_dirs, out)
    except (InputFileError, ValueError, FileNotFoundError) as exc:
        fail(exc)
    console.print(f"report: {index}")
