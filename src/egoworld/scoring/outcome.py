"""How a score command ends on the console: warnings, the judge's valid-answer rate, and exit code 3
(`EXIT_INCOMPLETE`) when nothing was scored or the judge failed on every item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from egoworld.core.errors import EXIT_INCOMPLETE, console


def judge_rate(summary: dict[str, Any]) -> float | None:
    """The judge's valid-answer rate a benchmark's block of the summary holds (free-form answers), if any."""
    for block in summary.values():
        if isinstance(block, dict) and block.get("judge_rate") is not None:
            return float(block["judge_rate"])
    return None


def check_scored(summary: dict[str, Any], run_dir: Path) -> None:
    """Warnings to the console; exit non-zero when nothing was scored or the judge failed on every item."""
    for warning in summary.get("warnings", []):
        console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    rate = judge_rate(summary)
    if rate is not None:
        console.print(f"judge: a valid score for {rate:.1f}% of the items it was asked about")
    if summary.get("judge_failed"):
        console.print(
            f"[bold red]error:[/] {run_dir}: the judge failed on every item; the scores are not judgements",
            highlight=False,
        )
        raise typer.Exit(EXIT_INCOMPLETE)
    if not summary.get("n"):
        console.print(
            f"[bold red]error:[/] {run_dir}: nothing to score — 0 answered questions "
            f"({summary.get('errors', 0)} failed requests, {summary.get('missing', 0)} never sent); "
            "rerun `egoworld run` with the same options to send them",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INCOMPLETE)
