"""Make one paper-size world set (`egoworld.sim.paper_sets`) and say what it cost: episodes made and skipped,
episode minutes (per VSI-Super-Wild duration group for the walks), wall and CPU time."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from egoworld.sim.paper_sets import WALK_GROUPS, job_minutes, set_jobs
from egoworld.sim.worldset import Job, run_jobs, split_jobs


def _children_cpu_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def make_paper_set(
    name: str,
    out: str | Path,
    *,
    seed: int = 0,
    scale: float = 1.0,
    kitchens: int | None = None,
    jobs: list[Job] | None = None,
    workers: int = 2,
    executor: str = "local",
    address: str | None = None,
    force: bool = False,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Make the missing episodes of the paper set ``name`` (or of ``jobs``) into ``out``; returns its figures.

    ``cpu_s`` counts this process and the worker processes it waited for (the local executor); Ray's
    workers are not this process's children, so on Ray it is None."""
    todo_jobs = set_jobs(name, seed, scale, kitchens) if jobs is None else jobs
    out = Path(out)
    todo, done = split_jobs(todo_jobs, out, force=force)
    if executor == "ray":
        from egoworld.core.process.pool import ensure_ray

        ensure_ray(address, cpus=workers)  # started before the clock: one task per CPU, ``workers`` CPUs
    t_wall, t_cpu = time.perf_counter(), _children_cpu_s()
    made: list[str] = []

    def on_episode(job: Job, path: Path) -> None:
        if job in todo:
            made.append(job.episode_id)
            if say is not None:
                say(f"{name}: {job.episode_id} ({job_minutes(job):g} min) made after "
                    f"{(time.perf_counter() - t_wall) / 60:.1f} min")  # fmt: skip

    run_jobs(
        todo_jobs,
        out,
        workers=workers,
        force=force,
        on_episode=on_episode,
        executor=executor,
        address=address,
    )
    wall = time.perf_counter() - t_wall
    cpu = _children_cpu_s() - t_cpu
    minutes = sum(job_minutes(j) for j in todo_jobs)
    figures: dict[str, Any] = {
        "set": name,
        "scale": scale,
        "episodes": len(todo_jobs),
        "made": len(made),
        "skipped": len(done),
        "episode_minutes": round(minutes, 3),
        "made_minutes": round(sum(job_minutes(j) for j in todo), 3),
        "frames": int(sum(round(job_minutes(j) * 60 * float(j.config.fps)) for j in todo_jobs)),
        "wall_s": round(wall, 1),
        "cpu_s": None if executor == "ray" else round(cpu, 1),
        "executor": executor,
        "workers": workers,
    }
    if name == "walks":
        figures["group_minutes"] = {
            group: job_minutes(j)
            for j, (_, group) in zip(sorted(todo_jobs, key=lambda j: j.episode_id), WALK_GROUPS, strict=False)
        }
    if say is not None:
        say(
            f"{name}: {len(todo_jobs)} episodes, {minutes:g} episode minutes ({len(made)} made, {len(done)} already "
            f"there) in {wall / 60:.1f} min wall"
            + ("" if figures["cpu_s"] is None else f", {cpu / 60:.1f} min CPU")
        )
    return figures
