"""Blind checks: on every synthetic benchmark the `prior` baseline (question text and answer statistics
only) scores within 2 points of chance on each choice task, so no task is solvable from its wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.run_config import RunConfig
from egoworld.runner.run import run_benchmark
from egoworld.scoring.score import score_run

TOLERANCE = 2.0


def _prior_vs_chance(bench_root: Path, out: Path) -> dict[str, tuple[float, float]]:
    bench = load_benchmark(bench_root)
    run_benchmark(RunConfig(bench=bench_root, model="prior", out=out, progress=False, concurrency=4))
    scores = score_run(out)
    got = {}
    for task, info in bench.manifest.tasks.items():
        if info.chance is None or "accuracy" not in scores["tasks"].get(task, {}):
            continue
        got[task] = (float(scores["tasks"][task]["accuracy"]), float(info.chance))
    return got


@pytest.mark.slow  # the prior's run; the walks and the benchmark are conftest's, shared with test_vsi_wild
def test_prior_at_chance_on_sim_vsi_wild(vsi_sim_bench: Benchmark, tmp_path: Path) -> None:
    bench = vsi_sim_bench
    got = _prior_vs_chance(bench.root, tmp_path / "run")
    assert got, "no choice task scored"
    off = {t: v for t, v in got.items() if abs(v[0] - v[1]) > TOLERANCE}
    assert not off, off
