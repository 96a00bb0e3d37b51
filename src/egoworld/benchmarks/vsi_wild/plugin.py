"""VSI-Super-Wild plug-in: the paper's column order (Table 1: VMR, VPO, VOO, VOC, Overall) and the analyses
in `egoworld report` (duration groups, VOO first vs last, VMR option sets, streaming VOC per query time)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME, TASK_ORDER
from egoworld.benchmarks.vsi_wild.lmms_log import LMMS_LOG
from egoworld.benchmarks.vsi_wild.official import official_score
from egoworld.benchmarks.vsi_wild.protocol import official_inputs
from egoworld.core.plugin import PROTOCOL_OPTION, BenchmarkPlugin, LeaderboardColumn, ReportSection


def _sections(
    summaries: Sequence[dict], run_dirs: Sequence[Path], labels: Sequence[str], out: Path
) -> list[ReportSection]:
    from egoworld.benchmarks.vsi_wild.analysis import report_sections

    return report_sections(summaries, run_dirs, labels, out)


def _leaderboard(tasks: Sequence[str]) -> list[LeaderboardColumn]:
    """Table 1: each task ± SEM, Overall (mean over all questions, not over tasks) ± SEM, then Overall by
    video duration group (minutes)."""
    from egoworld.benchmarks.vsi_wild.timing import GROUP_NAMES

    cols = [LeaderboardColumn(t, tasks=(t,), sem=True) for t in tasks]
    cols.append(LeaderboardColumn("Overall", sem=True))
    cols += [
        LeaderboardColumn(g, group="Duration (min)", where=(("duration_group", g),)) for g in GROUP_NAMES
    ]
    return cols


PLUGIN = BenchmarkPlugin(
    name=BENCHMARK_NAME,
    title="VSI-Super-Wild",
    report_columns=TASK_ORDER,
    report_sections=_sections,
    official_score=official_score,
    lmms_eval_log=LMMS_LOG,
    leaderboard=_leaderboard,
    run_options=(PROTOCOL_OPTION,),
    official_inputs=official_inputs,
    titles={t: t for t in TASK_ORDER},  # Table 1 prints the abbreviations
)
