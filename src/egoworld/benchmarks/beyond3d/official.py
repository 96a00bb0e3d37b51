"""Beyond3D's official code, reproduced: the per-sample rules (``--scoring official``) and the harness's
aggregates.

Per-sample rules, reproduced exactly from
``Beyond3D-bench/vlm-evaluation`` ``lmms_eval/tasks/oos_videoqa/utils.py``: ``extract_prediction_index``
(clean the reply, then a letter, then an option text, then the same on the raw reply) against the gold set;
open steps 2/3 with the official time/point parser and tolerances.

Aggregates (``oos_aggregate_results``), computed from ``scores.jsonl`` rows and
stored under ``scores.json["official"]`` with the official names; rates and accuracies in percent.

Per class ``<class>_accuracy`` (official class names), ``macro_avg`` (mean over classes: the paper's
headline), ``micro_avg`` (over questions), ``video_macro_avg`` (mean over source videos), per step
``step_<id>_accuracy`` and ``step_macro_avg``, ``parse_rate``, and over trajectories (steps sorted 1, 2, …,
5a, 5b, …): ``trajectory_success_rate`` (every step right), ``error_propagation_rate`` (after the first
mistake, any later mistake), ``post_error_failure_rate`` (mean share of later steps wrong) and
``avg_first_mistake_step`` (numeric part of the first wrong step). A question's score is the mean over
its option orders and epochs; only answered questions count (errors / missing rows are reported apart)."""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from html import escape
from typing import Any

from egoworld.benchmarks.beyond3d import TASK_ORDER
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.plugin import CHOICE, OfficialResult, ReportSection
from egoworld.core.schema import Sample, TimePointAnswer
from egoworld.scoring.timepoint import TimePoint, parsed_ok, score_time_point

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_FINALS = (
    re.compile(
        r"(?:final\s+answer|answer|correct\s+answer|option|choice)\s*(?:is|=|:|-)?\s*\(?\s*([A-Z])\s*\)?\b",
        re.I,
    ),
    re.compile(r"(?:final\s+answer|answer|correct\s+answer)\s*(?:is|=|:|-)\s*([^\n\r]+)", re.I),
)
_CUTS = tuple(
    re.compile(p, re.I)
    for p in (
        r"\n\s*Question\s*:",
        r"\n\s*Options\s*:",
        r"\n\s*Select\s+the\s+best\s+option",
        r"\n\s*\[BATCH\]",
        r"\n\s*\[STEP\]",
        r"\n\s*\[CLEANED OUTPUT\]",
    )
)
_RELATIONS = {
    "right": "to the right",
    "left": "to the left",
    "front": "in front of",
    "in front": "in front of",
    "ahead of": "in front of",
    "back": "behind",
    "at the back": "behind",
}
_STRIP = " .,:;!?()[]{}\"'`*_"


def b3d_clean(text: str | None) -> str:
    """The official ``_clean_prediction``: the last "answer is X" statement, else the first line."""
    if text is None:
        return ""
    text = _ANSI.sub("", str(text)).replace("\u0332", "").strip()
    if not text:
        return ""
    text = re.sub(r"</think>.*$", "", text, flags=re.I | re.S).strip()
    for pat in _FINALS:
        found = pat.findall(text)
        if found:
            lines = str(found[-1]).strip().splitlines()
            return lines[0].strip() if lines else ""
    for pat in _CUTS:
        if m := pat.search(text):
            text = text[: m.start()].strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0] if lines else text.strip()


def _letter_index(pred: str, n: int) -> int:
    up = _ANSI.sub("", str(pred or "")).replace("\u0332", "").upper().strip()
    if not up:
        return -1
    top = chr(ord("A") + n - 1) if 0 < n <= 26 else "Z"
    pats = (
        rf"(?:FINAL\s+ANSWER|ANSWER|CORRECT\s+ANSWER|OPTION|CHOICE)\s*(?:IS|=|:|-)?\s*[\(\[]?\s*([A-{top}])(?=$|[^A-Z])",
        rf"^[\s\W_`'\"“”‘’（(【\[]*([A-{top}])(?=$|[^A-Z])",
        rf"^[\s>*\-•]+[\(\[]?\s*([A-{top}])(?=$|[^A-Z])",
    )
    for p in pats:
        if m := re.search(p, up, flags=re.I):
            idx = ord(m.group(1).upper()) - ord("A")
            if 0 <= idx < n:
                return idx
    return -1


def _norm(text: str) -> str:
    t = re.sub(r"\s+", " ", str(text).strip().lower())
    return _RELATIONS.get(t, t)


def _text_index(pred: str, choices: Sequence[str]) -> int:
    p = _norm(b3d_clean(pred)).strip(_STRIP)
    cs = [_norm(c).strip(_STRIP) for c in choices]
    for i, c in enumerate(cs):
        if p == c:
            return i
    if yn := re.search(r"\b(yes|no)\b", p, flags=re.I):
        for i, c in enumerate(cs):
            if c == yn.group(1).lower():
                return i
    for i, c in enumerate(cs):
        if c and re.search(rf"\b{re.escape(c)}\b", p):
            return i
    for i, c in enumerate(cs):
        if p and re.search(rf"\b{re.escape(p)}\b", c):
            return i
    return -1


def b3d_choice_index(raw: str, choices: Sequence[str]) -> int:
    """The official ``extract_prediction_index``: -1 when nothing matches."""
    clean = b3d_clean(raw)
    for idx in (
        _letter_index(clean, len(choices)),
        _text_index(clean, choices),
        _letter_index(str(raw), len(choices)),
        _text_index(str(raw), choices),
    ):
        if idx != -1:
            return idx
    return -1


_F = r"[-+]?\d*\.?\d+"
_TOKEN = re.compile(r"<TIME\s+(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:\s+video\s+\d+)?>", re.I)
_TIME_FALLBACKS = tuple(
    re.compile(p, re.I)
    for p in (
        rf"time\s*[:=]\s*({_F})\s*s?",
        rf"last\s+visible\s*(?:at|time)?\s*[:=]?\s*({_F})\s*s?",
        rf"({_F})\s*s(?:ec(?:ond)?s?)?",
    )
)
_POINTS = tuple(
    re.compile(p, re.I)
    for p in (
        rf"point\s*[:=]\s*\(?\s*({_F})\s*,\s*({_F})\s*\)?",
        rf"(?:coord(?:inate)?s?|location|position|pixel|xy|x,y)\s*[:=]\s*\(?\s*({_F})\s*,\s*({_F})\s*\)?",
        rf"\(\s*({_F})\s*,\s*({_F})\s*\)",
        rf"\[\s*({_F})\s*,\s*({_F})\s*\]",
        rf"x\s*[:=]\s*({_F})\s*[,; ]+y\s*[:=]\s*({_F})",
    )
)
_FLOATS = re.compile(r"[-+]?\d*\.\d+|[-+]?\d+")


def b3d_time_point(raw: str, time_only: bool) -> TimePoint:
    """The official ``_parse_time_and_point_prediction``."""
    clean = b3d_clean(raw)
    low = clean.lower()
    t = x = y = None
    if m := _TOKEN.search(clean):
        t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    if t is None:
        for pat in _TIME_FALLBACKS:
            if m := pat.search(low):
                t = float(m.group(1))
                break
    if t is None and time_only:
        floats = [float(v) for v in _FLOATS.findall(low)]
        if len(floats) == 1:
            t = floats[0]
    for pat in _POINTS:
        if m := pat.search(low):
            x, y = float(m.group(1)), float(m.group(2))
            break
    if (t is None or x is None or y is None) and "<time" not in low:
        floats = [float(v) for v in _FLOATS.findall(low)]
        if len(floats) >= 3:
            t = floats[0] if t is None else t
            if x is None or y is None:
                x, y = floats[-2], floats[-1]
    return TimePoint(t, x, y)


def official_score(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
    """One reply scored with the official rules."""
    if sample.answer_type == "time_point":
        ans = TimePointAnswer.model_validate(sample.answer)
        tp = b3d_time_point(raw, ans.time_only)
        return OfficialResult([tp.time_s, tp.x, tp.y], parsed_ok(tp, ans.time_only), "official_time_point",
                              score_time_point(tp, ans).score)  # fmt: skip
    idx = b3d_choice_index(raw, choices or ())
    return OfficialResult(None if idx == -1 else idx, idx != -1, "official_choice", CHOICE)


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
    from egoworld.benchmarks.beyond3d.importer import TASK_TO_CLASS

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
