"""Bench: a full-scale Beyond3D build (1,000 out-of-sight anchors + 1,000 visible controls → 9,000 questions
with video) from rendered sim kitchens (`egoworld.sim.kitchen.synth`), on at most 2 cores; then the audit of the
visibility tracks against the simulator's exact visibility (perfect and simulated detector).

The kitchens (``WORLD``: fisheye video at ``size`` px and 1 frame/s — the build reads poses and ground truth,
the video is linked into the benchmark) are rendered at bench time into a folder that later runs reuse;
their rendering time is printed but not counted in the build's. Figures: the build's wall time (target
< 2 minutes), the anchors delivered and the **anchor yield per rendered kitchen minute** (how many minutes
a paper-size set needs). If the worlds cannot fill the quotas the build says how many anchors it delivered.

Environment: EGOWORLD_BENCH_DIR (default: <tmp>/egoworld-bench-beyond3d), EGOWORLD_BENCH_KITCHENS (how many
10-minute kitchens, default 52; 40 of them hold about 810 exactly balanced anchors), EGOWORLD_BENCH_KITCHEN_SIZE (image
side, default 224: the 9,000-question set renders 224 px frames to stay quick; 448 is the Aria-like size).
EGOWORLD_BENCH_YIELD_KITCHENS (default "4x5": kitchens × minutes of the small yield world, 20 minutes; its
build asks for 1,000 anchors, so what it delivers is the largest exactly balanced set the world holds).
The anchors per minute of the small world and of the full set (52 × 10 = 520 minutes; a lower bound when the
1,000 requested are all delivered) are printed as ``yield``.
Ends with one JSON line of figures.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

WORLD = {"episodes": int(os.environ.get("EGOWORLD_BENCH_KITCHENS", "52")), "minutes": 10.0, "seed": 0}


def two_cores() -> int:
    """Pin this process to at most 2 cores (numpy threads too); returns the number used."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "LP_NUM_THREADS"):
        os.environ.setdefault(var, "2")
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cores)
        return len(cores)
    return min(2, os.cpu_count() or 1)


def kitchens(root: Path, name: str, episodes: int, minutes: float, seed: int, size: int, jobs: int) -> Path:
    """A sim kitchen world set (resumable: complete episodes are reused)."""
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    out = root / f"{name}-{size}px"
    synth_world_set(
        "kitchen", out, episodes, seed, KitchenConfig(minutes=minutes, fps=1.0, size=size), jobs=jobs
    )
    return out


def main() -> None:
    cores = two_cores()
    from egoworld.benchmarks.beyond3d.build.audit import audit_worlds
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, balance_summary, build_beyond3d

    size = int(os.environ.get("EGOWORLD_BENCH_KITCHEN_SIZE", "224"))
    root = Path(
        os.environ.get("EGOWORLD_BENCH_DIR") or Path(tempfile.gettempdir()) / "egoworld-bench-beyond3d"
    )
    root.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    full = kitchens(root, "full", size=size, jobs=cores, **WORLD)
    gen_s = time.perf_counter() - t0
    minutes = WORLD["episodes"] * WORLD["minutes"]
    out = root / "bench"
    t0 = time.perf_counter()
    report = build_beyond3d([full], out, BuildConfig(anchors=1000, controls=1000, seed=0, detections="none"))
    build_s = time.perf_counter() - t0
    for line in report.lines():
        print(line)
    bench = report.bench
    balance = balance_summary(bench.samples)
    counts = dict(Counter(s.task for s in bench.samples))
    with_video = sum(s.media.video is not None for s in bench.samples)
    print(
        f"kitchens: {WORLD['episodes']} × {WORLD['minutes']:g} min rendered at {size} px, 1 frame/s "
        f"({gen_s:.0f} s now; reused when already there)"
    )
    print(
        f"build: {build_s:.1f} s on {cores} core(s) for {len(bench.samples)} questions ({with_video} with video); "
        f"target < 120 s"
    )
    yield_per_min = report.anchors / minutes
    print(
        f"anchor yield: {yield_per_min:.2f} out-of-sight anchors per rendered kitchen minute "
        f"(pool {report.pool} candidates, {report.pool / minutes:.1f} per minute); 1,000 anchors need about "
        f"{1000 / yield_per_min:.0f} min of such video"
        if yield_per_min
        else ""
    )
    yield_eps, yield_min = (
        float(x) for x in os.environ.get("EGOWORLD_BENCH_YIELD_KITCHENS", "4x5").split("x")
    )
    small = kitchens(root, "yield", episodes=int(yield_eps), minutes=yield_min, seed=0, size=64, jobs=cores)
    small_report = build_beyond3d(
        [small], root / "bench-yield", BuildConfig(anchors=1000, controls=0, seed=0, detections="none")
    )
    small_min = yield_eps * yield_min
    yields = {
        "small": {
            "minutes": small_min,
            "anchors": small_report.anchors,
            "per_min": round(small_report.anchors / small_min, 3),
        },
        "full": {
            "minutes": minutes,
            "anchors": report.anchors,
            "per_min": round(yield_per_min, 3),
            "lower_bound": report.shortfall is None,
        },
    }
    print(f"yield: {yields}")
    audit_root = kitchens(root, "audit", episodes=4, minutes=3.0, seed=7, size=160, jobs=cores)
    audits = {}
    for name, detections in (("perfect", "perfect"), ("simulated", "auto")):
        res = audit_worlds([audit_root], truth=True, detections=detections)
        audits[name] = {k: round(float(v), 2) for k, v in res.overall.items()} | {"marks": res.scored}
        print(f"audit ({name} detector): " + ", ".join(f"{k} {v}" for k, v in audits[name].items()))
    figures = {
        "bench": "build_beyond3d",
        "cores": cores,
        "episodes": WORLD["episodes"],
        "kitchen_minutes": minutes,
        "kitchen_size_px": size,
        "world_render_s": round(gen_s, 1),
        "build_s": round(build_s, 2),
        "questions": len(bench.samples),
        "questions_with_video": with_video,
        "anchors": report.anchors,
        "controls": report.controls,
        "candidate_pool": report.pool,
        "anchors_per_kitchen_minute": round(yield_per_min, 3),
        "counts": counts,
        "balance": {t: v for t, v in balance.items() if t != "nearest_fixture"},
        "nearest_fixture_labels": len(balance.get("nearest_fixture", {})),
        "chance": {t: info.chance for t, info in bench.manifest.tasks.items()},
        "chance_macro": bench.manifest.builder["chance_macro"],
        "audit": audits,
        "yield": yields,
        "minutes_for_1000_anchors": round(1000 / yield_per_min, 1) if yield_per_min else None,
    }
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
