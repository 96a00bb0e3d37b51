"""Ctrl-C on a local baseline: a `random` Shuffle24 run over the official VSI-Super-Wild questions stops within
3 s of SIGINT (exit 130), and rerunning the command completes with the scores of an uninterrupted run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path


def _argv(bench: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "egoworld.cli", "run", "--bench", str(bench), "--model", "random",
            "--permutations", "shuffle24", "--limit", "2000", "--out", str(out), "--no-progress"]  # fmt: skip


def _sigint_as_on_a_terminal() -> None:
    """The child starts with Ctrl-C's default action, as from a terminal: a child inherits an ignored SIGINT
    (a library in the test worker may have set it; `nohup` and `cmd &` do), and Python then never raises
    KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_stops_a_local_baseline_fast_and_the_rerun_scores_as_an_uninterrupted_run(
    vsi_bench_dir: Path, tmp_path: Path
) -> None:
    proc = subprocess.Popen(
        _argv(vsi_bench_dir, tmp_path / "cut"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=_sigint_as_on_a_terminal,
    )
    store = tmp_path / "cut" / "responses.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not store.is_file() or store.stat().st_size < 200_000):
        time.sleep(0.1)  # interrupt once requests are being answered
    assert proc.poll() is None, "the run ended before it could be interrupted"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    waited = time.monotonic() - sent
    assert proc.returncode == 130 and waited < 3.0, (proc.returncode, waited, out[-500:])
    assert subprocess.run(_argv(vsi_bench_dir, tmp_path / "cut"), capture_output=True).returncode == 0
    assert subprocess.run(_argv(vsi_bench_dir, tmp_path / "whole"), capture_output=True).returncode == 0
    cut = json.loads((tmp_path / "cut" / "scores.json").read_text())
    whole = json.loads((tmp_path / "whole" / "scores.json").read_text())
    for key in ("overall", "macro", "tasks", "shuffle24", "n", "complete"):
        assert cut[key] == whole[key], key
    cut_rows = (tmp_path / "cut" / "scores.jsonl").read_bytes()
    assert cut_rows == (tmp_path / "whole" / "scores.jsonl").read_bytes()
