"""Kill -9 at a random write point of ``build beyond3d``, ``import vsi-wild-qa``, ``world synth`` and ``export hf``
(issue 24, item 1): afterwards the folder is refused by every reader (a build-in-progress marker) or is whole —
byte for byte the old folder or the new one — and a rerun gives the uninterrupted bytes.

The kill is exact: the command runs in a subprocess with an audit hook that counts its writes (file opens for
writing, renames, links, removals under the output folder) and sends itself SIGKILL just before the Nth one,
N drawn from a seeded generator over the writes an uninterrupted run makes."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from faults import src_env, tiny_bench, vsi_row

from conftest import egoworld

_HARNESS = r"""
import os, signal, sys, runpy
N = int(os.environ["KILL_AT"]); ROOT = os.path.realpath(os.environ["KILL_UNDER"])
COUNT = os.environ["KILL_COUNT"]
n = [0]
def _under(p):
    try:
        return os.path.realpath(os.fsdecode(p)).startswith(ROOT)
    except (TypeError, ValueError):
        return False
def hook(ev, args):
    if ev == "open" and args and not isinstance(args[0], int):
        mode, flags = (tuple(args) + (None, None))[1:3]
        w = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (isinstance(flags, int) and flags & 0o1103)
        hit = w and _under(args[0])
    elif ev in ("os.rename", "os.symlink", "os.link", "os.remove", "os.rmdir", "shutil.rmtree", "shutil.copyfile"):
        hit = _under(args[1] if ev in ("os.rename", "os.symlink", "os.link", "shutil.copyfile") else args[0])
    else:
        return
    if hit:
        n[0] += 1
        if n[0] == N:
            os.kill(os.getpid(), signal.SIGKILL)
import atexit
atexit.register(lambda: open(COUNT, "w").write(str(n[0])))
sys.addaudithook(hook)
sys.argv = ["egoworld", *sys.argv[1:]]
runpy.run_module("egoworld.cli", run_name="__main__")
"""


def _tree(root: Path, *, content_only: bool = False) -> dict[str, str]:
    """sha256 of every file; ``content_only``: what readers read (no hidden leftovers, no build report)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if (p.is_file() or p.is_symlink())
        and not (content_only and (p.name.startswith(".") or p.name == "build_report.json"))
    }


def _run(argv: list, under: Path, kill_at: int, tmp: Path) -> tuple[int, int]:
    """Run ``egoworld ARGV`` killed before its ``kill_at``-th write under ``under`` (0: never); returns
    (exit code, writes made)."""
    count = tmp / "writes.count"
    count.unlink(missing_ok=True)
    env = {**src_env(), "KILL_AT": str(kill_at), "KILL_UNDER": str(under), "KILL_COUNT": str(count)}
    proc = subprocess.run(
        [sys.executable, "-c", _HARNESS, *map(str, argv)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, int(count.read_text()) if count.exists() else -1


def _strip(tree: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in tree.items() if not (Path(k).name.startswith(".") or k == "build_report.json")}


def _kill_points(argv: list, under: Path, tmp: Path, k: int, seed: int) -> list[int]:
    code, total = _run(argv, under, 0, tmp)
    assert code == 0 and total > 2, (code, total)
    rng = random.Random(seed)
    return sorted(rng.sample(range(1, total + 1), min(k, total)))


def _check_whole_or_refused(check: list, out: Path, wholes: list[dict[str, str]], point: int) -> None:
    res = egoworld(*check)
    if res.code == 0:
        assert _tree(out, content_only=True) in wholes, (
            f"kill at write {point}: a folder read as whole is neither old nor new"
        )
    else:
        assert res.code == 2, res.output
        assert "never finished" in res.output or "not found" in res.output or "sha256" in res.output, (
            res.output
        )


def _atomic_case(
    tmp_path: Path, old: list, new: list, out: Path, check: list, k: int = 4, clear=None
) -> None:
    assert egoworld(*new).code == 0
    new_tree = _tree(out)
    if clear is not None:
        clear()
    points = _kill_points(new, out, tmp_path, k, seed=24)
    for point in points:
        if clear is not None:
            clear()
        else:
            assert egoworld(*old).code == 0
        old_tree = _tree(out) if out.exists() else {}
        code, _ = _run(new, out, point, tmp_path)
        if code == 0:
            continue  # the point was past the last write
        assert code == -9
        whole = [_strip(old_tree), _strip(new_tree)]
        _check_whole_or_refused(check, out, whole, point)
        if clear is not None:
            clear()
        assert egoworld(*new).code == 0
        assert _tree(out) == new_tree, f"rerun after a kill at write {point}"


@pytest.mark.slow
def test_kill_of_build_beyond3d_over_an_older_build(tmp_path):
    world = tmp_path / "w"
    assert egoworld("world", "synth", "actions", "--episodes", "2", "--seed", "0", "--out", world).code == 0
    out = tmp_path / "bench"
    build = ["build", "beyond3d", "--world", world, "--out", out, "--anchors", "1", "--seed"]
    _atomic_case(tmp_path, [*build, "0"], [*build, "1"], out, ["bench", "check", "--bench", out])


@pytest.mark.slow
def test_kill_of_import_vsi_wild_qa_over_an_older_import(tmp_path):
    qa_old, qa_new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    qa_old.write_text("".join(json.dumps(vsi_row(f"q{i}")) + "\n" for i in range(4)))
    qa_new.write_text("".join(json.dumps(vsi_row(f"n{i}", answer="C")) + "\n" for i in range(6)))
    out = tmp_path / "bench"
    imp = ["import", "vsi-wild-qa"]
    _atomic_case(
        tmp_path,
        [*imp, qa_old, "--out", out],
        [*imp, qa_new, "--out", out],
        out,
        ["bench", "check", "--bench", out],
    )


@pytest.mark.slow
def test_kill_of_world_synth_leaves_whole_episodes_only(tmp_path):
    import shutil

    from egoworld.core.folders.files import InputFileError
    from egoworld.world.episode_folder import find_episodes, load_episode

    out = tmp_path / "w"
    synth = ["world", "synth", "actions", "--episodes", "2", "--seed", "0", "--out", out]
    assert egoworld(*synth).code == 0
    new_tree = _tree(out)
    shutil.rmtree(out)
    for point in _kill_points(synth, out, tmp_path, 4, seed=24):
        shutil.rmtree(out)
        code, _ = _run(synth, out, point, tmp_path)
        if code == 0:
            continue
        for ep in [p for p in out.iterdir() if not p.name.startswith(".")] if out.exists() else []:
            try:
                load_episode(ep)
            except InputFileError as exc:
                assert "never finished" in str(exc) or "not found" in str(exc), exc
        for ep in find_episodes(out) if out.exists() else []:
            load_episode(ep)  # every episode a reader finds is whole
        assert egoworld(*synth).code == 0  # the rerun completes the set
        assert _tree(out) == new_tree, f"rerun after a kill at write {point}"


@pytest.mark.slow
def test_kill_of_export_hf_is_refused_by_import_hf(tmp_path):
    import shutil

    bench = tiny_bench(tmp_path / "b")
    out = tmp_path / "hf"
    export = ["export", "hf", "--bench", bench, "--out", out]
    check = ["import", "hf", out, "--out", tmp_path / "back"]

    def clear() -> None:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(tmp_path / "back", ignore_errors=True)

    _atomic_case(tmp_path, export, export, out, check, clear=clear)
    clear()
    code, _ = _run(export, out, 3, tmp_path)
    assert code == -9
    res = egoworld(*export)
    assert res.code == 2 and "never finished" in res.output, res.output


@pytest.mark.parametrize("missing", [False])
def test_a_marked_folder_is_refused_by_bench_check(tmp_path, missing):
    from egoworld.core.folders.loader import WRITING

    bench = tiny_bench(tmp_path / "b")
    (bench / WRITING).write_text("{}")
    res = egoworld("bench", "check", "--bench", bench)
    assert res.code == 2 and "never finished" in res.output and "rerun" in res.output, res.output
    os.remove(bench / WRITING)
    assert egoworld("bench", "check", "--bench", bench).code == 0


def test_manifest_counts_that_disagree_with_the_samples_are_refused(tmp_path):
    """Issue 24 item 3: ``counts`` in manifest.json that the samples do not bear out fail `bench check`."""
    bench = tiny_bench(tmp_path / "b")
    manifest = json.loads((bench / "manifest.json").read_text())
    task = next(iter(manifest["counts"]))
    manifest["counts"][task] += 5
    (bench / "manifest.json").write_text(json.dumps(manifest))
    res = egoworld("bench", "check", "--bench", bench)
    assert res.code == 2, res.output
    for needle in ("manifest.json", "field 'counts'", task, "rehash"):
        assert needle in " ".join(res.output.split()), res.output
