"""`egoworld leaderboard CAMPAIGN | --run RUN …`: runs side by side (Markdown, CSV-free LaTeX too)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import fail


def leaderboard(
    campaign: Annotated[
        Path | None, typer.Argument(help="Campaign folder written by `egoworld sweep run`.")
    ] = None,
    run: Annotated[list[Path] | None, typer.Option("--run", help="Run folder (repeatable).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="markdown | latex")] = "markdown",
) -> None:
    """Scores of runs side by side over their shared questions; best bold, second underlined."""
    from egoworld.campaign.leaderboard import by_benchmark, latex, markdown

    runs = list(run or []) + (
        sorted(p for p in (campaign / "runs").iterdir() if p.is_dir()) if campaign else []
    )
    runs = [r for r in runs if (r / "scores.jsonl").is_file()]
    if not runs:
        fail("no scored run folders given (pass a campaign folder or --run RUN)")
    if fmt not in ("markdown", "latex"):
        fail(f"--format {fmt!r}: expected markdown or latex")
    for bench, group in by_benchmark(runs).items():
        try:
            text = markdown(group) if fmt == "markdown" else latex(group)
        except ValueError as exc:
            fail(f"{bench}: {exc}")
        print(("## " if fmt == "markdown" else "% ") + Path(bench).name + "\n\n" + text)
