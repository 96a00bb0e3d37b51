"""VSI-Super-Wild analyses for `egoworld report` (the plug-in's ``report_sections``), from each run's
``scores.jsonl`` and the benchmark's sample metadata. A question's score is its mean over option orders
and epochs (as in the main table); values are percent, ± SEM over questions.

* by video duration group (0–10, 10–30, 30–60, 60–120, 120+ minutes) per task and overall, with a plot;
* VOO split by first vs last appearance;
* VMR split by option set (cardinal / diagonal directions);
* streaming VOC: MRA per query time (samples with ``metadata.setting == "streaming"``).

Works on the built benchmark and on the official question file once durations are attached
(``egoworld import vsi-wild-durations``); without durations the duration section says how to add them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from egoworld.benchmarks.vsi_wild import TASK_ORDER
from egoworld.benchmarks.vsi_wild.timing import GROUP_NAMES
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import iter_jsonl, read_json_object
from egoworld.core.plugin import ReportSection
from egoworld.core.schema import Sample
from egoworld.metrics.stats import mean_sem
from egoworld.render.html import image_html, note_html, table_html
from egoworld.render.palette import model_of
from egoworld.render.tables import Table, fmt, to_markdown


@dataclass
class RunScores:
    label: str
    samples: dict[str, Sample]
    scores: dict[str, float]  # question score in [0, 1]
    model: str = "?"  # the model whose report-wide colour the plots use


def load_scores(run_dir: str | Path, label: str, model: str = "?") -> RunScores:
    """A run's question scores (mean over orders and epochs) and its benchmark's samples."""
    run_dir = Path(run_dir)
    bench = load_benchmark(read_json_object(run_dir / "run.json")["benchmark_path"])
    per: dict[str, list[float]] = defaultdict(list)
    for _, row in iter_jsonl(run_dir / "scores.jsonl"):
        if row.get("score") is not None:
            per[row["sample"]].append(float(row["score"]))
    scores = {k: sum(v) / len(v) for k, v in per.items()}
    return RunScores(label, {s.id: s for s in bench.samples}, scores, model)


def cell(run: RunScores, keep: Callable[[Sample], bool]) -> str:
    vals = [v for sid, v in run.scores.items() if keep(run.samples[sid])]
    if not vals:
        return "—"
    m, s = mean_sem(vals)
    return f"{fmt(100 * m, 100 * s)} (n={len(vals)})"


def _tasks(runs: Sequence[RunScores]) -> list[str]:
    present = {run.samples[sid].task for run in runs for sid in run.scores}
    return [t for t in TASK_ORDER if t in present]


def duration_table(runs: Sequence[RunScores]) -> Table:
    table: Table = [["Model", "Task", *(f"{g} min" for g in GROUP_NAMES)]]
    for run in runs:
        for task in [*_tasks(runs), "Overall"]:
            row = [run.label, task]
            for g in GROUP_NAMES:
                row.append(
                    cell(
                        run,
                        lambda s, g=g, t=task: (
                            s.metadata.get("duration_group") == g and t in ("Overall", s.task)
                        ),
                    )
                )
            table.append(row)
    return table


def split_table(runs: Sequence[RunScores], task: str, key: str, values: Sequence[str]) -> Table:
    table: Table = [["Model", *values]]
    for run in runs:
        table.append(
            [
                run.label,
                *(cell(run, lambda s, v=v: s.task == task and s.metadata.get(key) == v) for v in values),
            ]
        )
    return table


def streaming_table(runs: Sequence[RunScores]) -> Table:
    fractions = sorted(
        {
            s.metadata["query_fraction"]
            for r in runs
            for s in r.samples.values()
            if s.metadata.get("setting") == "streaming"
        }
    )
    table: Table = [["Model", *(f"{100 * f:g}% of video" for f in fractions), "All query times"]]
    for run in runs:
        row = [run.label]
        for f in fractions:
            row.append(
                cell(
                    run,
                    lambda s, f=f: (
                        s.metadata.get("setting") == "streaming" and s.metadata.get("query_fraction") == f
                    ),
                )
            )
        row.append(cell(run, lambda s: s.metadata.get("setting") == "streaming"))
        table.append(row)
    return table


def _plot(runs: Sequence[RunScores], out: Path, run_dirs: Sequence[Path]) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from egoworld.render.palette import run_styles

    fig, ax = plt.subplots(figsize=(6, 3.5))
    drawn = False
    for run, style in zip(runs, run_styles([r.model for r in runs]), strict=True):
        ys = []
        for g in GROUP_NAMES:
            vals = [
                v for sid, v in run.scores.items() if run.samples[sid].metadata.get("duration_group") == g
            ]
            ys.append(100 * float(np.mean(vals)) if vals else np.nan)
        if not np.all(np.isnan(ys)):
            ax.plot(
                range(len(GROUP_NAMES)),
                ys,
                marker="o",
                label=run.label,
                color=style.colour,
                linestyle=style.linestyle,
            )
            drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xticks(range(len(GROUP_NAMES)), [f"{g} min" for g in GROUP_NAMES])
    ax.set_ylabel("Overall (%)")
    ax.set_ylim(0, 102)
    ax.set_title("VSI-Super-Wild by video duration")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))  # outside: the 100 % line shows
    fig.tight_layout()
    from egoworld.render.plots import section_plot_path

    path = section_plot_path(out, "vsi_wild_duration", run_dirs)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return f"plots/{path.name}"


def _section(title: str, table: Table, note: str = "", image: str | None = None) -> ReportSection:
    md = to_markdown(table) + (f"\n{note}\n" if note else "")
    html = table_html(table) + (note_html(note) if note else "")
    if image:
        md += f"\n![{title}]({image})\n"
        html += image_html(image, title)
    return ReportSection(title, md, html)


def report_sections(
    summaries: Sequence[dict], run_dirs: Sequence[Path], labels: Sequence[str], out: Path
) -> list[ReportSection]:
    """The VSI-Super-Wild sections of `egoworld report`."""
    runs = [load_scores(d, lab, model_of(s)) for d, lab, s in zip(run_dirs, labels, summaries, strict=True)]
    if not runs:
        return []
    samples = [s for r in runs for sid, s in r.samples.items() if sid in r.scores]
    secs = []
    if any("duration_group" in s.metadata for s in samples):
        secs.append(
            _section(
                "VSI-Super-Wild by video duration",
                duration_table(runs),
                "Percent ± SEM over questions (accuracy; linear MRA for VOC); groups by the view video's duration.",
                _plot(runs, Path(out), run_dirs),
            )
        )
    else:
        secs.append(
            ReportSection(
                "VSI-Super-Wild by video duration",
                "No duration metadata: attach durations with `egoworld import vsi-wild-durations --bench BENCH --videos DIR`.\n",
                "<p class=muted>No duration metadata: attach durations with "
                "<code>egoworld import vsi-wild-durations --bench BENCH --videos DIR</code>.</p>",
            )
        )
    if any(s.task == "VOO" for s in samples):
        secs.append(
            _section("VOO: first vs last appearance", split_table(runs, "VOO", "order_by", ("first", "last")))
        )
    if any(s.task == "VMR" and "option_set" in s.metadata for s in samples):
        secs.append(
            _section(
                "VMR: cardinal vs diagonal directions",
                split_table(runs, "VMR", "option_set", ("cardinal", "diagonal")),
            )
        )
    if any(s.metadata.get("setting") == "streaming" for s in samples):
        secs.append(
            _section(
                "Streaming VOC: MRA per query time",
                streaming_table(runs),
                "Running count of unique instances at each query time; linear MRA ± SEM.",
            )
        )
    return secs
