"""Tables from ``scores.json`` summaries: the main table (rows = models, columns = tasks + Overall, ± SEM)
and the Shuffle24 diagnostics table. Each table is a list of rows (first row = header) rendered to
markdown, CSV or HTML by the same code."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from egoworld.core.plugin import plugin_for

Table = list[list[str]]


def fmt(value: float | None, sem: float | None = None, digits: int = 1) -> str:
    """A number as the papers print it: one decimal by default."""
    if value is None:
        return "—"
    text = f"{value:.{digits}f}"
    return f"{text} ± {sem:.{digits}f}" if sem is not None else text


def setting_label(summary: dict[str, Any]) -> str:
    """``text, shuffle24`` — the settings that distinguish runs of one model."""
    inputs = summary.get("inputs") or {}
    bits = [str(inputs.get("setting", "text"))]
    if inputs.get("setting") == "frames" and inputs.get("frames"):
        sent = summary.get("frames_sent") or {}
        if sent.get("min") is not None:  # the frames sent, not the asked count (short clips got fewer)
            span = f"{sent['min']}" if sent["min"] == sent["max"] else f"{sent['min']}–{sent['max']}"
            every = sent.get("short_samples") == sent.get("samples")
            bits.append(
                f"{span} fr" if every else f"{inputs['frames']} fr, {sent.get('short_samples')} with {span}"
            )
        else:
            bits.append(f"{inputs['frames']} fr")
    if summary.get("permutations") not in (None, "none"):
        bits.append(str(summary["permutations"]))
    return ", ".join(bits)


def run_label(summary: dict[str, Any]) -> str:
    """``random (text, shuffle24)`` — the model and the settings that distinguish runs."""
    return f"{summary.get('model_spec', '?')} ({setting_label(summary)})"


def task_title(summaries: Sequence[dict[str, Any]], task: str) -> str:
    """A task's human title: the plug-in's (the paper's name), else the manifest's, else the name made readable."""
    manifest = next((str(t) for s in summaries if (t := (s["tasks"].get(task) or {}).get("title"))), None)
    return plugin_for(summaries[0]["benchmark"]).task_title(task, manifest) if summaries else task


def task_columns(summaries: Sequence[dict[str, Any]]) -> list[str]:
    order: list[str] = []
    for s in summaries:
        cols = plugin_for(s["benchmark"]).report_columns or tuple(s.get("task_order") or s["tasks"])
        for t in cols:
            if t not in order and t in s["tasks"]:
                order.append(t)
    return order


def main_table(summaries: Sequence[dict[str, Any]], labels: Sequence[str]) -> Table:
    cols = task_columns(summaries)
    header = [
        "Model",
        *(task_title(summaries, t) for t in cols),
        "Overall",
        "Macro",
        "n",
        "Parse %",
        "Errors",
    ]
    rows: Table = [header]
    for s, label in zip(summaries, labels, strict=True):
        row = [label]
        for t in cols:
            e = s["tasks"].get(t)
            row.append(fmt(e[e["metric"]], e["sem"]) if e else "—")
        row += [
            fmt(s["overall"], s["overall_sem"]),
            fmt(s.get("macro")),
            str(s["n"]),
            fmt(s.get("parse_rate"), digits=1),
            str(s["errors"] + s["missing"]),
        ]
        rows.append(row)
    return rows


def ci_table(summaries: Sequence[dict[str, Any]], labels: Sequence[str]) -> Table:
    """Each task and Overall as ``value [lo, hi]`` (95 % cluster-bootstrap CI), then a chance row where the
    manifest states a task's chance level."""
    cols = task_columns(summaries)
    rows: Table = [["Model", *(task_title(summaries, t) for t in cols), "Overall"]]

    def cell(value: float | None, ci: Any) -> str:
        if value is None:
            return "—"
        return f"{value:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]" if ci and ci[0] is not None else f"{value:.1f}"

    for s, label in zip(summaries, labels, strict=True):
        row = [label]
        for t in cols:
            e = s["tasks"].get(t)
            row.append(cell(e[e["metric"]], e.get("ci95")) if e else "—")
        rows.append([*row, cell(s.get("overall"), s.get("overall_ci95"))])
    chance = {
        t: e.get("chance") for s in summaries for t, e in s["tasks"].items() if e.get("chance") is not None
    }
    if chance:
        rows.append(["chance", *(fmt(chance.get(t)) for t in cols), ""])
    return rows


def metric_legend(summaries: Sequence[dict[str, Any]]) -> str:
    metrics = {t: "" for t in task_columns(summaries)}  # table order, whether scored now or read back
    for s in summaries:
        for t, e in s["tasks"].items():
            metrics[t] = metrics.get(t) or e["metric"]
    parts = [f"{task_title(summaries, t)}: {m}" for t, m in metrics.items()]
    return (
        "Values in percent (one decimal), ± SEM over questions. "
        + "; ".join(parts)
        + ". Overall = mean over all questions; "
        "Macro = mean of the task columns. Errors = requests that failed or never ran (never scored)."
    )


SHUFFLE_HEADER = [
    "Model",
    "Task",
    "n",
    "Acc",
    "Top-1",
    "Top-24",
    "Pass@1",
    "Pass@12",
    "Pass@24",
    "Bias std",
    "Best−worst",
    "Pick A",
    "Pick B",
    "Pick C",
    "Pick D",
]


def shuffle_table(summaries: Sequence[dict[str, Any]], labels: Sequence[str]) -> Table:
    rows: Table = [SHUFFLE_HEADER]
    for s, label in zip(summaries, labels, strict=True):
        shuffle = s.get("shuffle24") or {}
        for task in [t for t in task_columns([s]) if t in shuffle]:
            st = shuffle[task]
            acc = sum(st["order_accuracy"]) / len(st["order_accuracy"])
            picks = st["position_pick_rate"]
            rows.append(
                [
                    label,
                    task_title([s], task),
                    str(st["n"]),
                    fmt(acc),
                    fmt(st["top_k"][0]),
                    fmt(st["top_k"][-1]),
                    fmt(st["pass_at_k"][0]),
                    fmt(st["pass_at_k"][11]),
                    fmt(st["pass_at_k"][-1]),
                    fmt(st["order_bias_std"]),
                    fmt(st["best_worst_gap"]),
                    *(fmt(picks.get(p), digits=1) for p in "ABCD"),
                ]
            )
    return rows


def to_markdown(table: Table) -> str:
    head, *body = table
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(table)
    return buf.getvalue()


def reference_line(agreement: dict[str, Any]) -> str:
    """The agreement of our scores with an imported log's own verdicts."""
    if not agreement["rows"]:
        return "reference_agreement: no answered row has a reference verdict"
    line = f"reference_agreement {agreement['share']:.1f}% ({agreement['agree']}/{agreement['rows']} rows)"
    if agreement["disagreeing"]:
        shown = ", ".join(agreement["disagreeing"][:5]) + (" …" if len(agreement["disagreeing"]) > 5 else "")
        line += f"; disagreeing: {shown}"
    return line


def summary_line(summary: dict[str, Any]) -> str:
    """One console line: Overall and each task's metric."""
    parts = [f"Overall {fmt(summary['overall'], summary['overall_sem'])} (n={summary['n']})"]
    for t in task_columns([summary]):
        e = summary["tasks"][t]
        parts.append(f"{task_title([summary], t)} {fmt(e[e['metric']], e['sem'])}")
    if summary.get("parse_rate") is not None:
        parts.append(f"parsed {summary['parse_rate']:.1f}%")
    if summary["errors"] or summary["missing"]:
        parts.append(f"{summary['errors']} errors, {summary['missing']} missing (not scored)")
    return " · ".join(parts)
