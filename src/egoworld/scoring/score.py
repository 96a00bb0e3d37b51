"""`score_run`: re-score a run folder offline — no model needed — into ``scores.jsonl`` and ``scores.json``.

Every planned (sample, option order, epoch) gets a row. Rows whose request failed (``error``) or never ran
(``missing``) are listed but never scored as answers: metrics use answered rows only and report the counts.
An answered row that the extractor cannot parse is wrong (score 0) and lowers the parse rate.

A question's score is the mean over its orders and epochs; task metrics, Overall (the mean over all
questions, as the papers define it), SEM and the cluster-bootstrap CI are computed over questions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import (
    InputFileError,
    iter_jsonl,
    json_body,
    jsonl_body,
    read_json_object,
    remove_stale_temp_files,
    write_file_set,
)
from egoworld.core.folders.store import ResponseRow, ResponseStore
from egoworld.core.permutations import all_orders, order_index, parse_mode
from egoworld.core.plan import plan_items, select_samples
from egoworld.core.plugin import plugin_for
from egoworld.core.run_config import REFERENCE_JSONL, RUN_MANIFEST, SCORES_JSON, SCORES_JSONL, STORE_FILE
from egoworld.core.schema import Sample, TimePointAnswer
from egoworld.metrics.mra import mra_linear, mra_staircase
from egoworld.metrics.shuffle import shuffle_stats
from egoworld.metrics.stats import cluster_bootstrap_ci, mean_sem
from egoworld.scoring.extract import extract_answer
from egoworld.scoring.official import official_score
from egoworld.scoring.timepoint import parse_time_point, parsed_ok, score_time_point

#: permutation modes whose summary holds the Shuffle24 statistics
SHUFFLED = ("shuffle24", "all")
#: egoworld's extractor and metrics, or the official harness's per-sample rules
SCORINGS = ("egoworld", "official")


def metric_value(metric: str, sample: Sample, value: int | float | None) -> float:
    """Score in [0, 1] of one extracted answer (``value`` is an original choice index or a number)."""
    if value is None:
        return 0.0
    if metric == "accuracy":
        if sample.answer_type == "choice":
            return 1.0 if int(value) in sample.correct_indices else 0.0
        return 1.0 if float(value) == float(sample.answer) else 0.0
    if metric == "mra":
        return mra_linear(float(value), float(sample.answer))
    if metric == "mra_staircase":
        return mra_staircase(float(value), float(sample.answer))
    custom = plugin_for(sample.benchmark).metrics.get(metric)
    if custom is None:
        raise InputFileError(f"task {sample.task!r} asks for metric {metric!r}, which no plug-in provides")
    return float(custom(sample, value))


@dataclass
class _TaskAcc:
    question_scores: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    staircase: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    rows_ok: int = 0
    rows_parsed: int = 0
    errors: int = 0
    missing: int = 0


def score_row(
    sample: Sample,
    perm_id: str,
    epoch: int,
    resp: ResponseRow | None,
    metric: str,
    *,
    scoring: str = "egoworld",
) -> dict[str, Any]:
    """One ``scores.jsonl`` row."""
    from egoworld.core.permutations import parse_permutation_id

    perm = parse_permutation_id(perm_id)
    row: dict[str, Any] = {
        "sample": sample.id,
        "task": sample.task,
        "permutation": perm_id,
        "epoch": epoch,
        "status": "missing" if resp is None else resp.status,
        "raw": None if resp is None else resp.raw,
        "parsed": False,
        "pred": None,
        "score": None,
        "gold": sample.answer if sample.answer_type != "free" else None,
    }
    if resp is None or resp.status != "ok":
        row["error"] = None if resp is None else resp.error
        return row
    if scoring == "official":
        choices = tuple(sample.choices[i] for i in perm) if (sample.choices and perm) else sample.choices
        result = official_score(sample, resp.raw or "", choices)
        value = result.value
        if value is not None and sample.answer_type == "choice":
            row["pred_position"] = int(value)
            value = perm[int(value)] if perm else int(value)
        score = result.score
        if sample.answer_type == "choice":
            score = 1.0 if value is not None and int(value) in sample.correct_indices else 0.0
        row.update(parsed=result.parsed, pred=value, rule=result.rule, score=score)
        return row
    if sample.answer_type == "time_point":
        return _time_point_row(row, sample, resp.raw or "")
    choices = tuple(sample.choices[i] for i in perm) if (sample.choices and perm) else sample.choices
    ex = extract_answer(resp.raw or "", sample.answer_type, choices)
    value = ex.value
    if value is not None and sample.answer_type == "choice":
        row["pred_position"] = int(value)
        value = perm[int(value)] if perm else int(value)
    row.update(parsed=ex.parsed, pred=value, rule=ex.rule, score=metric_value(metric, sample, value))
    if sample.answer_type in ("integer", "number"):
        row["mra_staircase"] = mra_staircase(float(value), float(sample.answer)) if value is not None else 0.0
    return row


def _time_point_row(row: dict[str, Any], sample: Sample, raw: str) -> dict[str, Any]:
    """Score a time + point reply (`egoworld.scoring.timepoint`)."""
    ans = TimePointAnswer.model_validate(sample.answer)
    tp = parse_time_point(raw)
    result = score_time_point(tp, ans)
    row.update(
        parsed=parsed_ok(tp, ans.time_only),
        pred=[tp.time_s, tp.x, tp.y],
        rule="time_point",
        score=result.score,
        time_error_s=result.time_error_s,
        point_error=result.point_error,
    )
    return row


def read_reference(run_dir: Path) -> dict[str, dict[str, Any]] | None:
    """The other harness's own verdicts of an imported run (``reference.jsonl``), by sample id."""
    path = run_dir / REFERENCE_JSONL
    if not path.is_file():
        return None
    return {row["sample"]: row for _, row in iter_jsonl(path)}


def reference_agreement(rows: list[dict[str, Any]], reference: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Adds ``reference_score`` to each row; the share of answered rows where both scores agree."""
    compared, disagree = 0, []
    for row in rows:
        ref = reference.get(row["sample"])
        if ref is None:
            continue
        row["reference_score"] = ref.get("reference_score")
        if row["score"] is None or ref.get("reference_score") is None:
            continue
        compared += 1
        if abs(float(row["score"]) - float(ref["reference_score"])) > 1e-9:
            disagree.append(row["sample"])
    return {
        "rows": compared,
        "agree": compared - len(disagree),
        "share": round(100.0 * (compared - len(disagree)) / compared, 6) if compared else None,
        "disagreeing": disagree,
    }


def _pct(x: float) -> float:
    return round(100.0 * x, 6)


def score_run(
    run_dir: str | Path,
    *,
    bench_dir: str | Path | None = None,
    write: bool = True,
    options: dict[str, Any] | None = None,
    scoring: str = "egoworld",
    bench: Benchmark | None = None,
) -> dict[str, Any]:
    """Score ``run_dir``; writes ``scores.jsonl`` / ``scores.json`` there and returns the summary (see
    `score_run_rows`)."""
    summary, _rows = score_run_rows(
        run_dir, bench_dir=bench_dir, write=write, options=options, scoring=scoring, bench=bench
    )
    return summary


def score_run_rows(
    run_dir: str | Path,
    *,
    bench_dir: str | Path | None = None,
    write: bool = True,
    options: dict[str, Any] | None = None,
    scoring: str = "egoworld",
    bench: Benchmark | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """Score ``run_dir``; writes ``scores.jsonl`` / ``scores.json`` there and returns the summary and the
    ``scores.jsonl`` rows (None when the benchmark's plug-in scored the run).

    ``bench``: the benchmark already loaded (the run that just ended passes it), else it is loaded from
    ``bench_dir`` or the run's recorded path; either way it must be the one the run used.

    A benchmark with free-form tasks whose plug-in has a ``score_run`` hook is scored by that hook;
    ``options`` (e.g. ``{"judge": "lexical"}``) are passed to it. ``scoring="official"`` applies the
    official harness's per-sample rules (the plug-in's `official_score` hook) instead of ours.
    """
    if scoring not in SCORINGS:
        raise ValueError(f"--scoring {scoring!r}: expected one of {', '.join(SCORINGS)}")
    run_dir = Path(run_dir)
    manifest = read_json_object(run_dir / RUN_MANIFEST)
    if write:  # hidden temporary files of a scoring that was killed go first
        remove_stale_temp_files(run_dir, [SCORES_JSONL, SCORES_JSON])
    bench = bench or load_benchmark(bench_dir or manifest["benchmark_path"])
    if bench.hash != manifest["benchmark_hash"]:
        raise InputFileError(
            f"{bench.root}: benchmark differs from the one this run used (hash {manifest['benchmark_hash'][:12]}); "
            "pass --bench with the original folder"
        )
    plugin = plugin_for(bench.name)
    if plugin.score_run is not None and any(t.answer_type == "free" for t in bench.manifest.tasks.values()):
        if scoring != "egoworld":
            raise ValueError(f"--scoring {scoring}: {bench.name} is scored by its own judge-based scorer")
        judged = plugin.score_run(
            run_dir, bench=bench, manifest=manifest, options=dict(options or {}), write=write
        )
        return judged, None
    if options:
        raise InputFileError(
            f"scoring options {sorted(options)} apply only to benchmarks whose plug-in scores free-form answers"
        )
    cfg = manifest["config"]
    samples = select_samples(bench, cfg["tasks"], cfg["limit"], cfg["per_task"])
    if cfg.get("sample_ids") is not None:  # an imported run covers the questions its log holds
        keep = set(cfg["sample_ids"])
        samples = [s for s in samples if s.id in keep]
    mode = parse_mode(str(cfg["permutations"]))
    items = plan_items(samples, mode, cfg["seed"], cfg["epochs"], "none")
    with ResponseStore(run_dir / STORE_FILE, readonly=True) as store:
        planned = {(s, p, e): resp for s, p, e, _key, resp in store.planned()}
    rows: list[dict[str, Any]] = []
    acc: dict[str, _TaskAcc] = {t: _TaskAcc() for t in bench.tasks()}
    matrices: dict[str, dict[str, dict[int, tuple[bool, int]]]] = defaultdict(lambda: defaultdict(dict))
    shuffled = mode in SHUFFLED  # (the Shuffle24 statistics need each question's order matrix)
    for it in items:
        s = it.sample
        pid = it.id[1]
        resp = planned.get((s.id, pid, it.epoch))
        metric = bench.manifest.tasks[s.task].metric
        row = score_row(s, pid, it.epoch, resp, metric, scoring=scoring)
        rows.append(row)
        a = acc[s.task]
        if row["status"] == "error":
            a.errors += 1
        elif row["status"] == "missing":
            a.missing += 1
        else:
            a.rows_ok += 1
            a.rows_parsed += int(row["parsed"])
            a.question_scores[s.id].append(row["score"])
            if "mra_staircase" in row:
                a.staircase[s.id].append(row["mra_staircase"])
            if shuffled and it.perm is not None and len(it.perm) == 4 and it.epoch == 0:
                matrices[s.task][s.id][order_index(it.perm)] = (
                    row["score"] == 1.0,
                    row.get("pred_position", -1),
                )
    summary = summarise(bench, acc, matrices, mode, manifest)
    if scoring != "egoworld":
        summary["scoring"] = scoring
    reference = read_reference(run_dir)
    if reference is not None:
        summary["reference_agreement"] = reference_agreement(rows, reference)
    if plugin.official_aggregates is not None:
        summary["official"] = plugin.official_aggregates(bench, rows)
    if write:
        write_scores(run_dir, rows, summary)
    return summary, rows


def write_scores(folder: str | Path, rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """``scores.jsonl`` and ``scores.json`` as one unit: a kill never leaves the two from different scorings
    (``scores.json`` is removed first and written last; leftovers of a killed scoring are removed)."""
    write_file_set(folder, {SCORES_JSONL: jsonl_body(rows), SCORES_JSON: json_body(summary)})


def summarise(
    bench: Benchmark, acc: dict[str, _TaskAcc], matrices: dict, mode: Any, manifest: dict
) -> dict[str, Any]:
    tasks_out: dict[str, Any] = {}
    all_scores: list[float] = []
    all_clusters: list[str] = []
    rows_ok = rows_parsed = errors = missing = 0
    for task, info in bench.manifest.tasks.items():
        a = acc[task]
        qs = list(a.question_scores)
        scores = [_mean(a.question_scores[q]) for q in qs]
        clusters = [bench.sample(q).cluster_id for q in qs]
        rows_ok += a.rows_ok
        rows_parsed += a.rows_parsed
        errors += a.errors
        missing += a.missing
        if not scores and not a.errors and not a.missing:
            continue  # task not selected in this run
        mean, sem = mean_sem(scores) if scores else (float("nan"), float("nan"))
        lo, hi = cluster_bootstrap_ci(scores, clusters) if scores else (float("nan"), float("nan"))
        entry: dict[str, Any] = {
            "n": len(scores),
            "metric": info.metric,
            info.metric: _pct(mean) if scores else None,
            "sem": _pct(sem) if scores else None,
            "ci95": [_pct(lo), _pct(hi)] if scores else None,
            "parse_rate": _pct(a.rows_parsed / a.rows_ok) if a.rows_ok else None,
            "rows": a.rows_ok,
            "errors": a.errors,
            "missing": a.missing,
        }
        if a.staircase:
            entry["mra_staircase"] = _pct(float(np.mean([np.mean(v) for v in a.staircase.values()])))
        if info.chance is not None:
            entry["chance"] = info.chance
        if info.title:
            entry["title"] = info.title
        tasks_out[task] = entry
        all_scores.extend(scores)
        all_clusters.extend(clusters)
    overall, overall_sem = mean_sem(all_scores) if all_scores else (float("nan"), float("nan"))
    lo, hi = cluster_bootstrap_ci(all_scores, all_clusters) if all_scores else (float("nan"), float("nan"))
    task_values = [t[t["metric"]] for t in tasks_out.values() if t[t["metric"]] is not None]
    out: dict[str, Any] = {
        "benchmark": bench.name,
        "benchmark_hash": manifest["benchmark_hash"],
        "model": manifest["model"],
        "model_spec": manifest["model_spec"],
        "inputs": manifest["inputs"],
        "permutations": manifest["permutations"],
        "n": len(all_scores),
        "overall": _pct(overall) if all_scores else None,
        "overall_sem": _pct(overall_sem) if all_scores else None,
        "overall_ci95": [_pct(lo), _pct(hi)] if all_scores else None,
        "macro": round(float(np.mean(task_values)), 6) if task_values else None,
        "parse_rate": _pct(rows_parsed / rows_ok) if rows_ok else None,
        "rows": rows_ok,
        "errors": errors,
        "missing": missing,
        "complete": errors == 0 and missing == 0,
        "task_order": list(tasks_out),
        "tasks": tasks_out,
    }
    if mode in SHUFFLED:
        out["shuffle24"] = _shuffle(matrices)
    if manifest.get("frames_sent"):  # fewer frames than --frames reached some samples
        sent = manifest["frames_sent"]
        out["frames_sent"] = {
            k: sent[k] for k in ("asked", "min", "max", "samples", "short_samples") if k in sent
        }
    return out


def _mean(values: list[float]) -> float:
    """NumPy's mean (its pairwise sum); one value is its own mean, without a NumPy call."""
    return float(values[0]) if len(values) == 1 else float(np.mean(values))


def _shuffle(matrices: dict[str, dict[str, dict[int, tuple[bool, int]]]]) -> dict[str, Any]:
    n_orders = len(all_orders(4))
    result: dict[str, Any] = {}
    for task, per_q in matrices.items():
        complete = [q for q, orders in per_q.items() if len(orders) == n_orders]
        if not complete:
            continue
        correct = np.array([[per_q[q][j][0] for j in range(n_orders)] for q in complete], dtype=bool)
        picked = np.array([[per_q[q][j][1] for j in range(n_orders)] for q in complete], dtype=int)
        stats = shuffle_stats(correct, picked).as_dict()
        stats["incomplete"] = len(per_q) - len(complete)
        result[task] = stats
    return result


def ensure_scored(run_dir: Path) -> dict[str, Any]:
    """The run's scores.json summary, scoring it first when it is missing or older than the responses."""
    if not (run_dir / RUN_MANIFEST).is_file():
        raise InputFileError(
            f"{run_dir}: not a run folder (no {RUN_MANIFEST}); pass folders made by `egoworld run`"
        )
    scores, store = run_dir / SCORES_JSON, run_dir / STORE_FILE
    if not scores.is_file() or (store.is_file() and store.stat().st_mtime > scores.stat().st_mtime):
        return score_run(run_dir)
    return read_json_object(scores)
