"""End to end on `egoworld.sim` kitchens (rendered video, exact visibility from the instance buffer,
simulated detections): the audit with a perfect detector, the build, and the oracle in the last-frame and
video settings."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
sim_kitchen = pytest.importorskip("egoworld.sim.kitchen.synth")
pytest.importorskip("av")


@pytest.fixture(scope="module")
def sim_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("b3d_sim")
    cfg = sim_kitchen.KitchenConfig(minutes=2.5, size=160, objects=24)
    for i in range(2):
        sim_kitchen.synth_kitchen(root / f"kitchen_{i:03d}", f"kitchen_{i:03d}", i, cfg)
    return root


def test_audit_on_sim_kitchens(sim_world: Path) -> None:
    from egoworld.benchmarks.beyond3d.build.audit import audit_worlds

    perfect = audit_worlds([sim_world], truth=True, detections="perfect")
    assert perfect.overall["accuracy"] >= 98.0 and perfect.scored > 2000
    noisy = audit_worlds([sim_world], truth=True)  # the simulator's own detector (misses small objects)
    assert noisy.overall["recall"] < perfect.overall["recall"]
    assert noisy.overall["precision"] > 80.0


def test_build_and_oracle_on_sim_kitchens(sim_world: Path, tmp_path: Path) -> None:
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    report = build_beyond3d(
        [sim_world], tmp_path / "bench", BuildConfig(anchors=5, controls=6, detections="none")
    )
    bench = load_benchmark(tmp_path / "bench")
    assert report.anchors >= 1 and len(bench.samples) == 8 * report.anchors + report.controls
    assert all(
        s.media.video is not None and s.media.video.end_s == s.metadata["query_s"] for s in bench.samples
    )
    for setting, policy in (("last-frame", "last"), ("frames", "fps-end:1")):
        out = tmp_path / setting
        summary = run_benchmark(
            RunConfig(
                bench=tmp_path / "bench",
                model="oracle",
                out=out,
                setting=setting,
                frame_policy=policy,
                frames=200,
                overlays="fisheye=0.9,timestamp",
                progress=False,
            )
        )
        assert summary.errors == 0
        assert score_run(out)["overall"] == 100.0
