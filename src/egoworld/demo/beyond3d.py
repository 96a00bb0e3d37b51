"""The Beyond3D part of the demo: rendered sim kitchens → benchmark → random / prior / oracle → report.

The kitchens come from the simulator (`egoworld.sim.kitchen.synth`, rendered to video with exact visibility);
the baselines run text-only on the whole benchmark and in the video + text and last frame + text settings
on a smaller one built from the same kitchens. The demo keeps its time budget by rendering fewer minutes
(`egoworld.demo.size`), not smaller images.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from egoworld.demo.size import FULL, DemoSize

SETTINGS = {
    "text": {"setting": "text"},
    "video+text": {
        "setting": "frames",
        "frame_policy": "fps-end:1",
        "frames": 600,
        "overlays": "fisheye=0.9,timestamp",
    },
    "last-frame+text": {"setting": "last-frame", "frame_policy": "last", "overlays": "fisheye=0.9"},
}
#: the rendered kitchens' frame rate and size (their number and length: `egoworld.demo.size.DemoSize`)
DEMO_KITCHENS = {"fps": 1.0, "size": 224}


def run_demo(
    out: str | Path,
    *,
    anchors: int = 80,
    controls: int = 80,
    sim: bool = True,
    say: Callable[[str], None] = print,
    size: DemoSize = FULL,
) -> Path:
    """Write worlds, benchmarks, runs and a report under ``out``; returns the report's ``index.html``."""
    from egoworld.report.build import build_report

    runs = demo_runs(out, anchors=anchors, controls=controls, sim=sim, say=say, size=size)
    index = build_report(runs, Path(out) / "report-beyond3d")
    say(f"report: {index}")
    return index


def demo_runs(
    out: str | Path,
    *,
    anchors: int = 80,
    controls: int = 80,
    sim: bool = True,
    say: Callable[[str], None] = print,
    size: DemoSize = FULL,
) -> list[Path]:
    """Worlds, benchmarks and baseline runs under ``out``; returns the run folders. ``sim=False`` skips the
    video and last-frame settings (the kitchens are rendered either way)."""
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    out = Path(out)
    runs: list[Path] = []
    worlds = out / "worlds"
    k = DEMO_KITCHENS
    cfg = KitchenConfig(minutes=size.kitchen_minutes, fps=k["fps"], size=int(k["size"]))
    synth_world_set("kitchen", worlds, size.kitchens, 0, cfg)
    bench = out / "bench" / "all-settings"
    build = BuildConfig(anchors=anchors, controls=controls, detections="none")
    for line in build_beyond3d([worlds], bench, build).lines():
        say(line)
    for model in ("random", "prior", "oracle"):
        run_dir = out / "runs" / f"{model}-text"
        run_benchmark(RunConfig(bench=bench, model=model, out=run_dir, progress=False))
        runs.append(run_dir)
    if sim:
        sim_bench = out / "bench" / "video"
        for line in build_beyond3d(
            [worlds],
            sim_bench,
            BuildConfig(anchors=size.video_anchors, controls=size.video_anchors, detections="none"),
        ).lines():
            say(line)
        for name, opts in SETTINGS.items():
            if name == "text":
                continue
            for model in ("random", "oracle"):
                run_dir = out / "runs" / f"{model}-{name}"
                run_benchmark(RunConfig(bench=sim_bench, model=model, out=run_dir, progress=False, **opts))
                runs.append(run_dir)
    return runs
