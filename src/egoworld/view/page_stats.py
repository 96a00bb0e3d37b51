"""Numbers for the overview and compare pages, computed from the runs' per-question scores."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from egoworld.core.permutations import order_index, parse_permutation_id
from egoworld.metrics.stats import cluster_bootstrap_ci, mean_sem
from egoworld.view.detail import option_text
from egoworld.view.workspace import BenchView, RunView

#: a task gets a confusion matrix when its questions draw their options from at most this many texts
CONFUSION_MAX_OPTIONS = 8


def _scale(run: RunView) -> float:
    """Question scores are fractions (×100 for percent) except judge-scored runs that already use 0–100."""
    return 1.0 if any((s or 0) > 1.0 for s in run.results.scores()) else 100.0


def answered_ids(run: RunView) -> set[str]:
    return run.results.answered()


def question_sets_differ(bv: BenchView) -> bool:
    sets = [answered_ids(r) for r in bv.runs]
    return len(sets) > 1 and any(s != sets[0] for s in sets[1:])


def _cell(values: list[float], clusters: list[str]) -> dict[str, Any]:
    if not values:
        return {"value": None, "lo": None, "hi": None, "n": 0}
    mean, _ = mean_sem(values)
    lo, hi = cluster_bootstrap_ci(values, clusters)
    return {"value": mean, "lo": lo, "hi": hi, "n": len(values)}


def overview(bv: BenchView, common: bool) -> dict[str, Any]:
    """Rows of the overview table: per run, per task and Overall, value with its 95 % cluster-bootstrap CI.

    ``common``: every run on the questions all runs answered (recomputed here); otherwise each run's own
    scores.json (its own question set)."""
    tasks = list(bv.bench.manifest.tasks)
    keep = set.intersection(*(answered_ids(r) for r in bv.runs)) if bv.runs and common else None
    rows = []
    for run in bv.runs:
        cells: dict[str, dict[str, Any]] = {}
        if keep is None:
            s = run.summary
            for t in tasks:
                e = (s.get("tasks") or {}).get(t)
                if e:
                    ci = e.get("ci95") or [None, None]
                    cells[t] = {
                        "value": e.get(e.get("metric", "")),
                        "lo": ci[0],
                        "hi": ci[1],
                        "n": e.get("n"),
                    }
            ci = s.get("overall_ci95") or [None, None]
            cells["Overall"] = {"value": s.get("overall"), "lo": ci[0], "hi": ci[1], "n": s.get("n")}
        else:
            k = _scale(run)
            by_task: dict[str, tuple[list[float], list[str]]] = defaultdict(lambda: ([], []))
            cols = bv.columns()
            for sid in sorted(keep):
                task, video = cols[sid]
                by_task[task][0].append(k * float(run.results[sid].score or 0.0))
                by_task[task][1].append(video)
            allv, allc = [], []
            for t in tasks:
                if t in by_task:
                    cells[t] = _cell(*by_task[t])
                    allv += by_task[t][0]
                    allc += by_task[t][1]
            cells["Overall"] = _cell(allv, allc)
        s = run.summary
        rows.append(
            {
                "run": run,
                "cells": cells,
                "parse_rate": s.get("parse_rate"),
                "errors": (s.get("errors") or 0) + (s.get("missing") or 0),
            }
        )
    shown = [t for t in tasks if any(t in r["cells"] for r in rows)] or tasks
    chance = {t: info.chance for t, info in bv.bench.manifest.tasks.items() if info.chance is not None}
    return {
        "tasks": shown,
        "rows": rows,
        "chance": chance,
        "common": keep is not None,
        "n_common": len(keep or ()),
    }


def paired(bv: BenchView, runs: list[RunView], baseline: RunView | None = None) -> list[dict[str, Any]]:
    """Each run against the baseline (default: the first): mean paired difference of question scores
    (percent points) with a cluster-bootstrap CI, overall and per task, on the questions both answered."""
    ref = baseline if baseline is not None else (runs[0] if runs else None)
    others = [r for r in runs if r is not ref]
    if ref is None or not others:
        return []
    out = []
    for other in others:
        both = sorted(answered_ids(ref) & answered_ids(other))
        groups: dict[str, tuple[list[float], list[str]]] = defaultdict(lambda: ([], []))
        cols = bv.columns()
        for sid in both:
            task, video = cols[sid]
            d = _scale(other) * float(other.results[sid].score or 0) - _scale(ref) * float(
                ref.results[sid].score or 0
            )
            for g in ("Overall", task):
                groups[g][0].append(d)
                groups[g][1].append(video)
        for g, (vals, clus) in groups.items():
            cell = _cell(vals, clus)
            wins = sum(v > 0 for v in vals)
            losses = sum(v < 0 for v in vals)
            out.append({"run": other, "ref": ref, "group": g, **cell, "wins": wins, "losses": losses})
    out.sort(key=lambda r: (r["run"].id, r["group"] != "Overall", r["group"]))
    return out


def confusions(bv: BenchView, runs: list[RunView]) -> list[dict[str, Any]]:
    """Gold × predicted option text per run, for choice tasks with a small fixed option vocabulary
    (directions, distance bins, VMR motions, VOO orders …)."""
    out = []
    for task, info in bv.bench.manifest.tasks.items():
        if info.answer_type != "choice":
            continue
        samples = [s for s in bv.bench.samples if s.task == task]
        labels = sorted({c for s in samples for c in (s.choices or ())})
        if not samples or len(labels) > CONFUSION_MAX_OPTIONS:
            continue
        for run in runs:
            m: dict[tuple[str, str], int] = defaultdict(int)
            n = 0
            for s in samples:
                res = run.results.get(s.id)
                if res is None or not res.rows:
                    continue
                gold = s.choices[s.correct_indices[0]]  # type: ignore[index]
                pred = (
                    option_text(s, res.pred)
                    if res.verdict != "unparsed" and res.pred is not None
                    else "(unparsed)"
                )
                if res.verdict == "error":
                    continue
                m[(gold, pred)] += 1
                n += 1
            if n:
                cols = labels + (["(unparsed)"] if any(p == "(unparsed)" for _, p in m) else [])
                out.append({"task": task, "run": run, "labels": labels, "cols": cols, "m": dict(m), "n": n})
    return out


def order_accuracy(runs: list[RunView]) -> list[dict[str, Any]]:
    """Mean score per option order (order 0 = as in the file) per run, for runs with several orders."""
    out = []
    for run in runs:
        per: dict[int, list[float]] = defaultdict(list)
        for res in run.results.values():
            for r in res.rows:
                if r.get("score") is None or not r.get("permutation"):
                    continue
                perm = parse_permutation_id(r["permutation"])
                if perm is not None:
                    per[order_index(perm)].append(float(r["score"]))
        if len(per) > 1:
            k = _scale(run)
            orders = sorted(per)
            vals = [k * float(np.mean(per[o])) for o in orders]
            out.append({"run": run, "orders": orders, "scores": vals, "spread": max(vals) - min(vals)})
    return out


def per_video(bv: BenchView, runs: list[RunView]) -> list[dict[str, Any]]:
    """Mean question score per video (cluster) per run."""
    clusters: dict[str, list[str]] = defaultdict(list)
    for sid, (_, video) in bv.columns().items():
        clusters[video].append(sid)
    rows = []
    for c, ids in sorted(clusters.items()):
        cells = []
        for run in runs:
            vals = [
                run.results[i].score for i in ids if i in run.results and run.results[i].score is not None
            ]
            cells.append(None if not vals else _scale(run) * float(np.mean(vals)))
        if any(v is not None for v in cells):
            rows.append({"video": c, "n": len(ids), "cells": cells})
    return rows
