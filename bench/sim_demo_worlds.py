"""Bench: synthesise the demo world set — 3 kitchen episodes of 3 minutes (Aria-like fisheye 448×448 at
2 fps), 1 panoramic walk of 10 minutes (512×256 panorama + four 384×384 views at 1 fps) and 50 action
scenes — on a pool of worker processes (default 2, one per core of the target machine).

Every episode is made exactly as ``egoworld world synth`` makes it (same folders, same bytes). The
longest jobs start first so the pool stays busy. Prints each job's time, the total wall time against the
3-minute target, and one JSON line of the figures. On a shared machine the wall time also measures the
other load; ``idle_estimate_s`` replays the jobs' own CPU times on ``jobs`` idle cores in the pool's order
(longest first), which is what the set takes on a machine of its own. Environment: EGOWORLD_BENCH_JOBS (default 2),
EGOWORLD_BENCH_DIR (output folder; default a temporary folder, removed afterwards).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

TARGET_S = 180.0


def _run(kind: str, out: str, ids: list[str], seed: int) -> tuple[str, int, float, float]:
    from egoworld.sim.actions.synth import ActionConfig
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.walk.synth import WalkConfig
    from egoworld.sim.worldset import Job, _build

    config = {
        "kitchen": KitchenConfig(minutes=3.0, fps=2.0),
        "walk": WalkConfig(minutes=10.0, fps=1.0),
        "actions": ActionConfig(),
    }[kind]
    w, c = time.perf_counter(), time.process_time()
    for eid in ids:
        _build(Job(kind, eid, seed, config), Path(out) / kind)
    return kind, len(ids), time.perf_counter() - w, time.process_time() - c


def main() -> None:
    jobs = int(os.environ.get("EGOWORLD_BENCH_JOBS", "2"))
    keep = os.environ.get("EGOWORLD_BENCH_DIR")
    out = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="egoworld-demo-worlds-"))
    for kind in ("kitchen", "walk", "actions"):
        (out / kind).mkdir(parents=True, exist_ok=True)
    work = [("walk", ["walk_000"])]
    work += [("kitchen", [f"kitchen_{i:03d}"]) for i in range(3)]
    work += [("actions", [f"actions_{i:03d}" for i in range(k, k + 10)]) for k in range(0, 50, 10)]
    start = time.perf_counter()
    cpu = {"kitchen": 0.0, "walk": 0.0, "actions": 0.0}
    job_cpu: dict[int, float] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_run, kind, str(out), ids, 0): k for k, (kind, ids) in enumerate(work)}
        for fut in as_completed(futures):
            kind, n, wall, c = fut.result()
            cpu[kind] += c
            job_cpu[futures[fut]] = c
            print(
                f"  {kind:<8} {n:>2} episode(s) in {wall:6.1f} s (CPU {c:6.1f} s), at {time.perf_counter() - start:6.1f} s"
            )
    total = time.perf_counter() - start
    free = [0.0] * jobs  # replay on idle cores: each job goes to the first free worker, in submission order
    for k in range(len(work)):
        i = free.index(min(free))
        free[i] += job_cpu[k]
    idle = max(free)
    frames = {"kitchen": 3 * 360, "walk": 600}
    print(
        f"demo world set: {total:.1f} s wall on {jobs} worker processes (target < {TARGET_S:.0f} s) — "
        f"CPU kitchen {cpu['kitchen']:.1f} s, walk {cpu['walk']:.1f} s, actions {cpu['actions']:.1f} s"
    )
    figures = {
        "bench": "sim_demo_worlds",
        "jobs": jobs,
        "wall_s": round(total, 2),
        "target_s": TARGET_S,
        "under_target": total < TARGET_S,
        "idle_estimate_s": round(idle, 2),
        "idle_estimate_under_target": idle < TARGET_S,
        "kitchen_cpu_s": round(cpu["kitchen"], 2),
        "walk_cpu_s": round(cpu["walk"], 2),
        "actions_cpu_s": round(cpu["actions"], 2),
        "kitchen_frames": frames["kitchen"],
        "walk_frames": frames["walk"],
        "action_scenes": 50,
        "kitchen_cpu_fps": round(frames["kitchen"] / max(cpu["kitchen"], 1e-9), 2),
        "walk_cpu_fps": round(frames["walk"] / max(cpu["walk"], 1e-9), 2),
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
