"""Bench: the synthetic worlds' OpenGL rasteriser against the numpy ray caster it replaced, and paper-size
world sets.

1. **Speed ratio** (same run, same scenes, same frames): a sim kitchen seen by the Aria-like fisheye at
   448×448 — frames/s of `egoworld.sim.render.renderer.Renderer` and of the old ray caster, kept only here as the
   reference (``bench/raycast_reference.py``); wall clock and CPU (the machine may be shared), each after a
   first pass over the same frames (``*_first_pass_cpu_fps``: that pass, shader compilation included), and
   ``*_ratio_cpu_paired``: both renderers alternated frame by frame (the same load for both). Target ≥ 10×,
   judged on ``kitchen_fisheye448_ratio_cpu_rounds``: the median over rounds of (ray caster, rasteriser)
   blocks of the same frames rendered back to back, as a video renders them (the speed of this shared
   machine drifts by a third within minutes; a round sees one state of it for both). The rasteriser runs as
   the world sets' worker processes run it, llvmpipe rasterising on the calling thread
   (`egoworld.sim.render.gl.one_rasteriser_thread`: ``LP_NUM_THREADS=0``, unless set); the same rounds with
   llvmpipe's own threads (a lone process's default) are measured in a child process
   (``*_default_threads_ratio_cpu_rounds``). Also the ratio on a panorama (equirectangular 512×256) of a
   walk.
2. **Where an episode's time goes** (``EGOWORLD_BENCH_PAPER=1``): CPU shares of render, video encode,
   masks / visibility, writing and the rest in a 1-minute kitchen and a 1-minute walk.
3. **Paper-size world sets, actually made** (``EGOWORLD_BENCH_PAPER=1``; off by default, it takes long):
   `egoworld.sim.paper_sets` — VSI-Super-Wild's walks of 8, 20, 45, 90 and 125 min (panorama + four 384 px
   views, 1 frame/s) and Beyond3D's 10-minute 448 px fisheye kitchens, as many as the Beyond3D builder needs
   to deliver 1,000 out-of-sight anchors + 1,000 controls (it is run on them, and kitchens are added while it
   falls short) — made with 2 processes, then again on Ray with 2 local workers (the same files, checked
   byte for byte). The sets live in a folder later runs resume (finished episodes are skipped).
   ``EGOWORLD_BENCH_PAPER_SCALE`` (e.g. 0.1) makes proportional smaller sets; then the full sets' minutes
   are also given as an estimate (``*_full_est_min`` = measured ÷ scale), named as such. Target: < 60 min on
   2 cores.

   The rasteriser's CPU time is also split into phases (``phases``: draw calls, GL finish, read-back,
   numpy remap). Load: the one-minute load average is printed with the figures (``load_1min``).

Environment: EGOWORLD_BENCH_FRAMES (frames per speed measurement, default 24), EGOWORLD_BENCH_ROUNDS (rounds
of the kitchen ratio, default 5), EGOWORLD_BENCH_SKIP_SPEED (skip part 1), EGOWORLD_BENCH_PAPER, EGOWORLD_BENCH_PAPER_SCALE (default 1), EGOWORLD_BENCH_PAPER_DIR (default
<tmp>/egoworld-bench-paper-<scale>), EGOWORLD_BENCH_PAPER_RAY (0: skip the Ray run).
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

CORES = 2


def _timed(fn, n: int) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """Frames/s wall and CPU over frames 0..n-1, after a first pass over the same frames (allocations, caches,
    and the rasteriser's shader variants: llvmpipe compiles one the first time a frame needs it — a pattern,
    lamp, haze and shape not seen before — about 5-10 ms each, once per process); and the first pass's CPU
    frames/s (what a 24-frame run measured before 2026-12-06, when only frame 0 was rendered first)."""
    c = time.process_time()
    for i in range(n):
        fn(i)
    first = n / (time.process_time() - c)
    w, c = time.perf_counter(), time.process_time()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - w), n / (time.process_time() - c), first


def _paired(fns: dict[str, object], n: int) -> dict[str, float]:
    """CPU s per frame of each renderer with the renderers alternated frame by frame (the fairest comparison
    on a shared machine: both see the same load); run after `_timed` has warmed them up."""
    totals = dict.fromkeys(fns, 0.0)
    for i in range(n):
        for name, fn in fns.items():
            c = time.process_time()
            fn(i)  # type: ignore[operator]
            totals[name] += time.process_time() - c
    return {k: v / n for k, v in totals.items()}


def _rounds(fns: dict[str, object], n: int, rounds: int) -> dict[str, float]:
    """The ray caster's CPU per frame over the rasteriser's, frames 0..n-1 of each rendered back to back (as a
    video renders them), in rounds of raster, ray caster, raster blocks (the ray caster's block against the
    mean of the two around it: the state of a shared machine drifts, a round sees one state for both):
    the rounds' median, min and max, and the median CPU ms per frame of each; run after `_timed` warmed up."""

    def block(fn) -> float:  # type: ignore[no-untyped-def]
        c = time.process_time()
        for i in range(n):
            fn(i)
        return (time.process_time() - c) / n * 1000

    raster, ray, ratios = [], [], []
    for _ in range(rounds):
        a = block(fns["raster"])
        b = block(fns["raycast"])
        a = (a + block(fns["raster"])) / 2
        raster.append(a)
        ray.append(b)
        ratios.append(b / a)
    return {
        "ratio_cpu_rounds": round(float(np.median(ratios)), 2),
        "ratio_cpu_rounds_min": round(min(ratios), 2),
        "ratio_cpu_rounds_max": round(max(ratios), 2),
        "raster_rounds_cpu_ms": round(float(np.median(raster)), 2),
        "raycast_rounds_cpu_ms": round(float(np.median(ray)), 2),
    }


def _kitchen_frames(n: int):  # type: ignore[no-untyped-def]
    """The bench kitchen (seed 0, 3 min, 448 px Aria-like fisheye): its camera, n frames spread over it
    (primitives, pose) and its background."""
    from egoworld.sim.kitchen.synth import KitchenConfig, build_kitchen_episode
    from egoworld.sim.kitchen.world import KitchenWorld

    ep, sim = build_kitchen_episode("bench_kitchen", 0, KitchenConfig(minutes=3.0, fps=2.0, size=448))
    world = KitchenWorld(sim, ep)
    times = ep.poses.times_s[:: max(1, len(ep.poses) // n)][:n]
    return (
        ep.camera,
        [(world.primitives(float(t)), world.camera_pose(float(t))) for t in times],
        world.background,
    )


def kitchen_rounds(n: int, rounds: int) -> dict[str, float]:
    """Only the kitchen ratio in rounds (`_rounds`), in this process's llvmpipe threading."""
    from egoworld.sim.render.renderer import Renderer
    from raycast_reference import RaycastRenderer

    camera, frames, background = _kitchen_frames(n)
    fns = {}
    for kind, cls in (("raster", Renderer), ("raycast", RaycastRenderer)):
        r = cls(camera, far=200.0)
        fns[kind] = lambda i, r=r: r.render(*frames[i % len(frames)], background)  # type: ignore[misc]
        _timed(fns[kind], n)
    return _rounds(fns, n, rounds)


def default_threads_rounds(n: int, rounds: int) -> dict[str, float]:
    """`kitchen_rounds` in a child process with llvmpipe's own threads (``LP_NUM_THREADS`` unset)."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "LP_NUM_THREADS"}
    env["EGOWORLD_BENCH_KITCHEN_ROUNDS_ONLY"] = "1"
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve())], env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


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
    renderer._fbo = _Timed(renderer._fbo, totals, {"read": "read", "read_into": "read"})
    draw = renderer._draw

    def timed_draw(*args):  # type: ignore[no-untyped-def]
        c = time.process_time()
        try:
            return draw(*args)
        finally:
            totals["draw"] = totals.get("draw", 0.0) + time.process_time() - c

    renderer._draw = timed_draw
    for frame in frames[:n]:  # warm up on every frame (shader variants compile on first use)
        renderer.render(*frame, background)
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
    from egoworld.sim.render.gl import renderer_name
    from egoworld.sim.render.renderer import Renderer
    from egoworld.sim.walk.synth import NEAR_RADIUS, WalkConfig, WalkWorld
    from egoworld.sim.world_cameras import equirect
    from raycast_reference import RaycastRenderer

    threads = os.environ.get("LP_NUM_THREADS", "llvmpipe's default")
    print(f"OpenGL renderer: {renderer_name()}, LP_NUM_THREADS={threads}")
    figures: dict[str, float] = {}
    kitchen_camera, scenes, kitchen_background = _kitchen_frames(n)
    walk = WalkWorld("bench_walk", 0, WalkConfig(minutes=10.0))
    wt = np.linspace(5, 590, n)
    poses, _ = walk.poses(wt)
    pano = [(walk.primitives(float(t), poses[i, :3, 3]), poses[i]) for i, t in enumerate(wt)]
    for name, camera, frames, background, far in (
        ("kitchen_fisheye448", kitchen_camera, scenes, kitchen_background, 200.0),
        ("walk_equirect512", equirect(512), pano, walk.background, NEAR_RADIUS),
    ):
        fps, render = {}, {}
        for kind, cls in (("raster", Renderer), ("raycast", RaycastRenderer)):
            r = cls(camera, far=far)
            render[kind] = lambda i, r=r, f=frames, b=background: r.render(*f[i % len(f)], b)  # type: ignore[misc]
            wall, cpu, first = _timed(render[kind], n)
            fps[kind] = (wall, cpu, first)
            figures[f"{name}_{kind}_fps"] = round(wall, 2)
            figures[f"{name}_{kind}_cpu_fps"] = round(cpu, 2)
            figures[f"{name}_{kind}_first_pass_cpu_fps"] = round(first, 2)
            print(
                f"{name:<20} {kind:<8} {wall:7.1f} frames/s wall, {cpu:7.1f} frames/s CPU "
                f"(first pass {first:.1f})"
            )
        paired = _paired(render, n)
        figures[f"{name}_ratio_cpu_paired"] = round(paired["raycast"] / paired["raster"], 2)
        if name.startswith("kitchen"):
            rounds = _rounds(render, n, int(os.environ.get("EGOWORLD_BENCH_ROUNDS", "5")))
            figures |= {f"{name}_{k}": v for k, v in rounds.items()}
        split = phases(Renderer(camera, far=far), frames, background, n)
        figures |= {f"{name}_raster_{k}_cpu_ms": v for k, v in split.items()}
        print(f"{name:<20} raster CPU ms per frame: " + ", ".join(f"{k} {v:.2f}" for k, v in split.items()))
        figures[f"{name}_ratio"] = round(fps["raster"][0] / fps["raycast"][0], 2)
        figures[f"{name}_ratio_cpu"] = round(fps["raster"][1] / fps["raycast"][1], 2)
        figures[f"{name}_ratio_cpu_first_pass"] = round(fps["raster"][2] / fps["raycast"][2], 2)
        print(
            f"{name:<20} ratio    {figures[f'{name}_ratio']:.1f}× wall, {figures[f'{name}_ratio_cpu']:.1f}× CPU, "
            f"{figures[f'{name}_ratio_cpu_paired']:.1f}× CPU paired (frames alternated: "
            f"{paired['raster'] * 1000:.2f} against {paired['raycast'] * 1000:.1f} ms)"
        )
        if name.startswith("kitchen"):
            print(
                f"{name:<20} ratio    {figures[f'{name}_ratio_cpu_rounds']:.1f}× CPU, the median of "
                f"{os.environ.get('EGOWORLD_BENCH_ROUNDS', '5')} rounds (min "
                f"{figures[f'{name}_ratio_cpu_rounds_min']:.1f}×, max {figures[f'{name}_ratio_cpu_rounds_max']:.1f}×; "
                f"{figures[f'{name}_raster_rounds_cpu_ms']:.2f} against {figures[f'{name}_raycast_rounds_cpu_ms']:.1f} "
                f"ms per frame, LP_NUM_THREADS={threads})  (target ≥ 10×)"
            )
    if os.environ.get("LP_NUM_THREADS") == "0":
        other = default_threads_rounds(n, int(os.environ.get("EGOWORLD_BENCH_ROUNDS", "5")))
        figures |= {f"kitchen_fisheye448_default_threads_{k}": v for k, v in other.items()}
        print(
            f"{'kitchen_fisheye448':<20} ratio    {other['ratio_cpu_rounds']:.1f}× CPU with llvmpipe's own threads "
            f"(a child process; min {other['ratio_cpu_rounds_min']:.1f}×, max {other['ratio_cpu_rounds_max']:.1f}×; "
            f"{other['raster_rounds_cpu_ms']:.2f} against {other['raycast_rounds_cpu_ms']:.1f} ms per frame)"
        )
    return figures


def _timers(targets: list[tuple[object, str, str]]) -> tuple[dict[str, float], list]:  # type: ignore[type-arg]
    """Wrap ``getattr(owner, attr)`` with a CPU-time accumulator under ``phase``; returns (totals, undo)."""
    totals: dict[str, float] = {}
    undo = []
    for owner, attr, phase in targets:
        fn = getattr(owner, attr)
        totals.setdefault(phase, 0.0)

        def timed(*a, _fn=fn, _phase=phase, **k):  # type: ignore[no-untyped-def]
            c = time.process_time()
            try:
                return _fn(*a, **k)
            finally:
                totals[_phase] += time.process_time() - c

        setattr(owner, attr, timed)
        undo.append((owner, attr, fn))
    return totals, undo


def profile_episodes(tmp: Path) -> dict[str, float]:
    """Where one episode's CPU time goes (render, video encode, masks / visibility, the scene's primitives,
    simulated detections, writing, the rest — e.g. object states, per-frame bookkeeping): a
    1-minute kitchen (448 px fisheye, 1 frame/s) and a 1-minute walk (panorama + four 384 px views)."""
    from egoworld.media.writer import VideoWriter
    from egoworld.sim.kitchen.synth import KitchenConfig, synth_kitchen
    from egoworld.sim.kitchen.synth import synth as kitchen
    from egoworld.sim.kitchen.world import KitchenWorld
    from egoworld.sim.render.renderer import Renderer
    from egoworld.sim.walk.synth import WalkConfig, synth_walk
    from egoworld.sim.walk.synth import synth as walk

    encode = [(VideoWriter, "write", "encode"), (VideoWriter, "close", "encode")]
    write = [(m, f, "write") for m in (kitchen, walk) for f in ("save_npz", "write_jsonl", "save_episode")]
    figures: dict[str, float] = {}
    for name, masks, run in (
        (
            "kitchen",
            [
                (kitchen, f, "masks")
                for f in ("pixel_counts", "bounding_boxes", "center_codes", "world_to_camera")
            ]
            + [(KitchenWorld, "primitives", "scene"), (kitchen, "simulate_detections", "detections")],
            lambda: synth_kitchen(
                tmp / "pk", "kitchen_000", 0, KitchenConfig(minutes=1.0, fps=1.0, size=448)
            ),
        ),
        (
            "walk",
            [
                (walk, "id_boxes", "masks"),
                (walk, "_appearances", "masks"),
                (walk.WalkWorld, "primitives", "scene"),
            ]
            + [(walk, "frame_detections", "detections")],
            lambda: synth_walk(tmp / "pw", "walk_000", 0, WalkConfig(minutes=1.0, fps=1.0)),
        ),
    ):
        # no timed function calls another (KitchenWorld.render evaluates primitives before Renderer.render)
        totals, undo = _timers([(Renderer, "render", "render"), *encode, *masks, *write])
        c = time.process_time()
        try:
            run()
        finally:
            for owner, attr, fn in reversed(undo):
                setattr(owner, attr, fn)
        total = time.process_time() - c
        totals["other"] = total - sum(totals.values())
        shares = ", ".join(f"{k} {v / total:.0%}" for k, v in totals.items())
        print(
            f"profile {name}: {total:.1f} s CPU for 60 frames ({total / 60 * 1000:.0f} ms per frame): {shares}"
        )
        figures[f"profile_{name}_ms_per_frame"] = round(total / 60 * 1000, 1)
        for k, v in totals.items():
            figures[f"profile_{name}_{k}_share"] = round(v / total, 3)
    return figures


def paper_sets(root: Path, scale: float, ray: bool) -> dict[str, object]:
    """Make the paper-size world sets (``scale`` × the paper's, 1 = the real sets) with 2 processes, count the
    Beyond3D anchors they hold (kitchens are added while the builder falls short), then again on Ray with 2
    local workers when ``ray``. Figures are measured, never extrapolated, except the ``*_est_min`` ones:
    ``*_full_est_min`` (a scaled run's wall time × 1 / scale) and ``paper_sets_quiet_2core_est_min`` (the CPU
    time of this process and its workers ÷ 2 cores ÷ scale: the wall time on an otherwise idle machine)."""
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
    from egoworld.sim.paper_set_run import make_paper_set
    from egoworld.sim.paper_sets import ANCHORS, CONTROLS, kitchen_jobs, kitchens_needed, set_jobs

    figures: dict[str, object] = {"paper_scale": scale}
    say = print
    jobs: list = []  # type: ignore[type-arg]
    executors = [("local", root / "local")] + ([("ray", root / "ray")] if ray else [])
    for executor, out in executors:
        tag = "" if executor == "local" else "ray_"
        walks = make_paper_set("walks", out / "walks", scale=scale, workers=CORES, executor=executor, say=say)
        figures[f"{tag}walks_min"] = round(walks["wall_s"] / 60, 2)
        figures[f"{tag}walks_cpu_min"] = None if walks["cpu_s"] is None else round(walks["cpu_s"] / 60, 2)
        figures[f"{tag}walks_made"] = walks["made"]
        figures["walk_group_minutes"] = walks["group_minutes"]
        # Beyond3D: kitchens until the builder delivers scale × (1,000 anchors + 1,000 controls)
        want = (round(ANCHORS * scale), round(CONTROLS * scale))
        # Ray makes the kitchens the local run ended with
        jobs = set_jobs("kitchens", scale=scale) if executor == "local" else jobs
        # a resumed folder keeps the kitchens an earlier run added, so the set (and Ray's copy) holds them too
        before = sum(1 for p in (out / "kitchens").glob("kitchen_*") if p.is_dir())
        if executor == "local" and before > len(jobs):
            jobs = jobs + kitchen_jobs(before - len(jobs), start=len(jobs))
        kitchen_s, kitchen_cpu, made, built, build_s = 0.0, 0.0, 0, (0, 0), 0.0
        for _ in range(4):
            k = make_paper_set(
                "kitchens", out / "kitchens", jobs=jobs, workers=CORES, executor=executor, say=say
            )
            kitchen_s += k["wall_s"]
            kitchen_cpu += k["cpu_s"] or 0.0
            made += k["made"]
            t0 = time.perf_counter()
            report = build_beyond3d(
                [out / "kitchens"],
                out / "beyond3d",
                BuildConfig(anchors=want[0], controls=want[1], seed=0, detections="none"),
            )
            build_s = time.perf_counter() - t0
            built = (report.anchors, report.controls)
            print(
                f"Beyond3D build over {len(jobs)} kitchens: {built[0]} anchors + {built[1]} controls of "
                f"{want[0]} + {want[1]} ({build_s:.0f} s)"
            )
            if built[0] >= want[0] or executor != "local":
                break
            per_minute = max(built[0], 1) / (len(jobs) * 10.0)
            extra = max(1, kitchens_needed(want[0], per_minute) - len(jobs))
            jobs = jobs + kitchen_jobs(extra, start=len(jobs))
        figures[f"{tag}kitchens_min"] = round(kitchen_s / 60, 2)
        figures[f"{tag}kitchens_made"] = made
        figures[f"{tag}beyond3d_build_s"] = round(build_s, 1)
        figures["kitchens"] = len(jobs)
        figures["kitchen_minutes"] = len(jobs) * 10.0
        figures[f"{tag}anchors_built"], figures[f"{tag}controls_built"] = built
        figures["anchors_wanted"], figures["controls_wanted"] = want
        figures[f"{tag}paper_sets_min"] = round((walks["wall_s"] + kitchen_s) / 60, 2)
        if scale < 1:
            figures[f"{tag}paper_sets_full_est_min"] = round((walks["wall_s"] + kitchen_s) / 60 / scale, 1)
        if executor == "local":  # CPU time of this process and its workers: what a quiet 2-core machine needs
            cpu = walks["cpu_s"] + kitchen_cpu
            figures["kitchens_cpu_min"] = round(kitchen_cpu / 60, 2)
            figures["paper_sets_cpu_min"] = round(cpu / 60, 2)
            figures["paper_sets_quiet_2core_est_min"] = round(cpu / 60 / CORES / scale, 1)
            print(
                f"CPU: walks {walks['cpu_s'] / 60:.1f} min, kitchens {kitchen_cpu / 60:.1f} min → "
                f"{cpu / 60 / CORES:.1f} min on {CORES} idle cores"
                + (
                    f" (× 1/{scale:g} = {cpu / 60 / CORES / scale:.1f} min for the full sets, an estimate)"
                    if scale < 1
                    else ""
                )
            )
        print(
            f"paper sets on {executor} ({CORES} workers, scale {scale:g}): walks {figures[f'{tag}walks_min']} min "
            f"({', '.join(f'{g}: {m:g}' for g, m in walks['group_minutes'].items())} episode min), kitchens "
            f"{figures[f'{tag}kitchens_min']} min ({len(jobs)} × 10 min: {built[0]} anchors + {built[1]} "
            f"controls built); target < 60 min at scale 1"
        )
    if ray:
        from egoworld.core.folders.hashing import sha256_file

        def hashes(d: Path) -> dict[str, str]:
            return {str(p.relative_to(d)): sha256_file(p) for p in sorted(d.rglob("*")) if p.is_file()}

        same = all(hashes(root / "local" / s) == hashes(root / "ray" / s) for s in ("walks", "kitchens"))
        figures["ray_same_files"] = same
        print(f"Ray's files {'are' if same else 'are NOT'} the local ones, byte for byte")
    return figures


def main() -> None:
    n = int(os.environ.get("EGOWORLD_BENCH_FRAMES", "24"))
    if os.environ.get("EGOWORLD_BENCH_KITCHEN_ROUNDS_ONLY"):  # the child of `default_threads_rounds`
        print(json.dumps(kitchen_rounds(n, int(os.environ.get("EGOWORLD_BENCH_ROUNDS", "5")))))
        return
    from egoworld.sim.render.gl import one_rasteriser_thread

    one_rasteriser_thread()  # as the world sets' workers render (unless LP_NUM_THREADS is set)
    figures: dict[str, object] = {}
    if not os.environ.get("EGOWORLD_BENCH_SKIP_SPEED"):
        figures |= speed(n)
    if os.environ.get("EGOWORLD_BENCH_PAPER"):
        scale = float(os.environ.get("EGOWORLD_BENCH_PAPER_SCALE", "1"))
        root = Path(
            os.environ.get("EGOWORLD_BENCH_PAPER_DIR")
            or Path(tempfile.gettempdir()) / f"egoworld-bench-paper-{scale:g}"
        )
        with tempfile.TemporaryDirectory() as tmp:
            figures |= profile_episodes(Path(tmp))
        figures |= paper_sets(root, scale, ray=os.environ.get("EGOWORLD_BENCH_PAPER_RAY", "1") != "0")
    figures["load_1min"] = round(os.getloadavg()[0], 2)
    figures["cores"] = os.cpu_count() or 0
    print(json.dumps({"bench": "sim_render", "frames": n, **figures}, sort_keys=True))


if __name__ == "__main__":
    main()
