"""Tables of a scored EXPLORE run: partitions (Short / Medium / Long / Full, Tiny), abnormal cases,
description lengths, cost, and the generic task block the cross-benchmark report reads."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from egoworld.benchmarks.explore import TASK_ABNORMAL, TASK_SCENE, TASK_UNANNOTATED
from egoworld.benchmarks.explore.partitions import PARTITION_NAMES
from egoworld.benchmarks.explore.scorer import abnormal, unified
from egoworld.metrics.stats import cluster_bootstrap_ci, mean_sem

METRICS = ("s_obj", "s_att", "s_rel", "s_key", "s_uni", "s_abn")


def per_sample(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per sample: metrics averaged over its scored epochs (unscored epochs left out)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["sample"]].append(r)
    out = []
    for rs in groups.values():
        first = rs[0]
        rec: dict[str, Any] = {
            k: first[k] for k in ("sample", "task", "partition", "tiny", "abnormal", "n_actions")
        }
        rec["cluster"] = first.get("cluster") or first["sample"]  # rows scored before clusters were kept
        scored = [r for r in rs if r.get("scored")]
        rec["scored"] = bool(scored)
        rec["answered"] = any(r["status"] == "ok" for r in rs)
        rec["errors"] = sum(r["status"] == "error" for r in rs)
        rec["missing"] = sum(r["status"] in ("missing", "blocked") for r in rs)
        rec["parsed"] = sum(bool(r["parsed"]) for r in rs if r["status"] == "ok")
        rec["ok_rows"] = sum(r["status"] == "ok" for r in rs)
        rec["judge_failed"] = sum(r.get("judge_failed", 0) for r in rs)
        for m in METRICS:
            vals = [r[m] for r in scored if r.get(m) is not None]
            rec[m] = float(np.mean(vals)) if vals else None
        out.append(rec)
    return out


def _stats(recs: list[dict[str, Any]], weights: tuple[float, float, float], abn_w: float) -> dict[str, Any]:
    scored = [r for r in recs if r["scored"]]
    means: dict[str, float | None] = {}
    for m in ("s_obj", "s_att", "s_rel", "s_key"):
        vals = [r[m] for r in scored if r[m] is not None]
        means[m] = float(np.mean(vals)) if vals else None
    s_uni = unified(means["s_obj"], means["s_att"], means["s_rel"], weights)
    unis = [r["s_uni"] for r in scored if r["s_uni"] is not None]
    out: dict[str, Any] = {
        "n": len(scored),
        "instances": len(recs),
        "s_obj": means["s_obj"],
        "s_att": means["s_att"],
        "s_rel": means["s_rel"],
        "s_att20": None if means["s_att"] is None else 20.0 * means["s_att"],
        "s_rel20": None if means["s_rel"] is None else 20.0 * means["s_rel"],
        "s_uni": s_uni,
        "s_uni_sem": mean_sem(unis)[1] if len(unis) > 1 else None,
        "errors": sum(r["errors"] for r in recs),
        "missing": sum(r["missing"] for r in recs),
        "judge_failed_items": sum(r["judge_failed"] for r in recs),
    }
    if means["s_key"] is not None:
        out["s_key"] = means["s_key"]
        out["s_key20"] = 20.0 * means["s_key"]
        out["s_abn"] = abnormal(s_uni, means["s_key"], abn_w)
    return out


def partition_tables(
    recs: list[dict[str, Any]], weights: tuple[float, float, float], abn_w: float
) -> dict[str, Any]:
    """``partitions`` (normal instances: short / medium / long / full and tiny) and ``abnormal``."""
    normal = [r for r in recs if r["task"] == TASK_SCENE]
    parts: dict[str, Any] = {}
    if normal:
        for name in PARTITION_NAMES:
            group = [r for r in normal if r["partition"] == name]
            if group:
                parts[name] = _stats(group, weights, abn_w)
        parts["full"] = _stats(normal, weights, abn_w)
        tiny = [r for r in normal if r["tiny"]]
        if tiny:
            parts["tiny"] = _stats(tiny, weights, abn_w)
    abn = [r for r in recs if r["task"] == TASK_ABNORMAL]
    return {"partitions": parts, "abnormal": _stats(abn, weights, abn_w) if abn else None}


def _dist(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    a = np.asarray(values, dtype=float)
    return {
        "mean": float(a.mean()),
        "median": float(np.median(a)),
        "p10": float(np.percentile(a, 10)),
        "p90": float(np.percentile(a, 90)),
        "min": float(a.min()),
        "max": float(a.max()),
    }


def length_stats(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Description length (words, sentences, characters) of answered final descriptions, overall and per partition."""
    ok = [r for r in rows if r["status"] == "ok"]
    out: dict[str, Any] = {
        "n": len(ok),
        "words": _dist([r["pred_words"] for r in ok]),
        "sentences": _dist([r["pred_sentences"] for r in ok]),
        "chars": _dist([r["pred_chars"] for r in ok]),
        "by_partition": {},
    }
    for name in PARTITION_NAMES:
        group = [r["pred_words"] for r in ok if r["partition"] == name]
        if group:
            out["by_partition"][name] = {"n": len(group), "mean_words": float(np.mean(group))}
    return out


def cost_stats(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Requests and tokens (the paper's cost figure): totals and per-sample means."""
    keys = ("requests", "ok_requests", "prompt_tokens", "completion_tokens")
    totals = {k: sum(int((r.get("cost") or {}).get(k, 0)) for r in rows) for k in keys}
    n = len({r["sample"] for r in rows}) or 1
    return {**totals, "samples": n, **{f"{k}_per_sample": totals[k] / n for k in keys}}


def task_block(recs: list[dict[str, Any]], tables: dict[str, Any]) -> tuple[dict[str, Any], list[float]]:
    """The generic ``tasks`` entries (metric value in percent, SEM over instances) and every primary score."""
    tasks: dict[str, Any] = {}
    primaries: list[float] = []
    for task, metric in ((TASK_SCENE, "s_uni"), (TASK_ABNORMAL, "s_abn"), (TASK_UNANNOTATED, "none")):
        group = [r for r in recs if r["task"] == task]
        if not group:
            continue
        kept = [r for r in group if metric != "none" and r.get(metric) is not None]
        vals = [r[metric] for r in kept]
        primaries.extend(vals)
        lo, hi = cluster_bootstrap_ci(vals, [r["cluster"] for r in kept]) if vals else (None, None)
        if task == TASK_SCENE:
            value = tables["partitions"]["full"]["s_uni"]
        elif task == TASK_ABNORMAL:
            value = tables["abnormal"].get("s_abn")
        else:
            value = None
        ok_rows = sum(r["ok_rows"] for r in group)
        tasks[task] = {
            "n": len(vals),
            "metric": metric,
            metric: value,
            "sem": mean_sem(vals)[1] if len(vals) > 1 else None,
            "ci95": [lo, hi] if vals else None,  # of the mean per-instance score, clusters (videos) resampled
            "parse_rate": 100.0 * sum(r["parsed"] for r in group) / ok_rows if ok_rows else None,
            "rows": ok_rows,
            "errors": sum(r["errors"] for r in group),
            "missing": sum(r["missing"] for r in group),
        }
    return tasks, primaries
