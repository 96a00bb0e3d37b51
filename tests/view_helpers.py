"""A demo-sized benchmark with real videos, listed frames and an image, and runs over it, for the
`egoworld view` tests; plus starting `egoworld view` as a subprocess and driving Debian's chromium."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from egoworld.core.folders.bench_folder import load_benchmark, save_benchmark
from egoworld.core.model import Generation, Model, Request
from egoworld.core.schema import FrameInput, ImageInput, Media, Sample, TaskInfo, Trajectory, VideoInput
from egoworld.solvers.oracle import OracleModel

DIRECTIONS = ("front-left", "front-right", "back-left", "back-right")
XSS = "<script>window.__xss=1</script>"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def make_view_bench(root: Path, *, name: str = "viewtoy", xss: bool = False) -> Path:
    """Three 10 s videos; task DIR (4 options, clip ends at the query time, a marked listed frame, a
    trajectory of two steps per video) and task COUNT (integers, with an image)."""
    from PIL import Image

    from egoworld.media.testvideo import write_counter_video

    (root / "videos").mkdir(parents=True, exist_ok=True)
    for v in range(3):
        write_counter_video(root / f"videos/v{v}.mp4", frames=300, gop=30, size=(128, 96), seed=v)
    Image.new("RGB", (64, 48), (30, 120, 200)).save(root / "scene.png")
    samples = []
    for i in range(12):
        v = i % 3
        q = 3.0 + 0.5 * i
        step = i // 3 % 2
        samples.append(
            Sample(
                id=f"dir-{i:02d}",
                benchmark=name,
                task="DIR",
                episode=f"v{v}",
                cluster=f"v{v}",
                question=(XSS if xss and i == 0 else "") + f"At {q:.1f} s, where is the mug relative to you?",
                answer_type="choice",
                choices=DIRECTIONS,
                answer=i % 4,
                media=Media(
                    video=VideoInput(path=f"videos/v{v}.mp4", start_s=0.0, end_s=q),
                    frames=(
                        FrameInput(time_s=q, role="last_frame", marker=(40.0, 30.0), label="Query frame"),
                    ),
                ),
                trajectory=Trajectory(
                    id=f"t{i}" if step == 0 else f"t{i - 3}",
                    step=step,
                    depends_on=() if step == 0 else (f"dir-{i - 3:02d}",),
                ),
                metadata={"horizon_bucket": "short" if i % 2 else "long"},
            )
        )
    for i in range(6):
        samples.append(
            Sample(
                id=f"count-{i:02d}",
                benchmark=name,
                task="COUNT",
                episode=f"v{i % 3}",
                cluster=f"v{i % 3}",
                question=f"How many objects appear in the clip {i}?",
                answer_type="integer",
                answer=i + 2,
                media=Media(
                    video=VideoInput(path=f"videos/v{i % 3}.mp4", end_s=9.0),
                    images=(ImageInput(path="scene.png"),),
                ),
            )
        )
    tasks = {
        "DIR": TaskInfo(answer_type="choice", metric="accuracy", chance=25.0),
        "COUNT": TaskInfo(answer_type="integer", metric="mra"),
    }
    save_benchmark(root, name=name, tasks=tasks, samples=samples, seed=0)
    return root


class Scripted(Model):
    """Replies with a fixed text per sample (``replies``), else the gold reply (the oracle solver's, once
    `run_model` gave it the benchmark); a name of our choosing."""

    backend = "test"

    def __init__(self, name: str, replies: dict[str, str] | None = None):
        self._name = name
        self.replies = replies or {}
        self.oracle: OracleModel | None = None

    def identity(self):
        return {"backend": "test", "model": self._name}

    async def generate(self, request: Request) -> Generation:
        gold = self.oracle.gold(request) if self.oracle is not None else None
        return Generation(text=self.replies.get(request.sample_id, gold or "A"), served_model=self._name)


def run_model(bench: Path, out: Path, model: str, *, scripted: Scripted | None = None, **kw) -> Path:
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    cfg = RunConfig(bench=bench, model=model, out=out, concurrency=2, progress=False, **kw)
    if scripted is not None:
        scripted.oracle = OracleModel(load_benchmark(bench))
    run_benchmark(cfg, model=scripted)
    score_run(out)
    return out


def start_view(
    args: list[str], *, env: dict | None = None, timeout: float = 60
) -> tuple[subprocess.Popen, str]:
    """Start `egoworld view ARGS --port 0`; returns the process and the URL it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "egoworld.cli", "view", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    deadline = time.time() + timeout
    lines = []
    assert proc.stdout is not None
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"(http://\S+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("egoworld view did not start:\n" + "".join(lines))


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")
