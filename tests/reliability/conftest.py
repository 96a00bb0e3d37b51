"""Tools of the reliability corpus: hostile folders, a CLI call that must fail cleanly, a watch on reads.

Every case runs an entry point (``egoworld …`` in-process, or as a subprocess where it is killed) on bad or
hostile input and asserts four things: the exit code, that the message names the file / line / field (or
the fix), that no Python traceback is printed, and that nothing outside the test's own folders was read
or written. Reads are watched with an audit hook (every Python-level ``open`` under a watched folder is
recorded); media a model server would receive is checked on a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

# filelock (3.32) probes the temp folder with a file of its own when first imported: import it now, before the
# cases' write watch starts, so no case is blamed for a library's probe (absent without egoworld[export])
with contextlib.suppress(ImportError):
    import filelock  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: openai_test_server, run_helpers

from openai_test_server import FakeOpenAIServer  # noqa: E402

# -- reads outside the allowed folders, writes outside the test's own folder ------------------------------
_WATCHED: list[str] = ["/etc/passwd", "/etc/shadow"]
_READS: list[str] = []
_WRITE_ROOTS: list[str] = []  # empty: writes are not watched (outside a corpus case)
_STRAY_WRITES: list[str] = []
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _inside(full: str, roots: list[str]) -> bool:
    return any(full == r or full.startswith(r + os.sep) for r in roots)


def _audit(event: str, args: tuple) -> None:
    if event != "open" or not args:
        return
    path = args[0]
    if isinstance(path, int) or path is None:
        return
    try:
        full = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return
    if _inside(full, _WATCHED):
        _READS.append(full)
    if _WRITE_ROOTS:
        mode, flags = (args + (None, None))[1:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        tool_cache = "__pycache__" in full or f"{os.sep}.hypothesis{os.sep}" in full
        if writing and not _inside(full, _WRITE_ROOTS) and not tool_cache:
            _STRAY_WRITES.append(full)


sys.addaudithook(_audit)


@dataclass
class Outside:
    """A folder next to the benchmark that must never be read or written: a real PNG, a real MP4, a text
    file. ``reads`` lists every Python-level open of a file in it; ``changed()`` says whether its content
    or listing changed."""

    root: Path
    png: Path
    mp4: Path
    text: Path
    png_bytes: bytes
    reads: list[str] = field(default_factory=list)
    _snapshot: dict[str, str] = field(default_factory=dict)

    def snapshot(self) -> dict[str, str]:
        return {
            str(p.relative_to(self.root)): hashlib.sha256(p.read_bytes()).hexdigest()
            if p.is_file()
            else "dir"
            for p in sorted(self.root.rglob("*"))
        }

    def changed(self) -> bool:
        _WATCHED.remove(str(self.root))
        try:
            return self.snapshot() != self._snapshot
        finally:
            _WATCHED.append(str(self.root))

    def put(self, name: str, data: bytes) -> Path:
        """Add a file (the test's own write, not watched)."""
        _WATCHED.remove(str(self.root))
        try:
            (self.root / name).write_bytes(data)
            self._snapshot = self.snapshot()
        finally:
            _WATCHED.append(str(self.root))
        return self.root / name


def secret_png() -> bytes:
    """A small, valid PNG with a pattern no egoworld test image has."""
    import numpy as np
    from PIL import Image

    rgb = np.zeros((24, 32, 3), dtype=np.uint8)
    rgb[::2, ::3] = (255, 0, 255)
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def outside(tmp_path: Path) -> Any:
    from egoworld.media.testvideo import write_counter_video

    root = (tmp_path / "outside").resolve()
    root.mkdir()
    png = root / "secret.png"
    png.write_bytes(secret_png())
    mp4 = root / "secret.mp4"
    write_counter_video(mp4, frames=12, fps=6, size=(64, 48), gop=6)
    text = root / "secret.txt"
    text.write_text("EGOWORLD-SECRET\n")
    out = Outside(root, png, mp4, text, png.read_bytes())
    out._snapshot = out.snapshot()
    before = len(_READS)
    _WATCHED.append(str(root))
    try:
        yield out
    finally:
        _WATCHED.remove(str(root))
        out.reads.extend(_READS[before:])
        del _READS[before:]


def assert_untouched(outside: Outside) -> None:
    seen = [r for r in _READS if r.startswith(str(outside.root))]
    assert not seen, f"read outside the allowed folders: {seen}"
    assert not outside.changed(), "the outside folder was written"


# -- the CLI ---------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    code: int
    output: str


def egoworld(*args: str | Path) -> Outcome:
    """Run ``egoworld ARGS`` in-process; fails the test on a Python traceback or an unhandled exception."""
    from typer.testing import CliRunner

    from egoworld.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=True)
    output = result.output + (getattr(result, "stderr", "") if _separate_stderr(result) else "")
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), f"unhandled {type(exc).__name__}: {exc}\n{output}"
    assert "Traceback" not in output, output
    return Outcome(result.exit_code, output)


def _separate_stderr(result: Any) -> bool:
    try:
        return bool(result.stderr) and result.stderr not in result.output
    except ValueError:
        return False


def refused(outcome: Outcome, *needles: str, code: int = 2) -> str:
    """Assert a clean refusal: exit ``code`` and every needle in the message (whitespace-insensitive)."""
    flat = " ".join(outcome.output.split())
    assert outcome.code == code, f"exit {outcome.code}, expected {code}:\n{outcome.output}"
    for n in needles:
        assert " ".join(n.split()) in flat, f"{n!r} not in:\n{outcome.output}"
    return flat


# -- hand-written (possibly hostile) benchmark folders ----------------------------------------------------------
CHOICES = ["left", "right", "forward", "backward"]


def sample_row(sid: str = "q0", **overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": sid,
        "benchmark": "toy",
        "task": "MC",
        "question": f"Question {sid}?",
        "answer_type": "choice",
        "choices": CHOICES,
        "answer": 0,
    }
    row.update(overrides)
    return row


def write_bench(
    root: Path,
    rows: list[dict[str, Any]] | list[str],
    *,
    tasks: dict[str, Any] | None = None,
    **manifest: Any,
) -> Path:
    """Write ``manifest.json`` + ``samples.jsonl`` by hand (rows as dicts, or raw lines), bypassing every
    check of the writer, the way a hostile or hand-edited folder would look."""
    root.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    text = "\n".join(lines) + "\n"
    (root / "samples.jsonl").write_text(text)
    doc = {
        "name": "toy",
        "egoworld_version": "0",
        "tasks": tasks
        or {
            "MC": {"answer_type": "choice", "metric": "accuracy"},
            "N": {"answer_type": "integer", "metric": "mra"},
        },
        "samples_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    doc.update(manifest)
    (root / "manifest.json").write_text(json.dumps(doc, indent=2))
    return root


@pytest.fixture
def server() -> Any:
    """A real OpenAI-compatible server on 127.0.0.1 that records every request body."""
    with FakeOpenAIServer() as srv:
        yield srv


def sent_bytes(srv: FakeOpenAIServer) -> bytes:
    """Every image / video payload the server received, decoded from its data URLs."""
    import base64

    out = []
    for body in srv.bodies:
        for m in body.get("messages", []):
            content = m.get("content")
            if not isinstance(content, list):
                continue
            for part in content:
                url = (part.get("image_url") or part.get("video_url") or {}).get("url", "")
                if url.startswith("data:"):
                    out.append(base64.b64decode(url.split(",", 1)[1]))
    return b"".join(out)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "unconfined: the case may write outside its tmp_path (e.g. a full-disk mount elsewhere)"
    )


@pytest.fixture(autouse=True)
def _confined_case(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every case runs in an empty working folder inside its own ``tmp_path``, with its own frame cache
    (a refused file can never be found in a shared one); afterwards nothing may have been written outside
    ``tmp_path`` (Python-level opens for writing, watched by the audit hook; the matplotlib and hypothesis
    caches excepted) and ``/etc/passwd`` must not have been read."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    reads, strays = len(_READS), len(_STRAY_WRITES)
    allowed = [str(tmp_path.resolve()), str(tmp_path), os.devnull]
    unconfined = request.node.get_closest_marker("unconfined") is not None
    _WRITE_ROOTS[:] = [] if unconfined else allowed + [str(Path.home() / ".cache" / "matplotlib")]
    try:
        yield
    finally:
        _WRITE_ROOTS.clear()
    system = [r for r in _READS[reads:] if r.startswith("/etc/")]
    assert not system, f"read system files: {system}"
    strays_now = _STRAY_WRITES[strays:]
    assert not strays_now, f"wrote outside the case's folder: {strays_now}"


def run_args(bench: Path, out: Path, srv: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "run",
        "--bench",
        str(bench),
        "--model",
        "openai:fake-vlm-1",
        "--base-url",
        srv.base_url,
        "--out",
        str(out),
        "--no-progress",
        *extra,
    ]
