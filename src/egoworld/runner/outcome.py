"""How a run command ends on the console: its summary line, the top reasons of the requests that still fail,
and exit code 3 (`EXIT_INCOMPLETE`) while some do — shared by every command that runs a model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from egoworld.core.bench_folder import Benchmark, load_benchmark
from egoworld.core.errors import EXIT_INCOMPLETE, console
from egoworld.core.files import InputFileError, read_json_object, write_json
from egoworld.core.progress import format_reasons, top_reasons
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE
from egoworld.core.store import ResponseStore
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


def print_end_figures(out: Path, bench: Benchmark | None = None) -> None:
    """Score the run in-process (not a judge-scored one: that needs `egoworld score`), print its table and
    the usage line, and add ``scores`` and ``usage.tokens_per_correct`` to run.json. ``bench``: the
    benchmark the run loaded (else it is loaded from run.json's path)."""
    manifest = read_json_object(out / RUN_MANIFEST)
    usage = manifest.get("usage")
    scored: dict[str, Any] | None = None
    rows: list[dict[str, Any]] | None = None
    try:
        bench = bench or load_benchmark(manifest["benchmark_path"])
        if judged(bench):
            console.print("scores: free-form answers need a judge — run `egoworld score " + str(out) + "`")
        else:
            scored, rows = score_run_rows(out, bench=bench)
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
        correct = correct_answers(out, rows)
        tokens = usage.get("tokens", {}) if usage else {}
        total = (tokens.get("prompt") or 0) + (tokens.get("completion") or 0)
        per_correct = round(total / correct, 1) if correct and total else None
        manifest["scores"] = {
            k: scored.get(k) for k in ("n", "overall", "overall_sem", "macro", "parse_rate", "errors")
        } | {"tasks": {t: {**v} for t, v in scored.get("tasks", {}).items()}, "correct": round(correct, 6)}
    if usage:
        usage["tokens_per_correct"] = per_correct
        console.print(format_tokens(usage, per_correct), highlight=False)
    if "cache" in manifest:
        c = manifest["cache"]
        console.print(f"cache {c['dir']}: {c['hits']} hits, {c['misses']} misses, {c['stored']} stored")
    write_json(out / RUN_MANIFEST, manifest)


def finish_run(summary: RunSummary, out: Path) -> None:
    """Print the run's last lines — counts, the score table, tokens, throughput, cost — and record the score
    table in run.json; exit 3 when requests failed (a rerun of the same command retries them)."""
    console.print(summary.line())
    print_end_figures(out, summary.bench)
    print_error_reasons(out)
    if summary.errors or summary.blocked:
        console.print("[yellow]some requests failed; rerun the same command to retry them[/]")
        raise typer.Exit(EXIT_INCOMPLETE)
