"""How a run command ends on the console: its summary line, the top reasons of the requests that still fail,
and exit code 3 (`EXIT_INCOMPLETE`) while some do — shared by every command that runs a model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from egoworld.core.errors import EXIT_INCOMPLETE, console
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, read_json_object, write_json
from egoworld.core.folders.store import ResponseStore
from egoworld.core.process.progress import format_reasons, top_reasons
from egoworld.core.run_config import RUN_MANIFEST, SCORES_JSON, SCORES_JSONL, STORE_FILE
from egoworld.runner.figures import correct_answers, format_tokens, judged, score_table
from egoworld.runner.summary import RunSummary
from egoworld.scoring.score import score_run_rows


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


def print_end_figures(out: Path, bench: Benchmark | None = None, kept: dict[str, Any] | None = None) -> None:
    """Score the run in-process (not a judge-scored one: that needs `egoworld score`), print its table and
    the usage line, and add ``scores`` and ``usage.tokens_per_correct`` to run.json. ``bench``: the
    benchmark the run loaded (else it is loaded from run.json's path); ``kept``: run.json's score table
    before a run that kept its store as it was (`RunSummary.kept_scores`): scores files that still match it
    are the run's and are not written again."""
    manifest = read_json_object(out / RUN_MANIFEST)
    usage = manifest.get("usage")
    tokens = usage.get("tokens", {}) if usage else {}
    total = (tokens.get("prompt") or 0) + (tokens.get("completion") or 0)
    scored: dict[str, Any] | None = None
    correct = 0.0
    try:
        bench = bench or load_benchmark(manifest["benchmark_path"])
        if judged(bench):
            console.print(
                "scores: free-form answers need a judge — run `egoworld score --run "
                + str(out)
                + " --judge …`"
            )
        elif (scored := kept_scores(out, kept)) is not None:  # (kept's sum is rounded: tokens need the sum)
            correct = kept["correct"] if kept is not None and not total else correct_answers(out)
        else:
            scored, rows = score_run_rows(out, bench=bench)
            correct = correct_answers(out, rows)
    except (InputFileError, ValueError, KeyError) as exc:
        console.print(f"[yellow]could not score the run: {exc}[/]", highlight=False)
    per_correct = None
    if scored is not None:
        table = Table(title=f"scores ({scored.get('benchmark')})", show_edge=False)
        for name in ("task", "n", "score", "parse %", "errors"):
            table.add_column(name, justify="left" if name == "task" else "right")
        for row in score_table(scored):
            table.add_row(*row)
        console.print(table)
        per_correct = round(total / correct, 1) if correct and total else None
        manifest["scores"] = score_block(scored, correct)
    if usage:
        usage["tokens_per_correct"] = per_correct
        console.print(format_tokens(usage, per_correct), highlight=False)
    if "cache" in manifest:
        c = manifest["cache"]
        console.print(f"cache {c['dir']}: {c['hits']} hits, {c['misses']} misses, {c['stored']} stored")
    write_json(out / RUN_MANIFEST, manifest)


def score_block(scored: dict[str, Any], correct: float) -> dict[str, Any]:
    """run.json's ``scores``: the score table's figures and the sum of the per-response scores."""
    return {k: scored.get(k) for k in ("n", "overall", "overall_sem", "macro", "parse_rate", "errors")} | {
        "tasks": {t: {**v} for t, v in scored.get("tasks", {}).items()},
        "correct": round(correct, 6),
    }


def kept_scores(out: Path, kept: dict[str, Any] | None) -> dict[str, Any] | None:
    """``scores.json`` when both scores files are there and ``scores.json`` is the egoworld scoring whose
    table run.json held (``kept``); else None (the run is scored again)."""
    if kept is None or not (out / SCORES_JSONL).is_file() or not (out / SCORES_JSON).is_file():
        return None
    scored = read_json_object(out / SCORES_JSON)
    if "scoring" in scored or score_block(scored, kept.get("correct", 0.0)) != kept:
        return None
    return scored


def finish_run(summary: RunSummary, out: Path) -> None:
    """Print the run's last lines — counts, the score table, tokens, throughput, cost — and record the score
    table in run.json; exit 3 when requests failed (a rerun of the same command retries them)."""
    console.print(summary.line())
    print_end_figures(out, summary.bench, summary.kept_scores)
    print_error_reasons(out)
    if summary.errors or summary.blocked:
        console.print("[yellow]some requests failed; rerun the same command to retry them[/]")
        raise typer.Exit(EXIT_INCOMPLETE)
