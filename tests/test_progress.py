"""Plain progress lines when stderr is not a terminal, and the top error reasons at the end of a run."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from benchmarks_factory import balanced_mc_bench
from egoworld.core.process.progress import PlainProgress, format_reasons, progress_bar, top_reasons


def test_plain_lines_instead_of_a_bar_when_not_a_terminal() -> None:
    log = io.StringIO()
    bar = progress_bar(True, stream=log)
    assert isinstance(bar, PlainProgress)
    bar.every = 0.0
    with bar:
        t = bar.add_task("random (run)", total=4, status="")
        for _ in range(4):
            bar.update(t, advance=1, status="ok 1 · err 0")
    lines = log.getvalue().splitlines()
    assert len(lines) == 5 and all(line.startswith("[progress] random (run): ") for line in lines)
    assert "4/4 (100.0%)" in lines[-1] and "ok 1 · err 0" in lines[-1]
    assert "eta" in lines[0] and "eta" not in lines[-1]


def test_top_reasons_group_and_rank() -> None:
    reasons = top_reasons(
        ["HTTP 500: boom\ntrace", "timeout", "HTTP 500: boom", "timeout", "timeout", ""], k=2
    )
    assert reasons == [("timeout", 3), ("HTTP 500: boom", 2)]
    assert format_reasons(reasons, 6).splitlines()[0] == "top error reasons (6 failed):"


def test_run_logs_progress_and_error_reasons(tmp_path: Path) -> None:
    from openai_test_server import FakeOpenAIServer

    bench = tmp_path / "bench"
    balanced_mc_bench(bench, n_mc=8, n_int=0)
    env = {**os.environ, "EGOWORLD_PROGRESS_EVERY": "0", "OPENAI_API_KEY": "x"}
    with FakeOpenAIServer(fault=lambda prompt: "500") as server:  # reachable, but every answer fails
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "egoworld.cli",
                "run",
                "--bench",
                str(bench),
                "--model",
                "openai:fake-vlm-1",
                "--base-url",
                server.base_url,
                "--model-arg",
                "max_retries=0",
                "--timeout",
                "2",
                "--out",
                str(tmp_path / "run"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    assert res.returncode == 3, res.stderr
    assert "[progress] " in res.stderr and "8/8 (100.0%)" in res.stderr
    assert "top error reasons (8 failed):" in res.stderr
    assert "8 ×" in res.stderr.split("top error reasons", 1)[1]
