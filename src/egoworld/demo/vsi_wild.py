"""Synthetic walks in every duration group (one ≥ 120 min), the benchmark built from them, the baselines with
Shuffle24, and the report. The demo's walks keep full-size 384×384 views and stay cheap by rendering few
frames (`DEMO_FRAME_SCALE` of `WALKS`' frame rates: very low ones for the long walks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from egoworld.sim.walk.synth import WalkConfig

#: (episode id, minutes, fps): one walk per duration group; about 180–375 frames each
WALKS: tuple[tuple[str, float, float], ...] = (
    ("walk_06min", 6.0, 0.5),
    ("walk_15min", 15.0, 0.2),
    ("walk_40min", 40.0, 0.1),
    ("walk_75min", 75.0, 0.05),
    ("walk_125min", 125.0, 0.05),
)
DEMO_FRAME_SCALE = 0.35
#: questions per task: 40 × 4 tasks × Shuffle24 per baseline (VPO renders four images per question); every
#: task and duration group keeps questions (each correct letter 10 times), at half the rendering and requests
#: of 80
DEMO_PER_TASK = 40
DEMO_MODELS = ("random", "prior", "oracle")


def walk_config(minutes: float, fps: float, pano_width: int = 256, view_size: int = 384) -> WalkConfig:
    """Demo walk settings: ``pano_width``-wide panorama, ``view_size`` views, instances from 3 pixels."""
    return WalkConfig(minutes=minutes, fps=fps, pano_width=pano_width, view_size=view_size, min_pixels=3)


def synth_walks(
    folder: str | Path,
    seed: int = 0,
    pano_width: int = 256,
    view_size: int = 384,
    frame_scale: float = 1.0,
    count: int = len(WALKS),
) -> list[Path]:
    """Synthesise the first ``count`` of `WALKS` (frame rates times ``frame_scale``) under ``folder`` (walks
    already there are kept)."""
    from egoworld.sim.walk.synth import synth_walk

    out = []
    for ep, minutes, fps in WALKS[:count]:
        path = Path(folder) / ep
        if not (path / "episode.json").is_file():
            synth_walk(path, ep, seed, walk_config(minutes, fps * frame_scale, pano_width, view_size))
        out.append(path)
    return out


def run_demo(out: str | Path, *, per_task: int = DEMO_PER_TASK, say: Callable[[str], None] = print) -> Path:
    """Walks, benchmark, baseline runs and their report under ``out``; returns the report's index.html."""
    from egoworld.report.build import build_report

    return build_report(demo_runs(out, per_task=per_task, say=say), Path(out) / "report")


def demo_runs(
    out: str | Path,
    *,
    per_task: int = DEMO_PER_TASK,
    say: Callable[[str], None] = print,
    walks: int = len(WALKS),
) -> list[Path]:
    """Walks, benchmark and the baselines (128 uniform frames, Shuffle24) under ``out``; returns the runs."""
    from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig
    from egoworld.core.run_config import RunConfig
    from egoworld.render.tables import summary_line
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    out = Path(out)
    say("synthesising walks")
    synth_walks(out / "worlds", frame_scale=DEMO_FRAME_SCALE, count=walks)
    report = build_vsi_wild([out / "worlds"], out / "bench", BuildConfig(per_task=per_task), say=say)
    for line in report.lines():
        say(line)
    runs = []
    for model in DEMO_MODELS:
        run_dir = out / "runs" / model
        cfg = RunConfig(
            bench=out / "bench",
            model=model,
            out=run_dir,
            permutations="shuffle24",
            setting="frames",
            frames=128,
            progress=False,
            concurrency=4,
        )
        say(run_benchmark(cfg).line(model))
        say(f"{model}: {summary_line(score_run(run_dir))}")
        runs.append(run_dir)
    return runs
