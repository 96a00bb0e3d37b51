"""Bench: frames rendered per second by the synthetic worlds' ray caster (numpy, one process).

Measures, on scenes the generators really make:

* kitchen, Aria-like fisheye 448×448 — render only, and the whole per-frame pipeline of `synth_kitchen`
  (render + H.264 encode + visibility statistics);
* kitchen, pinhole 640×480 — render only;
* walk, equirectangular 512×256 — render only, and the pipeline of `synth_walk` (panorama + four 128×128
  view videos + per-view instance counts);
* action scene initial image, pinhole 640×480.

Prints wall-clock and CPU frames per second (the machine may be shared) and ends with one JSON line.
Environment: EGOWORLD_BENCH_FRAMES (frames per measurement, default 40).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def _timed(fn, n: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    fn(0)  # warm up (allocations, caches)
    w, c = time.perf_counter(), time.process_time()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - w), n / (time.process_time() - c)


def main() -> None:
    from egoworld.sim.actions import ActionConfig, synth_action_scene
    from egoworld.sim.kitchen import KitchenConfig, build_kitchen_episode, synth_kitchen
    from egoworld.sim.kitchen_world import KitchenWorld
    from egoworld.sim.render import Renderer
    from egoworld.sim.walk import WalkConfig, WalkWorld, synth_walk

    n = int(os.environ.get("EGOWORLD_BENCH_FRAMES", "40"))
    figures: dict[str, float] = {}

    ep, sim = build_kitchen_episode("bench_kitchen", 0, KitchenConfig(minutes=3.0, fps=2.0))
    world = KitchenWorld(sim, ep)
    times = ep.poses.times_s[:: max(1, len(ep.poses) // n)][:n]
    for name, camera in (("kitchen_fisheye448", ep.camera), ("kitchen_pinhole640", None)):
        if camera is None:
            from egoworld.sim.cameras import pinhole

            camera = pinhole(640, 480, 90.0)
        r = Renderer(camera)
        wall, cpu = _timed(lambda i, r=r: world.render(r, float(times[i % len(times)])), n)
        figures[f"{name}_render_fps"] = round(wall, 2)
        figures[f"{name}_render_cpu_fps"] = round(cpu, 2)
        print(f"{name:<24} render  {wall:6.1f} frames/s wall, {cpu:6.1f} frames/s CPU")

    walk = WalkWorld("bench_walk", 0, WalkConfig(minutes=10.0))
    from egoworld.sim.cameras import equirect

    cam = equirect(512)
    r = Renderer(cam, far=90.0)
    wt = np.linspace(5, 590, n)
    poses, _ = walk.poses(wt)
    wall, cpu = _timed(
        lambda i: r.render(walk.primitives(float(wt[i]), poses[i, :3, 3]), poses[i], walk.background), n
    )
    figures["walk_equirect512_render_fps"] = round(wall, 2)
    figures["walk_equirect512_render_cpu_fps"] = round(cpu, 2)
    print(f"{'walk_equirect512':<24} render  {wall:6.1f} frames/s wall, {cpu:6.1f} frames/s CPU")

    with tempfile.TemporaryDirectory() as tmp:
        for name, run, frames in (
            (
                "kitchen_fisheye448",
                lambda: synth_kitchen(
                    Path(tmp) / "k", "k", 0, KitchenConfig(minutes=n / 60.0 + 0.7, fps=1.0)
                ),
                None,
            ),
            (
                "walk_equirect512",
                lambda: synth_walk(Path(tmp) / "w", "w", 0, WalkConfig(minutes=n / 60.0, fps=1.0)),
                n,
            ),
        ):
            w, c = time.perf_counter(), time.process_time()
            run()
            count = frames or int(round((n / 60.0 + 0.7) * 60))
            wall, cpu = count / (time.perf_counter() - w), count / (time.process_time() - c)
            figures[f"{name}_pipeline_fps"] = round(wall, 2)
            figures[f"{name}_pipeline_cpu_fps"] = round(cpu, 2)
            print(
                f"{name:<24} pipeline {wall:5.1f} frames/s wall, {cpu:6.1f} frames/s CPU (render, encode, ground truth)"
            )
        w, c = time.perf_counter(), time.process_time()
        k = max(3, n // 8)
        for i in range(k):
            synth_action_scene(Path(tmp) / f"a{i}", f"a{i}", 0, ActionConfig(partition="short"))
        wall, cpu = k / (time.perf_counter() - w), k / (time.process_time() - c)
        figures["action_scenes_per_s"] = round(wall, 2)
        figures["action_scenes_cpu_per_s"] = round(cpu, 2)
        print(
            f"{'action scenes':<24} {wall:6.1f} scenes/s wall, {cpu:6.1f} scenes/s CPU (simulate + render the initial image)"
        )
    print(json.dumps({"bench": "sim_render", "frames": n, **figures}, sort_keys=True))


if __name__ == "__main__":
    main()
