"""Beyond3D plug-in: the paper's prompt layout, the paper's column order, and the analyses in the report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from egoworld.benchmarks.beyond3d import BENCHMARK_NAME, TASK_ORDER
from egoworld.benchmarks.beyond3d.prompts import Beyond3DPromptBuilder
from egoworld.benchmarks.folder import Benchmark
from egoworld.benchmarks.registry import BenchmarkPlugin, ReportSection


def _sections(
    summaries: Sequence[dict], run_dirs: Sequence[Path], labels: Sequence[str], out: Path
) -> list[ReportSection]:
    from egoworld.benchmarks.beyond3d.analysis import report_sections
    from egoworld.benchmarks.beyond3d.official import official_section

    sections = report_sections(summaries, run_dirs, labels, out)
    official = official_section(summaries, labels)
    return [*sections, official] if official is not None else sections


def _official(bench: Benchmark, rows: Sequence[dict]) -> dict:
    from egoworld.benchmarks.beyond3d.official import official_aggregates

    return official_aggregates(bench, rows)


PLUGIN = BenchmarkPlugin(
    name=BENCHMARK_NAME,
    prompt=Beyond3DPromptBuilder(),
    report_columns=TASK_ORDER,
    report_sections=_sections,
    official_aggregates=_official,
)
