"""How a score command ends: its warnings on stderr, and a non-zero exit when nothing could be scored."""

from __future__ import annotations

from pathlib import Path

import typer

from egoworld.core.errors import EXIT_INCOMPLETE, console


def check_scored(summary: dict, run_dir: Path) -> None:
    """Warnings to the console; exit non-zero when nothing was scored or the judge failed on every item."""
    for warning in summary.get("warnings", []):
        console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    judge_rate = summary.get("explore", {}).get("judge_rate")
    if judge_rate is not None:
        console.print(f"judge: a valid score for {judge_rate:.1f}% of the items it was asked about")
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
