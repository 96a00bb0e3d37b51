"""Score EXPLORE predictions into ``scores.jsonl`` (one row per sample and epoch) and ``scores.json``.

Two entry points: `score_explore_run` (the benchmark plug-in's hook, called by `egoworld score --run RUNDIR`) and
`score_prediction_file` (predictions made elsewhere). The judge cache lives next to the scores
(``judge.sqlite``): rescoring reuses every valid judgement and retries only failed ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from egoworld.benchmarks.explore.judges import create_judge
from egoworld.benchmarks.explore.nlp import Embedder, TextAnalyzer
from egoworld.benchmarks.explore.predictions import (
    Prediction,
    load_prediction_file,
    predictions_from_run,
)
from egoworld.benchmarks.explore.run_tables import (
    cost_stats,
    length_stats,
    partition_tables,
    per_sample,
    task_block,
)
from egoworld.benchmarks.explore.scorer import PAPER_SCENE_WEIGHTS, PAPER_WEIGHTS, Scorer, ScoreSettings
from egoworld.benchmarks.explore.selection import select_explore_samples
from egoworld.benchmarks.explore.strategy import Strategy
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.run_config import SCORES_JSON
from egoworld.core.schema import Sample
from egoworld.metrics.stats import cluster_bootstrap_ci, mean_sem
from egoworld.scoring.score import write_scores

JUDGE_STORE = "judge.sqlite"
DEFAULT_JUDGE = "lexical"
_OPTION_KEYS = {
    "judge",
    "spacy",
    "sbert",
    "device",
    "weights",
    "abn_weight",
    "scenes",
    "scene_weights",
    "coverage",
}


def _floats(text: Any, n: int | None = None) -> tuple[float, ...]:
    vals = tuple(float(x) for x in (text.split(",") if isinstance(text, str) else text))
    if n is not None and len(vals) != n:
        raise ValueError(f"expected {n} comma-separated numbers, got {text!r}")
    return vals


def settings_from_options(options: dict[str, Any]) -> ScoreSettings:
    """`ScoreSettings` from CLI-style options (``weights="0.25,0.35,0.40"``, ``scene_weights="mid_1=0.2,…"``)."""
    unknown = set(options) - _OPTION_KEYS
    if unknown:
        raise ValueError(f"unknown scoring option(s) {sorted(unknown)} (known: {sorted(_OPTION_KEYS)})")
    kw: dict[str, Any] = {}
    for key in ("spacy", "sbert", "device", "scenes"):
        if options.get(key):
            kw[key] = options[key]
    kw["weights"] = _floats(options["weights"], 3) if options.get("weights") else PAPER_WEIGHTS
    if options.get("abn_weight") is not None:
        kw["abn_weight"] = float(options["abn_weight"])
    if options.get("scene_weights"):
        sw = options["scene_weights"]
        pairs = [p.split("=") for p in sw.split(",")] if isinstance(sw, str) else list(dict(sw).items())
        kw["scene_weights"] = tuple((str(k).strip(), float(v)) for k, v in pairs)
    else:
        kw["scene_weights"] = PAPER_SCENE_WEIGHTS
    if options.get("coverage"):
        if options["coverage"] not in ("soft", "hard"):
            raise ValueError("coverage must be soft or hard")
        kw["soft_coverage"] = options["coverage"] == "soft"
    return ScoreSettings(**kw)


def _previous_judge(folder: Path) -> str | None:
    path = folder / SCORES_JSON
    if not path.is_file():
        return None
    try:
        return read_json(path).get("explore", {}).get("judge", {}).get("spec")
    except (InputFileError, AttributeError):
        return None


def score_entries(
    bench: Benchmark,
    entries: list[tuple[Sample, int, Prediction]],
    *,
    options: dict[str, Any],
    folder: Path,
    context: dict[str, Any],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Score ``entries`` with the judge of ``options`` (default: the folder's previous judge, else lexical)."""
    settings = settings_from_options({k: v for k, v in options.items()})
    spec = options.get("judge") or _previous_judge(folder) or DEFAULT_JUDGE
    analyzer = TextAnalyzer(settings.spacy)
    embedder = Embedder(settings.sbert, settings.device)
    judge = create_judge(spec, cache_path=folder / JUDGE_STORE, embed=lambda: embedder.encode)
    scorer = Scorer(settings, judge, analyzer, embedder)
    rows = scorer.score(entries)
    recs = per_sample(rows)
    tables = partition_tables(recs, settings.weights, settings.abn_weight)
    tasks, primaries = task_block(recs, tables)
    overall, sem = mean_sem(primaries) if primaries else (None, None)
    graded = [
        r
        for r in recs
        if (r["task"] == "scene" and r.get("s_uni") is not None)
        or (r["task"] == "abnormal" and r.get("s_abn") is not None)
    ]
    ci = (
        cluster_bootstrap_ci(
            [r["s_uni" if r["task"] == "scene" else "s_abn"] for r in graded], [r["cluster"] for r in graded]
        )
        if graded
        else None
    )
    answered = [r for r in rows if r["status"] == "ok"]
    values = [t[t["metric"]] for t in tasks.values() if t[t["metric"]] is not None]
    summary: dict[str, Any] = {
        "benchmark": bench.name,
        "benchmark_hash": bench.hash,
        "permutations": "none",
        **context,
        "n": len(primaries),
        "overall": overall,
        "overall_sem": sem,
        "overall_ci95": list(ci) if ci else None,
        "macro": float(np.mean(values)) if values else None,
        "parse_rate": 100.0 * sum(bool(r["parsed"]) for r in answered) / len(answered) if answered else None,
        "rows": len(answered),
        "errors": sum(r["status"] == "error" for r in rows),
        "missing": sum(r["status"] in ("missing", "blocked") for r in rows),
        "task_order": list(tasks),
        "tasks": tasks,
        "explore": {
            "judge": judge.describe(),
            "judge_stats": judge.stats.as_dict(),
            "settings": settings.describe(),
            **tables,
            "lengths": length_stats(rows),
            "cost": cost_stats(rows),
            "unannotated": sum(r["task"] == "unannotated" for r in recs),
        },
    }
    summary["complete"] = summary["errors"] == 0 and summary["missing"] == 0
    judge_honesty(judge, summary)
    return rows, summary


def judge_honesty(judge: Any, summary: dict[str, Any]) -> None:
    """Say plainly when the judge's numbers cannot be trusted: every judged item failed, or the server
    answered as another model. Either makes the scores not comparable to the paper's."""
    stats = judge.stats
    judged = stats.items - stats.no_evidence
    block = summary["explore"]
    block["judge_rate"] = 100.0 * (judged - stats.failed) / judged if judged else None
    warnings = list(getattr(judge, "warnings", []))
    model = judge.identity().get("model")
    if model and judge.served_models:
        from egoworld.models.preflight import served_model_warning

        w = served_model_warning(str(model), judge.served_models, "answered as")
        if w:
            warnings.append(f"judge: {w}")
    failed_all = judged > 0 and stats.failed == judged
    if failed_all:
        warnings.append(
            f"the judge failed on all {judged} items it was asked about (see judge_stats); these scores are "
            "not judgements — fix the judge and rescore"
        )
    if warnings:
        block["judge"]["comparable_to_paper"] = False
    summary["judge_failed"] = failed_all
    summary["warnings"] = warnings


def score_explore_run(
    run_dir: str | Path,
    *,
    bench: Benchmark,
    manifest: dict[str, Any],
    options: dict[str, Any],
    write: bool = True,
) -> dict[str, Any]:
    """The plug-in hook: score a run folder of EXPLORE's request chains (any strategy) or of the standard plan (one-go)."""
    from egoworld.core.plan import select_samples

    run_dir = Path(run_dir)
    cfg = manifest.get("config", {})
    explore = manifest.get("explore")
    if explore is not None:
        strategy = Strategy.from_dict(explore.get("strategy"))
        sel = explore.get("selection", {})
        samples = select_explore_samples(
            bench, subset=sel.get("subset", "full"), tasks=sel.get("tasks"), limit=sel.get("limit")
        )
        epochs = 1
    else:
        strategy = Strategy()
        samples = select_samples(bench, cfg.get("tasks"), cfg.get("limit"), cfg.get("per_task"))
        epochs = int(cfg.get("epochs", 1))
    preds = predictions_from_run(run_dir, samples, strategy, epochs, generic=explore is None)
    entries = [(s, e, preds[(s.id, e)]) for s in samples for e in range(epochs)]
    context = {
        "model": manifest.get("model"),
        "model_spec": manifest.get("model_spec"),
        "inputs": manifest.get("inputs"),
        "strategy": strategy.describe(),
        "strategy_label": strategy.label,
    }
    rows, summary = score_entries(bench, entries, options=options, folder=run_dir, context=context)
    if write:
        write_scores(run_dir, rows, summary)
    return summary


def score_prediction_file(
    bench_dir: str | Path,
    predictions: str | Path,
    out: str | Path,
    *,
    options: dict[str, Any],
    label: str | None = None,
) -> dict[str, Any]:
    """Score a predictions file made elsewhere against ``bench_dir``; writes ``out/scores.{jsonl,json}``."""
    bench = load_benchmark(bench_dir)
    preds, counts = load_prediction_file(predictions, bench)
    if counts["matched"] == 0:
        raise InputFileError(
            f"{predictions}: none of its {counts['entries']} keys names a start_frame of {bench_dir} "
            f"(examples: {counts['unmatched_examples']})"
        )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    samples = [s for s in bench.samples if s.task != "unannotated"]
    entries = [(s, 0, preds[(s.id, 0)]) for s in samples]
    name = label or Path(predictions).stem
    context = {
        "model": {"backend": "file", "model": name},
        "model_spec": f"file:{name}",
        "inputs": {"setting": "predictions file"},
        "predictions_file": {"path": str(predictions), **counts},
        "strategy": {"kind": "external"},
        "strategy_label": "external",
    }
    rows, summary = score_entries(bench, entries, options=options, folder=out, context=context)
    write_scores(out, rows, summary)
    return summary
