"""Bench: the synthetic worlds' OpenGL rasteriser against the numpy ray caster it replaced, and paper-size
world sets.

1. **Speed ratio** (same run, same scenes, same frames): a sim kitchen seen by the Aria-like fisheye at
   448×448 — frames/s of `egoworld.sim.render.Renderer` and of the old ray caster, kept only here as the
   reference (``bench/raycast_reference.py``); wall clock and CPU (the machine may be shared). Target ≥ 10×.
   Also the ratio on a panorama (equirectangular 512×256) of a walk.
2. **Paper-size world sets** on 2 cores (``EGOWORLD_BENCH_PAPER=1``; off by default, it takes long): a sample
   of each set is made and timed, and the time of the whole set is the sample's time per rendered frame
   times the set's frames, divided over 2 worker processes:

   * Beyond3D: the kitchen minutes needed for 1,000 out-of-sight anchors + 1,000 controls, at the yield
     ``ANCHORS_PER_MINUTE`` measured by ``bench/build_beyond3d.py`` (448 px fisheye, 1 frame/s);
   * VSI-Super-Wild: one walk per duration group (``WALKS``; 384 px views, 1 frame/s).

   Target: each set under one hour on 2 cores. On Ray the same sets run with
   ``egoworld world synth … --executor ray --address auto`` (one task per episode).

   The rasteriser's CPU time is also split into phases (``phases``: draw calls, GL finish, read-back,
   numpy remap). Load: the one-minute load average is printed with the figures (``load_1min``).

Environment: EGOWORLD_BENCH_FRAMES (frames per speed measurement, default 24), EGOWORLD_BENCH_PAPER.
Ends with one JSON line of figures.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

# out-of-sight anchors per rendered kitchen minute that fit the balance quotas: 838 from 16 × 10 min
# (tests/test_beyond3d_fullscale.py's world); bench/build_beyond3d.py prints the current figure
ANCHORS_PER_MINUTE = 5.2
KITCHEN_MINUTES = 10.0
WALKS = ((8.0, "0-10"), (20.0, "10-30"), (45.0, "30-60"), (90.0, "60-120"), (125.0, "120+"))
CORES = 2


def _timed(fn, n: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    fn(0)  # warm up (allocations, shader compilation, caches)
    w, c = time.perf_counter(), time.process_time()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - w), n / (time.process_time() - c)


class _Timed:
    """A proxy that adds the CPU time of the named methods of ``inner`` to ``totals[key]``."""

    def __init__(self, inner: object, totals: dict[str, float], names: dict[str, str]) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_totals", totals)
        object.__setattr__(self, "_names", names)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        attr = getattr(self._inner, name)
        key = self._names.get(name)
        if key is None:
            return attr

        def timed(*args, **kw):  # type: ignore[no-untyped-def]
            c = time.process_time()
            try:
                return attr(*args, **kw)
            finally:
                self._totals[key] = self._totals.get(key, 0.0) + time.process_time() - c

        return timed

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._inner, name, value)


def phases(renderer, frames, background, n: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """CPU ms per frame of the rasteriser's phases: scene rows and draw calls (vertex work on the calling
    thread), the GL finish (rasterising and shading), the read-back, and the numpy remap onto the camera's
    pixels (with the scene/background concatenation and the sky fill)."""
    totals: dict[str, float] = {}
    renderer._ctx = _Timed(renderer._ctx, totals, {"finish": "finish"})
    renderer._fbo = _Timed(renderer._fbo, totals, {"read": "read"})
    draw = renderer._draw

    def timed_draw(*args):  # type: ignore[no-untyped-def]
        c = time.process_time()
        try:
            return draw(*args)
        finally:
            totals["draw"] = totals.get("draw", 0.0) + time.process_time() - c

    renderer._draw = timed_draw
    renderer.render(*frames[0], background)
    totals.clear()
    c = time.process_time()
    for i in range(n):
        renderer.render(*frames[i % len(frames)], background)
    total = time.process_time() - c
    ms = {
        "draw_calls": totals["draw"] - totals["finish"] - totals["read"],
        "gl_finish": totals["finish"],
        "readback": totals["read"],
        "remap": total - totals["draw"],
        "total": total,
    }
    return {k: round(v / n * 1000, 2) for k, v in ms.items()}


def speed(n: int) -> dict[str, float]:
    """Frames/s of both renderers on the same kitchen and walk frames."""
    from egoworld.sim.cameras import equirect
    from egoworld.sim.gl import renderer_name
    from egoworld.sim.kitchen import KitchenConfig, build_kitchen_episode
    from egoworld.sim.kitchen_world import KitchenWorld
    from egoworld.sim.render import Renderer
    from egoworld.sim.walk import NEAR_RADIUS, WalkConfig, WalkWorld
    from raycast_reference import RaycastRenderer

    print(f"OpenGL renderer: {renderer_name()}")
    figures: dict[str, float] = {}
    ep, sim = build_kitchen_episode("bench_kitchen", 0, KitchenConfig(minutes=3.0, fps=2.0, size=448))
    world = KitchenWorld(sim, ep)
    times = ep.poses.times_s[:: max(1, len(ep.poses) // n)][:n]
    scenes = [(world.primitives(float(t)), world.camera_pose(float(t))) for t in times]
    walk = WalkWorld("bench_walk", 0, WalkConfig(minutes=10.0))
    wt = np.linspace(5, 590, n)
    poses, _ = walk.poses(wt)
    pano = [(walk.primitives(float(t), poses[i, :3, 3]), poses[i]) for i, t in enumerate(wt)]
    for name, camera, frames, background, far in (
        ("kitchen_fisheye448", ep.camera, scenes, world.background, 200.0),
        ("walk_equirect512", equirect(512), pano, walk.background, NEAR_RADIUS),
    ):
        fps = {}
        for kind, cls in (("raster", Renderer), ("raycast", RaycastRenderer)):
            r = cls(camera, far=far)
            wall, cpu = _timed(
                lambda i, r=r, f=frames, b=background: r.render(*f[i % len(f)], b),  # type: ignore[misc]
                n,
            )
            fps[kind] = (wall, cpu)
            figures[f"{name}_{kind}_fps"] = round(wall, 2)
            figures[f"{name}_{kind}_cpu_fps"] = round(cpu, 2)
            print(f"{name:<20} {kind:<8} {wall:7.1f} frames/s wall, {cpu:7.1f} frames/s CPU")
        split = phases(Renderer(camera, far=far), frames, background, n)
        figures |= {f"{name}_raster_{k}_cpu_ms": v for k, v in split.items()}
        print(f"{name:<20} raster CPU ms per frame: " + ", ".join(f"{k} {v:.2f}" for k, v in split.items()))
        figures[f"{name}_ratio"] = round(fps["raster"][0] / fps["raycast"][0], 2)
        figures[f"{name}_ratio_cpu"] = round(fps["raster"][1] / fps["raycast"][1], 2)
        print(
            f"{name:<20} ratio    {figures[f'{name}_ratio']:.1f}× wall, {figures[f'{name}_ratio_cpu']:.1f}× CPU"
            + ("  (target ≥ 10×)" if name.startswith("kitchen") else "")
        )
    return figures


def paper_sets(tmp: Path) -> dict[str, float]:
    """Time a sample of each paper-size world set and scale it to the whole set on 2 cores."""
    from egoworld.sim.kitchen import KitchenConfig, synth_kitchen
    from egoworld.sim.walk import WalkConfig, synth_walk

    figures: dict[str, float] = {}
    # Beyond3D: kitchens of KITCHEN_MINUTES at 448 px, 1 frame/s
    kitchen_minutes = 1000 / ANCHORS_PER_MINUTE
    sample_min = 2.0
    w, c = time.perf_counter(), time.process_time()
    synth_kitchen(tmp / "k", "kitchen_000", 0, KitchenConfig(minutes=sample_min, fps=1.0, size=448))
    cpu_per_frame = (time.process_time() - c) / (sample_min * 60)
    wall_per_frame = (time.perf_counter() - w) / (sample_min * 60)
    frames = kitchen_minutes * 60
    figures["beyond3d_kitchen_minutes"] = round(kitchen_minutes, 1)
    figures["beyond3d_frames"] = int(frames)
    figures["beyond3d_set_cpu_s"] = round(cpu_per_frame * frames, 1)
    figures["beyond3d_set_2core_s"] = round(cpu_per_frame * frames / CORES, 1)
    print(
        f"Beyond3D set: {kitchen_minutes:.0f} kitchen minutes ({frames:.0f} frames at 448 px, 1 frame/s): "
        f"{cpu_per_frame * 1000:.0f} ms CPU per frame ({wall_per_frame * 1000:.0f} ms wall here) → "
        f"{figures['beyond3d_set_2core_s'] / 60:.1f} min on {CORES} cores (target < 60)"
    )
    # VSI-Super-Wild: one walk per duration group, 384 px views, 1 frame/s; a 1-minute sample
    w, c = time.perf_counter(), time.process_time()
    synth_walk(tmp / "w", "walk_000", 0, WalkConfig(minutes=1.0, fps=1.0))
    cpu_per_frame = (time.process_time() - c) / 60
    walk_frames = sum(m for m, _ in WALKS) * 60
    figures["vsi_walk_minutes"] = sum(m for m, _ in WALKS)
    figures["vsi_set_cpu_s"] = round(cpu_per_frame * walk_frames, 1)
    # the longest walk bounds the wall time when walks run in parallel
    figures["vsi_set_2core_s"] = round(
        max(cpu_per_frame * walk_frames / CORES, cpu_per_frame * max(m for m, _ in WALKS) * 60), 1
    )
    print(
        f"VSI-Super-Wild set: walks of {', '.join(f'{m:g}' for m, _ in WALKS)} min "
        f"({walk_frames:.0f} frames: 512×256 panorama + four 384×384 views): "
        f"{cpu_per_frame * 1000:.0f} ms CPU per frame → {figures['vsi_set_2core_s'] / 60:.1f} min on {CORES} cores "
        f"(target < 60)"
    )
    return figures


def main() -> None:
    n = int(os.environ.get("EGOWORLD_BENCH_FRAMES", "24"))
    figures = speed(n)
    if os.environ.get("EGOWORLD_BENCH_PAPER"):
        with tempfile.TemporaryDirectory() as tmp:
            figures |= paper_sets(Path(tmp))
    figures["load_1min"] = round(os.getloadavg()[0], 2)
    figures["cores"] = os.cpu_count() or 0
    print(json.dumps({"bench": "sim_render", "frames": n, **figures}, sort_keys=True))


if __name__ == "__main__":
    main()
