"""``egoworld score``: score a run offline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error
from egoworld.scoring.outcome import check_scored


@exit_on_user_error
def score(
    run_dir: Annotated[Path, typer.Option("--run", help="Run folder written by `egoworld run`.")],
    bench: Annotated[Path | None, typer.Option(help="Benchmark folder, if it moved since the run.")] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="Judge for free-form answers (EXPLORE): lexical | openai:<model>[,base_url=URL,…]."
        ),
    ] = None,
    scoring: Annotated[
        str,
        typer.Option(help="egoworld (our extractor) | official (the official harness's per-sample rules)."),
    ] = "egoworld",
    track: Annotated[
        str | None,
        typer.Option(help="Send config, scores and the score table to mlflow:URI | wandb[:DIR] (offline)."),
    ] = None,
) -> None:
    """Score a run offline: writes scores.jsonl (one row per question × order × epoch) and scores.json.
    A run imported from another harness's log also gets reference_score per row and reference_agreement.

    Example: egoworld score --run runs/qwen --scoring official"""
    from egoworld.render.tables import reference_line, summary_line
    from egoworld.scoring.score import score_run

    summary = score_run(
        run_dir, bench_dir=bench, options={"judge": judge} if judge else None, scoring=scoring
    )
    print(summary_line(summary))
    if (agreement := summary.get("reference_agreement")) is not None:
        print(reference_line(agreement))
    if summary.get("errors"):
        from egoworld.core.folders.files import iter_jsonl
        from egoworld.core.process.progress import format_reasons, top_reasons
        from egoworld.core.run_config import SCORES_JSONL

        failed = [
            r.get("error") or "" for _, r in iter_jsonl(run_dir / SCORES_JSONL) if r.get("status") == "error"
        ]
        console.print(
            format_reasons(top_reasons(failed), len(failed)), highlight=False, markup=False, soft_wrap=True
        )
    check_scored(summary, run_dir)
    if track:  # only a run whose scores are judgements
        from egoworld.commands.run import track_run

        track_run(run_dir, track)
