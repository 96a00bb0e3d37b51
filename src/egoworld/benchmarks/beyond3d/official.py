"""The official harness's aggregates (``oos_aggregate_results``), computed from ``scores.jsonl`` rows and
stored under ``scores.json["official"]`` with the official names; rates and accuracies in percent.

Per class ``<class>_accuracy`` (official class names), ``macro_avg`` (mean over classes: the paper's
headline), ``micro_avg`` (over questions), ``video_macro_avg`` (mean over source videos), per step
``step_<id>_accuracy`` and ``step_macro_avg``, ``parse_rate``, and over trajectories (steps sorted 1, 2, …,
5a, 5b, …): ``trajectory_success_rate`` (every step right), ``error_propagation_rate`` (after the first
mistake, any later mistake), ``post_error_failure_rate`` (mean share of later steps wrong) and
``avg_first_mistake_step`` (numeric part of the first wrong step). A question's score is the mean over
its option orders and epochs; only answered questions count (errors / missing rows are reported apart).
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from html import escape
from typing import Any

from egoworld.benchmarks.beyond3d import TASK_ORDER
from egoworld.core.bench_folder import Benchmark
from egoworld.core.plugin import ReportSection
from egoworld.core.schema import Sample

#: the headline figures shown in the report, in this order
HEADLINE = (
    "macro_avg",
    "micro_avg",
    "video_macro_avg",
    "step_macro_avg",
    "parse_rate",
    "trajectory_success_rate",
    "error_propagation_rate",
    "post_error_failure_rate",
    "avg_first_mistake_step",
)


def step_label(sample: Sample) -> str | None:
    if sample.trajectory is None:
        return None
    return sample.trajectory.label or str(sample.trajectory.step)


def step_sort_key(label: str) -> tuple[int, str]:
    m = re.match(r"^(\d+)([A-Za-z]*)$", label)
    return (int(m.group(1)), m.group(2)) if m else (10**9, label)


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values))


def _pct(x: float) -> float:
    return round(100.0 * x, 6)


def official_aggregates(bench: Benchmark, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The official aggregates over the answered questions of one run."""
    from egoworld.benchmarks.beyond3d.release import TASK_TO_CLASS

    per_q: dict[str, list[float]] = defaultdict(list)
    parsed: dict[str, bool] = {}
    for r in rows:
        if r.get("status") != "ok" or r.get("score") is None:
            continue
        per_q[r["sample"]].append(float(r["score"]))
        parsed[r["sample"]] = parsed.get(r["sample"], False) or bool(r.get("parsed"))
    out: dict[str, Any] = {"total_count": len(per_q)}
    if not per_q:
        return out
    acc = {q: _mean(v) for q, v in per_q.items()}
    samples = {q: bench.sample(q) for q in acc}
    out["parse_rate"] = _pct(_mean([float(parsed[q]) for q in acc]))
    by_class: dict[str, list[float]] = defaultdict(list)
    for q, a in acc.items():
        by_class[samples[q].task].append(a)
    classes = [t for t in TASK_ORDER if t in by_class]
    for t in classes:
        out[f"{TASK_TO_CLASS[t]}_accuracy"] = _pct(_mean(by_class[t]))
    out["macro_avg"] = _pct(_mean([_mean(by_class[t]) for t in classes]))
    out["micro_avg"] = _pct(_mean(list(acc.values())))
    by_video: dict[str, list[float]] = defaultdict(list)
    for q, a in acc.items():
        by_video[samples[q].cluster_id].append(a)
    out["video_macro_avg"] = _pct(_mean([_mean(v) for v in by_video.values()]))
    out.update(_trajectories(acc, samples))
    out["overall"] = out["macro_avg"]
    return out


def _trajectories(acc: dict[str, float], samples: dict[str, Sample]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    by_step: dict[str, list[float]] = defaultdict(list)
    trajs: dict[str, list[tuple[tuple[int, str], str, float]]] = defaultdict(list)
    for q, a in acc.items():
        label = step_label(samples[q])
        if label is None:
            continue
        by_step[label].append(a)
        trajs[samples[q].trajectory.id].append((step_sort_key(label), label, a))  # type: ignore[union-attr]
    if not by_step:
        return out
    for label in sorted(by_step, key=step_sort_key):
        out[f"step_{label}_accuracy"] = _pct(_mean(by_step[label]))
    out["step_macro_avg"] = _pct(_mean([_mean(v) for v in by_step.values()]))
    out["multi_turn_step_count"] = sum(len(v) for v in by_step.values())
    success, first_wrong, propagation, later_rates = [], [], [], []
    for steps in trajs.values():
        accs = [a for _, _, a in sorted(steps)]
        labels = [lab for _, lab, _ in sorted(steps)]
        wrong = [i for i, a in enumerate(accs) if a != 1.0]
        success.append(float(not wrong))
        if not wrong:
            continue
        first_wrong.append(step_sort_key(labels[wrong[0]])[0])
        later = accs[wrong[0] + 1 :]
        if later:
            propagation.append(float(any(a != 1.0 for a in later)))
            later_rates.append(sum(a != 1.0 for a in later) / len(later))
    out["trajectory_count"] = len(trajs)
    out["trajectory_success_rate"] = _pct(_mean(success))
    out["completed_without_error_rate"] = out["trajectory_success_rate"]
    out["avg_first_mistake_step"] = round(_mean(first_wrong), 6) if first_wrong else 0.0
    out["median_first_mistake_step"] = float(statistics.median(first_wrong)) if first_wrong else 0.0
    out["error_propagation_rate"] = _pct(_mean(propagation)) if propagation else 0.0
    out["post_error_failure_rate"] = _pct(_mean(later_rates)) if later_rates else 0.0
    return out


def _human(name: str) -> str:
    """``oos_step4_fixture_accuracy`` → ``Step 4 fixture``; ``macro_avg`` → ``Macro avg`` (the section says
    which columns are accuracies)."""
    text = re.sub(r"_accuracy$", "", re.sub(r"^oos_", "", name))
    text = re.sub(r"step(\d+)([a-z]?)", lambda m: f"step {m.group(1)}{m.group(2)}", text).replace("_", " ")
    return text[:1].upper() + text[1:]


def official_section(summaries: Sequence[dict], labels: Sequence[str]) -> ReportSection | None:
    """A report table of the official aggregates, one row per run, with the official names."""
    rows = [(lab, s["official"]) for lab, s in zip(labels, summaries, strict=True) if s.get("official")]
    if not rows:
        return None
    cols = [c for c in HEADLINE if any(c in o for _, o in rows)]
    cols += sorted({k for _, o in rows for k in o if k.endswith("_accuracy") and k.startswith("oos_")})

    def cell(o: dict, c: str) -> str:
        v = o.get(c)
        return "–" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))

    md = ["| run | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    md += [f"| {lab} | " + " | ".join(cell(o, c) for c in cols) + " |" for lab, o in rows]
    # human headers that wrap (the official name stays in the Markdown and in each header's tooltip)
    head = "".join(f'<th title="{escape(c, quote=True)}">{escape(_human(c))}</th>' for c in cols)
    body = "".join(
        f"<tr><td>{escape(lab)}</td>" + "".join(f'<td class="num">{cell(o, c)}</td>' for c in cols) + "</tr>"
        for lab, o in rows
    )
    html = f'<div class="scroll"><table><tr><th>Run</th>{head}</tr>{body}</table></div>'
    return ReportSection(
        title="Official Beyond3D aggregates (oos_aggregate_results; branch and step columns: accuracy, %)",
        markdown="\n".join(md),
        html=html,
    )
