"""Bench: a full-scale Beyond3D build (1,000 out-of-sight anchors + 1,000 visible controls → 9,000 questions)
from cheap synthetic kitchens (`egoworld.benchmarks.beyond3d.synthetic`: 8 kitchens × 10 episodes of 9 min),
on at most 2 cores; then the audit of the visibility tracks against exact visibility (perfect and noisy
detector) on 4 smaller episodes. Target: the build under 2 minutes.

The worlds are generated at bench time into a temporary folder (not timed; reused by later runs).
Environment: EGOWORLD_BENCH_DIR (default: <tmp>/egoworld-bench-beyond3d). Ends with one JSON line of figures.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

WORLD = {"kitchens": 8, "episodes_per_kitchen": 10, "seed": 0}
VERSION = "w1"  # bump when the synthetic generator changes (cached worlds are reused by name)


def two_cores() -> int:
    """Pin this process to at most 2 cores (numpy threads too); returns the number used."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "2")
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cores)
        return len(cores)
    return min(2, os.cpu_count() or 1)


def world(root: Path, name: str, **kw) -> Path:
    from egoworld.benchmarks.beyond3d.synthetic import write_world

    out = root / f"{name}-{VERSION}"
    if not (out / ".complete").is_file():
        shutil.rmtree(out, ignore_errors=True)
        write_world(out, **kw)
        (out / ".complete").write_text("ok\n")
    return out


def main() -> None:
    cores = two_cores()
    from egoworld.benchmarks.beyond3d.synthetic import SynthConfig

    from egoworld.benchmarks.beyond3d.audit import audit_worlds
    from egoworld.benchmarks.beyond3d.build import BuildConfig, balance_summary, build_beyond3d

    root = Path(
        os.environ.get("EGOWORLD_BENCH_DIR") or Path(tempfile.gettempdir()) / "egoworld-bench-beyond3d"
    )
    root.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    full = world(root, "full", detector=None, **WORLD)
    gen_s = time.perf_counter() - t0
    out = root / "bench"
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    report = build_beyond3d([full], out, BuildConfig(anchors=1000, controls=1000, seed=0))
    build_s = time.perf_counter() - t0
    for line in report.lines():
        print(line)
    bench = report.bench
    balance = balance_summary(bench.samples)
    counts = dict(Counter(s.task for s in bench.samples))
    print(
        f"build: {build_s:.1f} s on {cores} core(s) for {len(bench.samples)} questions (world generation {gen_s:.1f} s, not counted); target < 120 s"
    )

    small = SynthConfig(duration_s=240.0)
    perfect = world(
        root, "audit-perfect", kitchens=2, episodes_per_kitchen=2, seed=7, cfg=small, detector="perfect"
    )
    noisy = world(
        root,
        "audit-noisy",
        kitchens=2,
        episodes_per_kitchen=2,
        seed=7,
        cfg=small,
        detector="noisy",
        miss_rate=0.3,
        false_positive_rate=0.1,
    )
    audits = {}
    for name, folder in (("perfect", perfect), ("noisy", noisy)):
        res = audit_worlds([folder], truth=True)
        audits[name] = {k: round(float(v), 2) for k, v in res.overall.items()} | {"marks": res.scored}
        print(f"audit ({name} detector): " + ", ".join(f"{k} {v}" for k, v in audits[name].items()))
    figures = {
        "bench": "build_beyond3d",
        "cores": cores,
        "episodes": WORLD["kitchens"] * WORLD["episodes_per_kitchen"],
        "build_s": round(build_s, 2),
        "questions": len(bench.samples),
        "anchors": report.anchors,
        "controls": report.controls,
        "candidate_pool": report.pool,
        "counts": counts,
        "balance": {t: v for t, v in balance.items() if t != "nearest_fixture"},
        "nearest_fixture_labels": len(balance.get("nearest_fixture", {})),
        "chance": {t: info.chance for t, info in bench.manifest.tasks.items()},
        "chance_macro": bench.manifest.builder["chance_macro"],
        "audit": audits,
    }
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
