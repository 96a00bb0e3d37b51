"""The paper's analyses, computed from a run's ``scores.jsonl`` and the benchmark's sample metadata.

* `type_table`: accuracy per type and macro, with a **chance row computed from the built choices**
  (mean of 1 / number of options per type, macro over types).
* `bucket_table`: macro accuracy by out-of-sight horizon, by query time and by number of moves (out-of-
  sight anchors only, as in the paper's Fig. 5).
* `cumulative_table`: Last Visible / Last Placement accuracy when also accepting the Near, then Medium,
  then Far choice (Fig. 6), with the uniform-guess baseline (1, 2, 3, 4 of 5 choices).
* `visibility_table`: Visibility Check accuracy on truly visible (controls) and not visible targets (Fig. 7).
* `prediction_table`: how often each 3D class is predicted (Fig. 8), next to the gold distribution.
* `trajectory_table`: share of trajectories with every step right, mean first-mistake step, error
  propagation (a later step wrong after the first mistake) and post-error failure rate.
* `paired_table`: per-type paired difference between runs of the same model on the temporal-cues variant
  and on the base benchmark (95 % cluster-bootstrap CI over videos).

A question counts as right when its score (mean over option orders and epochs) is 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.benchmarks.beyond3d import SPATIAL_TASKS, TASK_ORDER, TASK_TITLES, TIME_TASKS, VISIBILITY
from egoworld.benchmarks.beyond3d.build.anchors import HORIZON_BUCKETS, QUERY_BUCKETS
from egoworld.benchmarks.beyond3d.prompts import CLOCK_CHOICES, DISTANCE_CHOICES
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import iter_jsonl, read_json_object
from egoworld.core.plugin import ReportSection
from egoworld.core.schema import Sample
from egoworld.metrics.stats import cluster_bootstrap_ci
from egoworld.render.html import image_html, note_html, table_html
from egoworld.render.palette import model_of
from egoworld.render.tables import Table, fmt, to_markdown

CUMULATIVE_LEVELS = (
    ("GT", ()),
    ("+Near", ("near",)),
    ("+Medium", ("near", "medium")),
    ("+Far", ("near", "medium", "far")),
)
MOVES_BUCKETS = ("1", "2", "3", "4+")
CLASS_NAMES = {
    "object_camera_direction": {
        "FL": "Front-left",
        "FR": "Front-right",
        "BL": "Back-left",
        "BR": "Back-right",
    },
    "object_camera_distance": dict(enumerate(DISTANCE_CHOICES)),
    "object_object_direction": dict(enumerate(CLOCK_CHOICES)),
    "object_object_distance": dict(enumerate(DISTANCE_CHOICES)),
}


@dataclass
class RunData:
    """One scored run: its label, summary, samples and per-question results."""

    label: str
    summary: dict
    samples: dict[str, Sample]
    scores: dict[str, float]
    preds: dict[str, list[int]]
    builder: dict
    bench_name: str = ""


def load_run(run_dir: str | Path, label: str, summary: dict) -> RunData:
    """Read a scored run folder (``scores.jsonl``) and its benchmark."""
    run_dir = Path(run_dir)
    manifest = read_json_object(run_dir / "run.json")
    bench = load_benchmark(manifest["benchmark_path"])
    per: dict[str, list[float]] = defaultdict(list)
    preds: dict[str, list[int]] = defaultdict(list)
    for _, row in iter_jsonl(run_dir / "scores.jsonl"):
        if row.get("score") is None:
            continue
        per[row["sample"]].append(float(row["score"]))
        if isinstance(row.get("pred"), int | float):  # choice indices (a time + point reply is a list)
            preds[row["sample"]].append(int(row["pred"]))
    scores = {sid: float(np.mean(v)) for sid, v in per.items()}
    samples = {s.id: s for s in bench.samples}
    return RunData(
        label, summary, samples, scores, dict(preds), bench.manifest.builder, Path(bench.root).name
    )


def _right(run: RunData, sid: str) -> bool:
    return run.scores.get(sid) == 1.0


def chance_by_task(samples: Sequence[Sample]) -> dict[str, float]:
    """Expected accuracy (percent) of a uniform guess over the built choices, per task."""
    per: dict[str, list[float]] = defaultdict(list)
    for s in samples:
        if s.answer_type == "choice":  # open time + point steps have no chance level
            per[s.task].append(len(s.correct_indices) / len(s.choices or (1,)))
    return {t: 100.0 * float(np.mean(v)) for t, v in per.items()}


def _acc(run: RunData, ids: Sequence[str]) -> float | None:
    vals = [run.scores[i] for i in ids if i in run.scores]
    return 100.0 * float(np.mean(vals)) if vals else None


def _macro(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def _tasks(runs: Sequence[RunData]) -> list[str]:
    present = {s.task for r in runs for s in r.samples.values()}
    return [t for t in TASK_ORDER if t in present]


def type_table(runs: Sequence[RunData]) -> Table:
    """Accuracy per type and macro; first the chance computed from the built choices (one row per
    distinct benchmark among the runs)."""
    tasks = _tasks(runs)
    header = ["Model", *(TASK_TITLES[t] for t in tasks), "Macro"]
    rows: Table = [header]
    benches: dict[str, RunData] = {}
    for r in runs:
        benches.setdefault(str(r.summary.get("benchmark_hash")), r)
    for r in benches.values():
        chance = chance_by_task(list(r.samples.values()))
        label = "chance (computed)" if len(benches) == 1 else f"chance (computed, {r.bench_name})"
        vals = [chance.get(t) for t in tasks]
        rows.append([label, *(fmt(v) for v in vals), fmt(_macro(vals))])
    for r in runs:
        by_task: dict[str, list[str]] = defaultdict(list)
        for sid, s in r.samples.items():
            if sid in r.scores:
                by_task[s.task].append(sid)
        vals = [_acc(r, by_task[t]) for t in tasks]
        rows.append([r.label, *(fmt(v) for v in vals), fmt(_macro(vals))])
    return rows


def bucket_table(runs: Sequence[RunData], field: str, buckets: Sequence[str], title: str) -> Table:
    """Macro accuracy of out-of-sight questions per bucket of ``metadata[field]``."""
    rows: Table = [[title, *buckets]]
    for r in runs:
        cells = []
        for b in buckets:
            by_task: dict[str, list[str]] = defaultdict(list)
            for sid, s in r.samples.items():
                if (
                    s.metadata.get("anchor") == "out_of_sight"
                    and str(s.metadata.get(field)) == b
                    and sid in r.scores
                ):
                    by_task[s.task].append(sid)
            cells.append(fmt(_macro([_acc(r, ids) for ids in by_task.values()])))
        rows.append([r.label, *cells])
    return rows


def cumulative_table(runs: Sequence[RunData]) -> Table:
    """Accuracy accepting the correct choice, then also Near, Medium, Far choices (percent)."""
    rows: Table = [["Model", "Task", *(name for name, _ in CUMULATIVE_LEVELS)]]
    tasks = [t for t in TIME_TASKS if t in _tasks(runs)]
    for t in tasks:
        rows.append(
            ["uniform guess", TASK_TITLES[t], *(fmt(100.0 * (1 + len(b)) / 5) for _, b in CUMULATIVE_LEVELS)]
        )
    for r in runs:
        for t in tasks:
            vals = []
            for _, bands in CUMULATIVE_LEVELS:
                ok = []
                for sid, s in r.samples.items():
                    if s.task != t or not r.preds.get(sid):
                        continue
                    accept = {"correct", *bands}
                    ok += [s.metadata["choice_bands"][p] in accept for p in r.preds[sid]]
                vals.append(100.0 * float(np.mean(ok)) if ok else None)
            rows.append([r.label, TASK_TITLES[t], *(fmt(v) for v in vals)])
    return rows


def visibility_table(runs: Sequence[RunData]) -> Table:
    rows: Table = [["Model", "Visible (controls)", "Not visible (anchors)", "Balanced"]]
    for r in runs:
        vis = [
            sid for sid, s in r.samples.items() if s.task == VISIBILITY and s.metadata.get("visible") is True
        ]
        hid = [
            sid for sid, s in r.samples.items() if s.task == VISIBILITY and s.metadata.get("visible") is False
        ]
        a, b = _acc(r, vis), _acc(r, hid)
        rows.append(
            [r.label, fmt(a), fmt(b), fmt(_macro([a, b]) if a is not None and b is not None else None)]
        )
    return rows


def prediction_table(runs: Sequence[RunData]) -> Table:
    """Share (percent) of predictions per semantic class of each 3D type, and the gold shares."""
    rows: Table = [["Model", "Task", "Class", "Predicted %", "Gold %"]]
    for r in runs:
        for t in SPATIAL_TASKS:
            pred: dict = defaultdict(int)
            gold: dict = defaultdict(int)
            for sid, s in r.samples.items():
                if s.task != t:
                    continue
                gold[s.metadata["gold_class"]] += 1
                for p in r.preds.get(sid, []):
                    pred[s.metadata["choice_classes"][p]] += 1
            if not gold:
                continue
            n_pred, n_gold = sum(pred.values()), sum(gold.values())
            for cls, name in CLASS_NAMES[t].items():
                share = 100.0 * pred.get(cls, 0) / n_pred if n_pred else None
                rows.append(
                    [
                        r.label,
                        TASK_TITLES[t],
                        name,
                        fmt(share, digits=1),
                        fmt(100.0 * gold.get(cls, 0) / n_gold, digits=1),
                    ]
                )
    return rows


def trajectory_metrics(run: RunData) -> dict[str, Any]:
    """All-steps-right rate, first mistake step, error propagation over fully answered trajectories."""
    steps: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    size: dict[str, int] = defaultdict(int)
    for sid, s in run.samples.items():
        if s.trajectory is None:
            continue
        size[s.trajectory.id] += 1
        if sid in run.scores:
            steps[s.trajectory.id].append((s.trajectory.step, _right(run, sid)))
    full = {t: sorted(v) for t, v in steps.items() if len(v) == size[t]}
    if not full:
        return {"trajectories": 0}
    firsts, propagate, later_fail = [], [], []
    for seq in full.values():
        wrong = [i for i, (_, ok) in enumerate(seq) if not ok]
        if not wrong:
            continue
        first = wrong[0]
        firsts.append(seq[first][0])
        rest = [ok for step, ok in seq[first + 1 :] if step > seq[first][0]]
        if rest:
            propagate.append(any(not ok for ok in rest))
            later_fail.append(sum(not ok for ok in rest) / len(rest))
    return {
        "trajectories": len(full),
        "all_right": 100.0 * (len(full) - len(firsts)) / len(full),
        "first_mistake_step": float(np.mean(firsts)) if firsts else None,
        "error_propagation": 100.0 * float(np.mean(propagate)) if propagate else None,
        "post_error_failure": 100.0 * float(np.mean(later_fail)) if later_fail else None,
    }


def trajectory_table(runs: Sequence[RunData]) -> Table:
    rows: Table = [
        [
            "Model",
            "Trajectories",
            "All steps right %",
            "Mean first mistake step",
            "Error propagation %",
            "Post-error failure %",
        ]
    ]
    for r in runs:
        m = trajectory_metrics(r)
        rows.append(
            [
                r.label,
                str(m["trajectories"]),
                fmt(m.get("all_right")),
                fmt(m.get("first_mistake_step")),
                fmt(m.get("error_propagation")),
                fmt(m.get("post_error_failure")),
            ]
        )
    return rows


def paired_table(runs: Sequence[RunData]) -> Table:
    """Cue variant minus base, per type, for runs of the same model and setting on both benchmarks."""
    rows: Table = [["Model", "Cue", "Type", "n", "Base %", "With cue %", "Δ (pp)", "95% CI"]]
    base = [r for r in runs if not r.builder.get("cues")]
    for cue in (r for r in runs if r.builder.get("cues")):
        for b in base:
            if b.summary.get("model_spec") != cue.summary.get("model_spec") or b.summary.get(
                "inputs"
            ) != cue.summary.get("inputs"):
                continue
            for t in _tasks([b, cue]):
                ids = [
                    sid
                    for sid, s in b.samples.items()
                    if s.task == t and sid in b.scores and sid in cue.scores
                ]
                if not ids:
                    continue
                diff = [cue.scores[i] - b.scores[i] for i in ids]
                lo, hi = cluster_bootstrap_ci(diff, [b.samples[i].cluster_id for i in ids])
                rows.append(
                    [
                        b.label,
                        str(cue.builder["cues"]),
                        TASK_TITLES[t],
                        str(len(ids)),
                        fmt(_acc(b, ids)),
                        fmt(_acc(cue, ids)),
                        fmt(100 * float(np.mean(diff))),
                        f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                    ]
                )
    return rows


def _section(title: str, table: Table, note: str = "") -> ReportSection:
    md = to_markdown(table) + (f"\n{note}\n" if note else "")
    html = table_html(table) + (note_html(note) if note else "")
    return ReportSection(title=title, markdown=md, html=html)


def _plot_cumulative(runs: Sequence[RunData], out: Path, run_dirs: Sequence[Path]) -> str | None:
    table = cumulative_table(runs)[1:]
    if not table:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from egoworld.render.palette import run_styles

    styles = dict(zip([r.label for r in runs], run_styles([model_of(r.summary) for r in runs]), strict=True))
    tasks = list(dict.fromkeys(row[1] for row in table))
    fig, axes = plt.subplots(1, len(tasks), figsize=(5 * len(tasks), 3.5), squeeze=False)
    xs = list(range(len(CUMULATIVE_LEVELS)))
    for ax, task in zip(axes[0], tasks, strict=True):
        for row in (r for r in table if r[1] == task):
            ys = [float(v) if v != "—" else np.nan for v in row[2:]]
            style = styles.get(row[0])
            if style is None:  # the uniform-guess baseline: black, dashed
                ax.plot(xs, ys, marker="o", linestyle="--", color="k", label=row[0])
            else:
                ax.plot(xs, ys, marker="o", linestyle=style.linestyle, color=style.colour, label=row[0])
        ax.set_xticks(xs, [name for name, _ in CUMULATIVE_LEVELS])
        ax.set_ylim(0, 100)
        ax.set_title(task)
        ax.set_ylabel("accuracy %")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    from egoworld.render.plots import section_plot_path

    path = section_plot_path(out, "beyond3d_cumulative", run_dirs)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return f"plots/{path.name}"


def report_sections(
    summaries: Sequence[dict], run_dirs: Sequence[Path], labels: Sequence[str], out: Path
) -> list[ReportSection]:
    """The Beyond3D sections of `egoworld report`."""
    runs = [load_run(d, lab, s) for d, lab, s in zip(run_dirs, labels, summaries, strict=True)]
    if not runs:
        return []
    secs = [
        _section(
            "Beyond3D: accuracy per type",
            type_table(runs),
            "Chance row: mean of 1 / number of options over the built questions of each type; Macro: mean over types.",
        ),
        _section(
            "By out-of-sight horizon (macro, out-of-sight anchors)",
            bucket_table(runs, "horizon_bucket", HORIZON_BUCKETS, "Model"),
        ),
        _section(
            "By query time (macro, out-of-sight anchors)",
            bucket_table(runs, "query_bucket", QUERY_BUCKETS, "Model"),
        ),
        _section(
            "By number of moves before the query (macro, out-of-sight anchors)",
            bucket_table(runs, "moves_bucket", MOVES_BUCKETS, "Model"),
        ),
        _section(
            "Cumulative accuracy over temporal distance",
            cumulative_table(runs),
            "Accepting the correct choice, then also the Near (±1–2 s), Medium (±3–4 s) and Far (±5–6 s) choice.",
        ),
        _section("Visibility Check by true visibility", visibility_table(runs)),
        _section("Prediction distributions of the 3D types", prediction_table(runs)),
        _section(
            "Trajectories",
            trajectory_table(runs),
            "Steps: 1 visibility, 2 last visible, 3 last placement, 4 nearest fixture, 5 the four 3D questions.",
        ),
    ]
    plot = _plot_cumulative(runs, Path(out), run_dirs)
    if plot:
        secs[4] = ReportSection(
            secs[4].title,
            secs[4].markdown + f"\n![cumulative accuracy]({plot})\n",
            secs[4].html + image_html(str(plot), "cumulative accuracy"),
        )
    paired = paired_table(runs)
    if len(paired) > 1:
        secs.append(
            _section(
                "Temporal cues: paired improvement",
                paired,
                "Same model and inputs on the cue variant and the base benchmark; CI: cluster bootstrap over videos.",
            )
        )
    return secs
