"""Shared helpers of the reliability corpus (classes 5–8): run the CLI in-process or as a subprocess, assert a
failure that speaks (exit code, file/line/field or fix named, no traceback), and small hand-made folders."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def src_env() -> dict[str, str]:
    """The environment for a subprocess that must import the same egoworld as this test process."""
    import egoworld

    return {
        **os.environ,
        # this tree's src first; the rest of PYTHONPATH stays (it may hold this tree's entry points)
        "PYTHONPATH": os.pathsep.join(
            [str(Path(egoworld.__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
        "PYTHONUNBUFFERED": "1",
    }


@dataclass
class Outcome:
    code: int
    output: str  # stdout and stderr together


def cli(*argv: str | Path) -> Outcome:
    """Run ``egoworld ARGV`` in this process through the console entry point (`egoworld.cli.main`).

    An exception that escapes the entry point is formatted into the output as Python would print it, so
    `assert_fails_cleanly` catches it.
    """
    from egoworld.cli import main

    out = io.StringIO()
    code = 0
    old_argv = sys.argv
    sys.argv = ["egoworld", *map(str, argv)]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                out.write(traceback.format_exc())
                code = 1
    finally:
        sys.argv = old_argv
    return Outcome(code, out.getvalue())


def cli_subprocess(*argv: str | Path, cwd: Path | None = None, timeout: float = 120) -> Outcome:
    """Run ``egoworld ARGV`` as a separate process (the real console behaviour)."""
    env = {**src_env(), "COLUMNS": "200"}
    proc = subprocess.run(
        [sys.executable, "-m", "egoworld.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
    return Outcome(proc.returncode, proc.stdout + proc.stderr)


def assert_fails_cleanly(result: Outcome, code: int | None, *needles: str) -> None:
    """Exit code ``code`` (any non-zero when None), every needle in the output, and no traceback."""
    flat = " ".join(result.output.split())
    assert "Traceback" not in result.output, result.output
    if code is None:
        assert result.code != 0, result.output
    else:
        assert result.code == code, f"exit {result.code}, expected {code}:\n{result.output}"
    for needle in needles:
        assert " ".join(needle.split()) in flat, f"{needle!r} not in:\n{result.output}"


def write_lines(path: Path, lines: list[str | bytes]) -> Path:
    """A file of raw lines (bytes kept as they are: for non-UTF-8 cases)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join((ln if isinstance(ln, bytes) else ln.encode()) + b"\n" for ln in lines)
    path.write_bytes(data)
    return path


def tiny_bench(root: Path, n_mc: int = 4, n_int: int = 2) -> Path:
    """A valid benchmark folder (4-choice and integer questions) made through the library."""
    sys.path.insert(0, str(REPO / "tests"))
    from benchmarks_factory import balanced_mc_bench

    return balanced_mc_bench(root, n_mc=n_mc, n_int=n_int).root


def sample_lines(bench: Path) -> list[dict]:
    return [json.loads(x) for x in (bench / "samples.jsonl").read_text().splitlines() if x.strip()]


def edit_samples(bench: Path, lines: list[str | bytes]) -> None:
    """Replace ``samples.jsonl`` and accept the edit in the manifest (so only the lines are under test)."""
    write_lines(bench / "samples.jsonl", lines)
    manifest = json.loads((bench / "manifest.json").read_text())
    manifest["samples_sha256"] = ""
    (bench / "manifest.json").write_text(json.dumps(manifest))


def vsi_row(doc_id: str = "q1", **over: object) -> dict:
    """One row of the official VSI-Super-Wild QA file."""
    row = {
        "doc_id": doc_id,
        "video_name": "abc_front.mp4",
        "task_type": "VMR",
        "question": "Which way did the camera turn?",
        "answer": "B",
        "frame_indices": [1, 2],
        "options": ["A) left", "B) right", "C) back", "D) up"],
    }
    row.update(over)
    return row


def unused_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
