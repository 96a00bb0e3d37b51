"""The Beyond3D part of the demo: synthetic kitchens → benchmark → random / prior / oracle → report.

Text-only runs use cheap synthetic kitchens (`egoworld.benchmarks.beyond3d.synthetic`, no video). When the
simulator (`egoworld.sim`) and PyAV are installed, a second benchmark is built from rendered sim kitchens
and the baselines also run in the video + text and last frame + text settings.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

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


def run_demo(
    out: str | Path,
    *,
    anchors: int = 200,
    controls: int = 200,
    sim: bool = True,
    say: Callable[[str], None] = print,
) -> Path:
    """Write worlds, benchmarks, runs and a report under ``out``; returns the report's ``index.html``."""
    from egoworld.report.build import build_report

    runs = demo_runs(out, anchors=anchors, controls=controls, sim=sim, say=say)
    index = build_report(runs, Path(out) / "report-beyond3d")
    say(f"report: {index}")
    return index


def demo_runs(
    out: str | Path,
    *,
    anchors: int = 200,
    controls: int = 200,
    sim: bool = True,
    say: Callable[[str], None] = print,
) -> list[Path]:
    """Worlds, benchmarks and baseline runs under ``out``; returns the run folders."""
    from egoworld.benchmarks.beyond3d.build import BuildConfig, build_beyond3d
    from egoworld.benchmarks.beyond3d.synthetic import SynthConfig, write_world
    from egoworld.runner.config import RunConfig
    from egoworld.runner.run import run_benchmark

    out = Path(out)
    runs: list[Path] = []
    worlds = out / "worlds" / "synthetic"
    if not worlds.is_dir():
        write_world(worlds, kitchens=4, episodes_per_kitchen=5, seed=0, cfg=SynthConfig(), detector=None)
    bench = out / "beyond3d"
    for line in build_beyond3d([worlds], bench, BuildConfig(anchors=anchors, controls=controls)).lines():
        say(line)
    for model in ("random", "prior", "oracle"):
        run_dir = out / "runs" / f"beyond3d-{model}-text"
        run_benchmark(RunConfig(bench=bench, model=model, out=run_dir, progress=False))
        runs.append(run_dir)
    if sim and importlib.util.find_spec("egoworld.sim.kitchen") and importlib.util.find_spec("av"):
        from egoworld.sim.kitchen import KitchenConfig, synth_kitchen

        sim_worlds = out / "worlds" / "sim"
        for i in range(2):
            folder = sim_worlds / f"kitchen_{i:03d}"
            if not (folder / "episode.json").is_file():
                synth_kitchen(folder, f"kitchen_{i:03d}", i, KitchenConfig(minutes=3.0, size=224, objects=24))
        sim_bench = out / "beyond3d-sim"
        for line in build_beyond3d(
            [sim_worlds], sim_bench, BuildConfig(anchors=20, controls=20, detections="none")
        ).lines():
            say(line)
        for name, opts in SETTINGS.items():
            for model in ("random", "oracle"):
                run_dir = out / "runs" / f"beyond3d-sim-{model}-{name}"
                run_benchmark(RunConfig(bench=sim_bench, model=model, out=run_dir, progress=False, **opts))
                runs.append(run_dir)
    return runs
