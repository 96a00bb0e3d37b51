"""Beyond3D plug-in: the paper's prompt layout, the paper's column order, and the analyses in the report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from egoworld.benchmarks.beyond3d import BENCHMARK_NAME, TASK_ORDER, TASK_TITLES
from egoworld.benchmarks.beyond3d.lmms_log import LMMS_LOG
from egoworld.benchmarks.beyond3d.official import official_score
from egoworld.benchmarks.beyond3d.prompts import Beyond3DPromptBuilder
from egoworld.benchmarks.beyond3d.protocol import official_inputs
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.plugin import PROTOCOL_OPTION, BenchmarkPlugin, ReportSection
from egoworld.core.schema import Sample


def _sections(
    summaries: Sequence[dict], run_dirs: Sequence[Path], labels: Sequence[str], out: Path
) -> list[ReportSection]:
    from egoworld.benchmarks.beyond3d.analysis import report_sections
    from egoworld.benchmarks.beyond3d.official import official_section

    built = [i for i, d in enumerate(run_dirs) if not _imported(d)]  # the analyses need built metadata
    pick = lambda xs: [xs[i] for i in built]  # noqa: E731
    sections = report_sections(pick(summaries), pick(run_dirs), pick(labels), out) if built else []
    official = official_section(summaries, labels)
    return [*sections, official] if official is not None else sections


def _imported(run_dir: Path) -> bool:
    """A run over official records (release or lmms-eval import), which lack the builder's metadata."""
    from egoworld.core.folders.files import read_json

    manifest = read_json(Path(run_dir) / "run.json")
    bench = read_json(Path(manifest["benchmark_path"]) / "manifest.json")
    return bench.get("builder", {}).get("importer") in ("beyond3d-qa", "lmms-eval")


def _official(bench: Benchmark, rows: Sequence[dict]) -> dict:
    from egoworld.benchmarks.beyond3d.official import official_aggregates

    return official_aggregates(bench, rows)


def _query_time(sample: Sample) -> float:
    """The clip end, else the official record's query time, else the latest gold candidate."""
    if sample.media.video is not None and sample.media.video.end_s is not None:
        return float(sample.media.video.end_s)
    q = (sample.metadata.get("official") or {}).get("query_time_sec")
    if isinstance(q, int | float):
        return float(q)
    return float(max(c["time_s"] for c in sample.answer["candidates"]))


PLUGIN = BenchmarkPlugin(
    name=BENCHMARK_NAME,
    title="Beyond3D",
    prompt=Beyond3DPromptBuilder(),
    report_columns=TASK_ORDER,
    report_sections=_sections,
    official_aggregates=_official,
    query_time=_query_time,
    official_score=official_score,
    lmms_eval_log=LMMS_LOG,
    titles=dict(TASK_TITLES),
    run_options=(PROTOCOL_OPTION,),
    official_inputs=official_inputs,
)
