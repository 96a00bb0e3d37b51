"""Kill -9 during ``build``: what is left is either a whole benchmark or one that `bench check` refuses by
name (never a half-written file read as whole), nothing is written outside ``--out``, and rerunning the same
command gives the bytes of an uninterrupted build (stale temporary files included: none are left)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import egoworld

pytestmark = pytest.mark.slow


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _build_argv(kind: str, world: Path, out: Path, seed: int) -> list[str]:
    argv = [sys.executable, "-m", "egoworld.cli", "build", kind, "--world", str(world), "--out", str(out)]
    return [*argv, "--seed", str(seed)]


def _kill_when(argv: list[str], ready, limit_s: float = 120) -> bool:
    """Start ``argv``; SIGKILL its process group as soon as ``ready()``; True if it was killed mid-way."""
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + limit_s
    while proc.poll() is None and not ready() and time.time() < deadline:
        time.sleep(0.002)
    killed = proc.poll() is None
    if killed:
        os.killpg(proc.pid, signal.SIGKILL)
    _, err = proc.communicate()
    assert b"Traceback" not in err, err.decode()
    return killed


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    w = tmp_path_factory.mktemp("world") / "actions"
    res = egoworld("world", "synth", "actions", "--episodes", "4", "--seed", "0", "--out", w)
    assert res.code == 0, res.output
    return w


def test_build_killed_at_several_points_never_leaves_a_folder_read_as_whole(tmp_path, world):
    clean = tmp_path / "clean"
    assert egoworld("build", "explore", "--world", world, "--out", clean, "--seed", "0").code == 0
    reference = _tree(clean)
    n_images = sum(1 for k in reference if k.startswith("images/"))
    points = {
        "first image": lambda out: any((out / "images").glob("*")),
        "half the images": lambda out: len(list((out / "images").glob("*"))) >= n_images // 2,
        "samples written": lambda out: (out / "samples.jsonl").exists(),
        "any temporary file": lambda out: any(out.glob(".*.tmp")),
    }
    killed_mid_way = 0
    for name, ready in points.items():
        out = tmp_path / name.replace(" ", "-") / "bench"
        sibling = out.parent
        sibling.mkdir()
        killed_mid_way += _kill_when(_build_argv("explore", world, out, 0), lambda o=out, r=ready: r(o))
        assert sorted(p.name for p in sibling.iterdir()) in ([], ["bench"]), name  # nothing beside --out
        check = egoworld("bench", "check", "--bench", out)
        if check.code != 0:  # a partial folder is refused by name, with what to do
            named = ("manifest.json", "samples.jsonl", "never finished")  # the build-in-progress marker
            assert check.code == 2 and any(n in check.output for n in named), check.output
        rerun = egoworld("build", "explore", "--world", world, "--out", out, "--seed", "0")
        assert rerun.code == 0, rerun.output
        assert _tree(out) == reference, name
    assert killed_mid_way >= 2  # the points really interrupted the build


def test_a_rebuild_killed_between_samples_and_manifest_is_refused_by_hash(tmp_path, world):
    out = tmp_path / "bench"
    assert egoworld("build", "explore", "--world", world, "--out", out, "--seed", "0").code == 0
    old_samples = (out / "samples.jsonl").read_bytes()
    killed = _kill_when(
        _build_argv("explore", world, out, 1),
        lambda: (out / "samples.jsonl").read_bytes() != old_samples,
    )
    check = egoworld("bench", "check", "--bench", out)
    if killed and check.code != 0:
        assert check.code == 2 and "samples_sha256" in check.output and "rebuild" in check.output
    assert egoworld("build", "explore", "--world", world, "--out", out, "--seed", "1").code == 0
    assert egoworld("bench", "check", "--bench", out).code == 0
    assert not list(out.glob(".*.tmp"))
