"""How a run command ends on the console: its summary line, the top reasons of the requests that still fail,
and exit code 3 (`EXIT_INCOMPLETE`) while some do — shared by every command that runs a model."""

from __future__ import annotations

from pathlib import Path

import typer

from egoworld.core.errors import EXIT_INCOMPLETE, console
from egoworld.core.progress import format_reasons, top_reasons
from egoworld.core.run_config import STORE_FILE
from egoworld.core.store import ResponseStore
from egoworld.runner.summary import RunSummary


def print_error_reasons(run_dir: Path) -> None:
    """After a run: the most frequent reasons of the requests that still fail (nothing when none do)."""
    if not (run_dir / STORE_FILE).is_file():
        return
    with ResponseStore(run_dir / STORE_FILE, readonly=True) as store:
        failed = store.planned_errors()
    if failed:
        console.print(
            format_reasons(top_reasons(failed), len(failed)), highlight=False, markup=False, soft_wrap=True
        )


def finish_run(summary: RunSummary, out: Path) -> None:
    """Print the run's last lines; exit 3 when requests failed (a rerun of the same command retries them)."""
    console.print(summary.line())
    print_error_reasons(out)
    if summary.errors or summary.blocked:
        console.print("[yellow]some requests failed; rerun the same command to retry them[/]")
        raise typer.Exit(EXIT_INCOMPLETE)
