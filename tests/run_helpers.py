"""Helpers for tests that run `egoworld run` as a subprocess against a local server and kill it mid-way."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def cli_run_argv(bench: Path, base_url: str) -> list[str]:
    """`egoworld run` of the openai backend on ``bench`` with Shuffle24 and 4 requests in flight (no --out)."""
    return [
        sys.executable,
        "-m",
        "egoworld.cli",
        "run",
        "--bench",
        str(bench),
        "--model",
        "openai:fake-vlm",
        "--base-url",
        base_url,
        "--permutations",
        "shuffle24",
        "--concurrency",
        "4",
        "--no-progress",
    ]


def count_rows(db_path: Path) -> int:
    """Responses stored so far (0 while the file does not exist yet)."""
    try:
        with sqlite3.connect(db_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.Error:
        return 0


def kill_after_rows(
    argv: list[str], out: Path, rows: int, *, env: dict | None = None, limit_s: float = 180
) -> int:
    """Start ``argv --out out``, SIGKILL its whole process group once ``rows`` responses are stored (or it
    exits, or ``limit_s`` passes); returns how many rows survived."""
    proc = subprocess.Popen(
        [*argv, "--out", str(out)],
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        start_new_session=True,
    )
    deadline = time.time() + limit_s
    db = out / "responses.sqlite"
    while count_rows(db) < rows and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return count_rows(db)
