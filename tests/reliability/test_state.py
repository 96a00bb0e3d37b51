"""Class 6: damaged state — a broken store, a full disk, kill -9 mid-command and two writers on one folder."""

from __future__ import annotations

import errno
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import REPO, assert_fails_cleanly, cli, src_env, tiny_bench

sys.path.insert(0, str(REPO / "tests"))
from openai_test_server import FakeOpenAIServer  # noqa: E402


def _oracle_run(tmp_path: Path, n_mc: int = 8, n_int: int = 4) -> tuple[Path, Path]:
    bench = tiny_bench(tmp_path / "b", n_mc=n_mc, n_int=n_int)
    out = tmp_path / "r"
    r = cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress")
    assert r.code == 0, r.output
    return bench, out


# -- the store-opening check ---------------------------------------------------------------------------------
def test_truncated_store_names_the_file_and_the_recovery(tmp_path):
    bench, out = _oracle_run(tmp_path)
    db = out / "responses.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])
    r = cli("score", "--run", out)
    assert_fails_cleanly(r, 2, str(db), "damaged", f"mv {db} {db}.damaged", "rerun the same `egoworld run`")
    r = cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress")
    assert_fails_cleanly(r, 2, str(db), "damaged")


def test_emptied_store_is_refused_not_silently_restarted(tmp_path):
    bench, out = _oracle_run(tmp_path)
    db = out / "responses.sqlite"
    db.write_bytes(b"")
    assert_fails_cleanly(cli("score", "--run", out), 2, str(db), "empty (0 bytes)")
    r = cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress")
    assert_fails_cleanly(r, 2, str(db), "empty (0 bytes)")


def test_store_replaced_by_another_file_is_refused(tmp_path):
    _, out = _oracle_run(tmp_path)
    (out / "responses.sqlite").write_text("this is not a database\n")
    assert_fails_cleanly(cli("score", "--run", out), 2, "responses.sqlite", "not an SQLite database")


# -- a full disk ----------------------------------------------------------------------------------------------
def test_full_disk_during_run_is_one_line_and_run_json_is_not_left_running(tmp_path, monkeypatch):
    from egoworld.core.folders.store import ResponseStore

    bench = tiny_bench(tmp_path / "b")
    calls = {"n": 0}
    real_put = ResponseStore.put

    def put(self, **kw):
        calls["n"] += 1
        if calls["n"] > 2:
            raise sqlite3.OperationalError("database or disk is full")
        return real_put(self, **kw)

    monkeypatch.setattr(ResponseStore, "put", put)
    out = tmp_path / "r"
    r = cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress", "--concurrency", "1")
    assert_fails_cleanly(r, 2, "disk is full", "free some space", "rerun the same command")
    status = json.loads((out / "run.json").read_text())
    assert status["status"] == "failed" and "disk is full" in status["failure"]


def test_full_disk_while_scoring_keeps_the_previous_scores_whole(tmp_path, monkeypatch):
    import egoworld.core.folders.files as files

    _, out = _oracle_run(tmp_path)
    assert cli("score", "--run", out).code == 0
    before = (out / "scores.jsonl").read_bytes()
    real = files.atomic_open

    def full(path, mode="w"):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(files, "atomic_open", full)
    assert_fails_cleanly(cli("score", "--run", out), 2, "disk is full", "scores.jsonl")
    monkeypatch.setattr(files, "atomic_open", real)
    assert not (out / "scores.json").exists()  # no mark: the folder reads as "not scored", never as mixed
    assert (out / "scores.jsonl").read_bytes() == before
    assert not list(out.glob(".*.tmp"))


@pytest.fixture
def tiny_disk(tmp_path):
    """A 160 KiB tmpfs (needs root; skipped elsewhere)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(mnt)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_real_full_disk_during_run(tmp_path, tiny_disk):
    bench = tiny_bench(tmp_path / "b", n_mc=300, n_int=0)
    out = tiny_disk / "r"
    with FakeOpenAIServer(model="fake-vlm-1", reply=lambda p: "B " + "x" * 3000) as srv:
        r = cli(
            "run", "--bench", bench, "--model", "openai:fake-vlm-1", "--base-url", srv.base_url,
            "--out", out, "--no-progress",
        )  # fmt: skip
    assert_fails_cleanly(r, 2, "disk is full", "rerun the same command")
    assert json.loads((out / "run.json").read_text())["status"] == "failed"


# -- kill -9 --------------------------------------------------------------------------------------------------
_KILL_SCORE = """
import os, sys
import egoworld.core.folders.files as files
point, n = sys.argv[1], int(sys.argv[2])
count = {"n": 0}
def hit():
    count["n"] += 1
    if count["n"] == n:
        os._exit(137)  # as abrupt as kill -9: no cleanup, no finally blocks
if point == "replace":
    real = os.replace
    def replace(a, b):
        hit()
        return real(a, b)
    files.os.replace = replace
else:
    real_row = files.canonical_json
    def row(obj):
        hit()
        return real_row(obj)
    files.canonical_json = row
from egoworld.scoring.score import score_run
score_run(sys.argv[3])
"""


def _kill_score_at(out: Path, point: str, n: int) -> int:
    proc = subprocess.run([sys.executable, "-c", _KILL_SCORE, point, str(n), str(out)], env=src_env())
    return proc.returncode


@pytest.mark.parametrize(("point", "n"), [("row", 1), ("row", 7), ("replace", 1), ("replace", 2)])
def test_kill_9_during_score_never_mixes_two_scorings(tmp_path, point, n):
    """Score an oracle run, change every answer, rescore and die at ``point``: the folder holds either the
    complete old pair, the complete new pair, or no scores.json (not scored) — never a mix, no temp files."""
    _, out = _oracle_run(tmp_path)
    assert cli("score", "--run", out).code == 0
    with sqlite3.connect(out / "responses.sqlite") as con:
        con.execute("UPDATE responses SET raw = 'I do not know'")
    assert _kill_score_at(out, point, n) == 137
    leftovers = sorted(p.name for p in out.glob(".*.tmp"))
    if (out / "scores.json").exists():
        summary = json.loads((out / "scores.json").read_text())
        rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
        assert summary["parse_rate"] == 100.0 * sum(r["parsed"] for r in rows) / len(rows)
    assert cli("score", "--run", out).code == 0  # the next scoring cleans up
    assert not list(out.glob(".*.tmp")), leftovers
    assert json.loads((out / "scores.json").read_text())["parse_rate"] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("rows", [1, 30])
def test_kill_9_during_run_then_rerun_completes(tmp_path, rows):
    from run_helpers import cli_run_argv, kill_after_rows

    bench = tiny_bench(tmp_path / "b", n_mc=2, n_int=0)
    out = tmp_path / "r"
    with FakeOpenAIServer(model="fake-vlm", delay=0.02) as srv:
        argv = cli_run_argv(bench, srv.base_url)
        kill_after_rows(argv, out, rows, env=src_env())
        assert json.loads((out / "run.json").read_text())["status"] == "running"  # as kill -9 left it
        done = subprocess.run([*argv, "--out", str(out)], env=src_env())
    assert done.returncode == 0  # the stale lock of the killed process does not block the rerun
    with sqlite3.connect(out / "responses.sqlite") as con:
        assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM responses").fetchone() == (48, 48)
    assert json.loads((out / "run.json").read_text())["status"] == "complete"


# -- two writers on one folder -------------------------------------------------------------------------------
def test_second_run_on_a_folder_in_use_refuses(tmp_path):
    from egoworld.core.folders.lock import folder_lock

    bench = tiny_bench(tmp_path / "b")
    out = tmp_path / "r"
    with folder_lock(out):
        r = cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress")
    assert_fails_cleanly(r, 2, str(out), "in use by egoworld run", "another --out")
    assert not (out / "responses.sqlite").exists()
    assert cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress").code == 0


@pytest.mark.slow
def test_two_real_processes_on_one_folder(tmp_path):
    bench = tiny_bench(tmp_path / "b", n_mc=8, n_int=0)
    out = tmp_path / "r"
    # 8 requests of 1 s each: the first run is still going while the second starts (a slow start on a
    # loaded machine took over 2 s)
    with FakeOpenAIServer(model="fake-vlm-1", delay=1.0) as srv:
        argv = [
            sys.executable, "-m", "egoworld.cli", "run", "--bench", str(bench), "--model", "openai:fake-vlm-1",
            "--base-url", srv.base_url, "--out", str(out), "--no-progress", "--concurrency", "1",
        ]  # fmt: skip
        env = src_env()
        first = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 60
        while not (out / "responses.sqlite").exists() and time.time() < deadline:
            time.sleep(0.05)
        second = subprocess.run(argv, env=env, capture_output=True, text=True)
        first.communicate(timeout=120)
    assert first.returncode == 0
    assert second.returncode == 2 and "in use by egoworld run (pid" in second.stderr, second.stderr
    assert "Traceback" not in second.stderr
    assert srv.outcomes["ok"] == 8  # each request sent once
