"""The paper-size world sets (`egoworld.sim.paper_sets`) and their driver, on tiny episodes: a killed set
resumes and skips finished episodes, a rerun is byte-identical, Ray's 2 local workers make the same files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from egoworld.core.folders.hashing import sha256_file
from egoworld.sim.paper_set_run import make_paper_set
from egoworld.sim.paper_sets import kitchens_needed, set_jobs, walk_jobs
from egoworld.sim.walk.synth import WalkConfig
from egoworld.sim.worldset import Job

# three tiny walks (a few seconds each) stand for the paper's five
TINY = textwrap.dedent(
    """
    from egoworld.sim.walk.synth import WalkConfig
    from egoworld.sim.worldset import Job

    def tiny_jobs():
        return [
            Job("walk", f"walk_{i:03d}", 7, WalkConfig(minutes=m, pano_width=64, view_size=32))
            for i, m in enumerate((0.4, 0.3, 0.2))
        ]
    """
)


def _tiny_jobs() -> list[Job]:
    return [
        Job("walk", f"walk_{i:03d}", 7, WalkConfig(minutes=m, pano_width=64, view_size=32))
        for i, m in enumerate((0.4, 0.3, 0.2))
    ]


def _hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}


def test_paper_sets_are_the_paper_sizes() -> None:
    walks = set_jobs("walks")
    assert [j.config.minutes for j in walks] == [125.0, 90.0, 45.0, 20.0, 8.0]  # longest first
    assert [j.episode_id for j in walk_jobs()] == [f"walk_{i:03d}" for i in range(5)]
    assert [j.config.minutes for j in walk_jobs(scale=0.1)] == [0.8, 2.0, 4.5, 9.0, 12.5]
    assert kitchens_needed(1000, 5.2) == 20 and kitchens_needed(1000, 10.0) == 10
    kitchens = set_jobs("kitchens", kitchens=20, scale=0.1)
    assert len(kitchens) == 2 and {j.config.size for j in kitchens} == {448}
    assert all(j.config.minutes == 10.0 and j.config.fps == 1.0 for j in kitchens)
    with pytest.raises(ValueError, match="scale"):
        set_jobs("walks", scale=0.0)
    with pytest.raises(ValueError, match="unknown paper set"):
        set_jobs("gardens")


def test_paper_sets_command_refuses_an_unknown_set(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from egoworld.cli import app

    r = CliRunner().invoke(app, ["world", "paper-sets", "gardens", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "unknown paper set 'gardens'" in r.output


def test_killed_set_resumes_skipping_finished_episodes_and_matches_a_clean_run(tmp_path: Path) -> None:
    killed = tmp_path / "killed"
    (tmp_path / "tiny_set.py").write_text(TINY)
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from tiny_set import tiny_jobs\n"
        "from egoworld.sim.paper_set_run import make_paper_set\n"
        "make_paper_set('walks', sys.argv[2], jobs=tiny_jobs(), workers=1)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*sys.path, str(tmp_path)]))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path), str(killed)], env=env, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not (killed / "walk_000" / "episode.json").is_file():
        assert proc.poll() is None, "the set finished or failed before it could be killed"
        assert time.monotonic() < deadline, "the first episode did not appear"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = sorted(p.name for p in killed.iterdir() if not p.name.startswith("."))
    assert "walk_000" in finished and len(finished) < 3
    stamp = os.stat(killed / "walk_000" / "episode.json").st_mtime_ns
    figures = make_paper_set("walks", killed, jobs=_tiny_jobs(), workers=2)
    assert figures["skipped"] == len(finished) and figures["made"] == 3 - len(finished)
    assert figures["episodes"] == 3 and figures["frames"] == 24 + 18 + 12
    assert os.stat(killed / "walk_000" / "episode.json").st_mtime_ns == stamp  # skipped, not remade
    assert not [p for p in killed.iterdir() if p.name.startswith(".")]  # the partial episode is gone
    clean = make_paper_set("walks", tmp_path / "clean", jobs=_tiny_jobs(), workers=2)
    assert clean["made"] == 3 and clean["cpu_s"] > 0
    assert _hashes(killed) == _hashes(tmp_path / "clean") and len(_hashes(killed)) >= 3 * 12
    again = make_paper_set("walks", tmp_path / "clean", jobs=_tiny_jobs(), workers=2)
    assert again["made"] == 0 and again["skipped"] == 3


@pytest.mark.slow  # Ray's start-up alone takes 10–30 s on a loaded 2-core machine
def test_paper_set_on_ray_with_two_local_workers_gives_the_same_files(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    make_paper_set("walks", tmp_path / "local", jobs=_tiny_jobs()[:2], workers=2)
    try:
        figures = make_paper_set("walks", tmp_path / "ray", jobs=_tiny_jobs()[:2], workers=2, executor="ray")
        assert ray.cluster_resources().get("CPU") == 2.0
    finally:
        ray.shutdown()
    assert figures["made"] == 2 and figures["executor"] == "ray"
    assert _hashes(tmp_path / "ray") == _hashes(tmp_path / "local")
