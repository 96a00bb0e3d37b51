"""Blind checks: on every synthetic benchmark the `prior` baseline (question text and answer statistics
only) scores within 2 points of chance on each choice task, so no task is solvable from its wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from egoworld.core.bench_folder import load_benchmark
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


@pytest.mark.slow  # about 80 s: six walks up to 125 min
def test_prior_at_chance_on_sim_vsi_wild(tmp_path: Path) -> None:
    from egoworld.benchmarks.vsi_wild.build import BuildConfig, build_vsi_wild
    from egoworld.demo.vsi_wild import synth_walks

    synth_walks(tmp_path / "walks", pano_width=128, view_size=32)
    walks = tmp_path / "walks"
    bench = build_vsi_wild([walks], tmp_path / "bench", BuildConfig(per_task=160, seed=3)).bench
    got = _prior_vs_chance(bench.root, tmp_path / "run")
    assert got, "no choice task scored"
    off = {t: v for t, v in got.items() if abs(v[0] - v[1]) > TOLERANCE}
    assert not off, off
