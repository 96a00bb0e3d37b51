"""The Ray executor on a local Ray instance: same scores as in-process, resume after the driver is killed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from benchmarks_factory import balanced_mc_bench, short_clip_bench
from openai_test_server import FakeOpenAIServer
from run_helpers import cli_run_argv, kill_after_rows
from test_runner import AlwaysFirst, Recorder, _trajectory_bench

ray = pytest.importorskip("ray", reason="install egoworld[ray] (make test does)")

from egoworld.core.plan import plan_items  # noqa: E402
from egoworld.core.run_config import RunConfig  # noqa: E402
from egoworld.runner.ray_executor import shard_items  # noqa: E402
from egoworld.runner.run import run_benchmark  # noqa: E402
from egoworld.scoring.score import score_run  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    # workers import the test helpers' model classes (AlwaysFirst, Recorder) from this folder
    tests_dir = str(Path(__file__).resolve().parent)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        # (and see the egoworld the driver imports, e.g. a worktree's src on PYTHONPATH)
        runtime_env={
            "env_vars": {
                "PYTHONPATH": os.pathsep.join(filter(None, [tests_dir, os.environ.get("PYTHONPATH")]))
            }
        },
    )
    yield
    ray.shutdown()


def _same_scores(a, b) -> None:
    score_run(a)
    score_run(b)
    assert (a / "scores.json").read_bytes() == (b / "scores.json").read_bytes()
    assert (a / "scores.jsonl").read_bytes() == (b / "scores.jsonl").read_bytes()


def test_ray_and_in_process_runs_give_identical_scores(local_ray, tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=20, n_int=8)
    for executor in ("local", "ray"):
        cfg = RunConfig(
            bench=bench.root,
            model="random",
            out=tmp_path / executor,
            permutations="shuffle24",
            progress=False,
            executor=executor,
            shard_size=50,
        )
        s = run_benchmark(cfg)
        assert s.ok == 20 * 24 + 8
    _same_scores(tmp_path / "local", tmp_path / "ray")
    again = run_benchmark(
        RunConfig(
            bench=bench.root,
            model="random",
            out=tmp_path / "ray",
            progress=False,
            permutations="shuffle24",
            executor="ray",
            shard_size=50,
        )
    )
    assert again.called == 0 and again.reused == 20 * 24 + 8


def test_custom_models_and_trajectories_on_ray(local_ray, tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    for executor in ("local", "ray"):
        run_benchmark(
            RunConfig(
                bench=bench.root,
                model="first",
                out=tmp_path / f"first-{executor}",
                progress=False,
                executor=executor,
                shard_size=3,
            ),
            model=AlwaysFirst(),
        )
    _same_scores(tmp_path / "first-local", tmp_path / "first-ray")
    traj = _trajectory_bench(tmp_path / "t")
    for executor in ("local", "ray"):
        s = run_benchmark(
            RunConfig(
                bench=traj.root,
                model="rec",
                out=tmp_path / f"traj-{executor}",
                progress=False,
                history="pred",
                executor=executor,
                shard_size=2,
            ),
            model=Recorder(),
        )
        assert s.ok == 12
    _same_scores(tmp_path / "traj-local", tmp_path / "traj-ray")


def test_ray_records_the_frames_sent_as_an_in_process_run_does(local_ray, tmp_path):
    bench = short_clip_bench(tmp_path / "b")
    sent = []
    for executor in ("local", "ray", "ray"):  # the second ray run resumes a finished folder: all reused
        cfg = RunConfig(
            bench=bench,
            model="first",
            out=tmp_path / executor,
            setting="frames",
            frames=32,
            progress=False,
            executor=executor,
            shard_size=2,
        )
        run_benchmark(cfg, model=AlwaysFirst())
        sent.append(json.loads((tmp_path / executor / "run.json").read_text()).get("frames_sent"))
    assert sent[0]["short"] == {"q0": 12, "q1": 9, "q3": 12}
    assert sent[1] == sent[0] and sent[2] == sent[0]


def test_shards_keep_trajectories_whole_and_cut_clips():
    traj_items = plan_items(_trajectory_bench_samples(), "none", 0, 1, "pred")
    shards = shard_items(traj_items, "pred", 3)
    for shard in shards:
        ids = {it.sample.trajectory.id for it in shard}
        assert all(sum(1 for it in shard if it.sample.trajectory.id == t) == 2 for t in ids)
    assert sum(len(s) for s in shards) == 12


def _trajectory_bench_samples():
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        return _trajectory_bench(Path(d)).samples


def test_resume_after_killing_the_driver(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=16, n_int=4)  # 16 × 24 + 4 = 388 requests
    env = {**os.environ, "EGOWORLD_RAY_CPUS": "2", "PYTHONUNBUFFERED": "1"}
    with FakeOpenAIServer(delay=0.1) as srv:  # slow enough that the kill lands mid-run
        argv = cli_run_argv(bench.root, srv.base_url)
        killed = tmp_path / "killed"
        # SIGKILL the driver's process group: the driver and the Ray processes it started
        ray_args = ["--executor", "ray", "--shard-size", "24"]
        partial = kill_after_rows([*argv, *ray_args], killed, 48, env={"EGOWORLD_RAY_CPUS": "2"})
        assert 0 < partial < 388, partial
        subprocess.run(
            [*argv, "--executor", "ray", "--shard-size", "24", "--out", str(killed)], env=env, check=True
        )
        clean = tmp_path / "clean"
        subprocess.run([*argv, "--out", str(clean)], env=env, check=True)
    with sqlite3.connect(killed / "responses.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 388
        assert db.execute("SELECT MAX(attempts) FROM responses").fetchone()[0] == 1
    _same_scores(killed, clean)


def test_beyond3d_build_on_ray_is_byte_identical(local_ray, tmp_path):
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
    from egoworld.core.folders.hashing import sha256_file
    from sim_worlds import sim_kitchens

    worlds = sim_kitchens(tmp_path / "worlds", episodes=2, minutes=4.0)
    for executor in ("local", "ray"):
        build_beyond3d(
            [worlds],
            tmp_path / executor,
            BuildConfig(anchors=20, controls=20, detections="none"),
            executor=executor,
        )
    for name in ("samples.jsonl", "manifest.json"):
        assert sha256_file(tmp_path / "local" / name) == sha256_file(tmp_path / "ray" / name)


def test_world_set_on_ray_is_byte_identical(local_ray, tmp_path):
    """Sim kitchens made as one Ray task each are the bytes made here (each worker has its own GL context)."""
    from egoworld.core.folders.hashing import sha256_file
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    cfg = KitchenConfig(minutes=0.7, fps=1.0, size=64, objects=12)
    for executor in ("local", "ray"):
        synth_world_set("kitchen", tmp_path / executor, 2, 3, cfg, executor=executor)

    def hashes(root):
        return {str(p.relative_to(root)): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}

    assert hashes(tmp_path / "local") == hashes(tmp_path / "ray") and len(hashes(tmp_path / "ray")) >= 12
