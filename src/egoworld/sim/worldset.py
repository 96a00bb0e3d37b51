"""Synthesise a world set (a folder of episode folders) with progress and resumption.

Episode ``i`` of kind ``k`` is ``<out>/<k>_<i:03d>/``; its randomness comes from ``(seed, episode id)``,
so episodes can be made in any order, in parallel, or again, with identical bytes. Each episode is
written into a hidden ``.<id>.partial`` folder and renamed when complete; a rerun skips complete
episodes made with the same parameters, throws away partial ones, and refuses (unless ``force``) to mix
in episodes made with other parameters. A set is one kind and one config (`synth_world_set`) or any list of
jobs, each with its own config (`run_jobs`: e.g. walks of several lengths, `egoworld.sim.paper_sets`). Episodes are made here (``jobs`` processes, each with its own
OpenGL context) or, with ``executor="ray"``, one Ray task per episode (`egoworld.core.process.pool`; the
output folder must be on a file system every worker sees).
"""

from __future__ import annotations

import multiprocessing
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_json
from egoworld.sim.kinds import FrameProgress, world_kind

#: a world kind's parameters (`egoworld.sim.kinds.WorldKind.config`): an object with ``to_json()``
Config = Any


@dataclass(frozen=True)
class Job:
    kind: str
    episode_id: str
    seed: int
    config: Config


def episode_ids(kind: str, n: int, start: int = 0) -> list[str]:
    return [f"{kind}_{i:03d}" for i in range(start, start + n)]


def run_job(job: Job, folder: Path, progress: FrameProgress | None = None) -> Path:
    """Synthesise one episode into ``folder`` (with the registered world kind ``job.kind``)."""
    return world_kind(job.kind).synth(Path(folder), job.episode_id, job.seed, job.config, progress)


def _status(job: Job, final: Path) -> str:
    """'missing', 'complete' (same parameters) or 'different'."""
    header = final / "episode.json"
    if not header.is_file():
        return "missing"
    try:
        meta = read_json(header).get("meta", {})
    except InputFileError:
        return "different"
    same = meta.get("seed") == job.seed and meta.get("config") == _json(job.config.to_json())
    return "complete" if same else "different"


def _json(obj: Any) -> Any:
    import json

    return json.loads(json.dumps(obj))


def _build(job: Job, out: Path, progress: FrameProgress | None = None) -> Path:
    final = out / job.episode_id
    tmp = out / f".{job.episode_id}.partial"
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        run_job(job, tmp, progress)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    return final


def _build_in_worker(job: Job, out: Path) -> Path:
    """`_build` in a worker process of a pool (spawned or Ray): the pool's processes use the cores, so the
    renderer rasterises on the worker's own thread (`egoworld.sim.render.gl.one_rasteriser_thread`)."""
    from egoworld.sim.render.gl import one_rasteriser_thread

    one_rasteriser_thread()
    return _build(job, out)


def split_jobs(jobs: Sequence[Job], out: str | Path, *, force: bool = False) -> tuple[list[Job], list[Job]]:
    """(jobs to run, jobs already complete) of any list of jobs (each with its own parameters); raises when
    an episode was made with other parameters."""
    out = Path(out)
    todo, done = [], []
    for job in jobs:
        status = _status(job, out / job.episode_id)
        if status == "complete" and not force:
            done.append(job)
        elif status == "different" and not force:
            raise InputFileError(
                f"{out / job.episode_id}: this episode was made with another seed or other parameters; "
                "choose another --out folder, or pass --force to make it again"
            )
        else:
            todo.append(job)
    return todo, done


def plan_jobs(
    kind: str, out: str | Path, episodes: int, seed: int, config: Config, *, force: bool = False
) -> tuple[list[Job], list[Job]]:
    """(jobs to run, jobs already complete) of ``episodes`` episodes of one kind and one config."""
    return split_jobs([Job(kind, eid, seed, config) for eid in episode_ids(kind, episodes)], out, force=force)


def run_jobs(
    jobs: Sequence[Job],
    out: str | Path,
    *,
    workers: int = 1,
    force: bool = False,
    on_episode: Callable[[Job, Path], None] | None = None,
    on_frames: FrameProgress | None = None,
    executor: str = "local",
    address: str | None = None,
) -> list[Path]:
    """Make the missing episodes of ``jobs`` into ``out`` (``workers`` processes, or one Ray task each),
    started in the order given (put the longest first); returns every episode folder, in the jobs' order."""
    from egoworld.core.process.pool import EXECUTORS, map_jobs

    for kind in sorted({job.kind for job in jobs}):
        world_kind(kind)  # a ValueError naming the registered kinds
    if executor not in EXECUTORS:
        raise ValueError(f"--executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    ids = [job.episode_id for job in jobs]
    if len(set(ids)) != len(ids):
        raise ValueError("two jobs of a world set share an episode id")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    todo, done = split_jobs(jobs, out, force=force)
    for job in done:
        if on_episode is not None:
            on_episode(job, out / job.episode_id)
    if executor == "ray" and todo:

        def finished(i: int) -> None:
            if on_episode is not None:
                on_episode(todo[i], out / todo[i].episode_id)

        map_jobs(
            _build_in_worker, [(job, out) for job in todo], executor="ray", address=address, done=finished
        )
    elif workers <= 1 or len(todo) <= 1:
        for job in todo:
            path = _build(job, out, on_frames)
            if on_episode is not None:
                on_episode(job, path)
    else:
        # spawned (not forked) workers: each opens its own OpenGL context from scratch
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
            futures = {pool.submit(_build_in_worker, job, out): job for job in todo}
            for fut in as_completed(futures):
                path = fut.result()
                if on_episode is not None:
                    on_episode(futures[fut], path)
    return [out / eid for eid in ids]


def synth_world_set(
    kind: str,
    out: str | Path,
    episodes: int,
    seed: int,
    config: Config,
    *,
    jobs: int = 1,
    force: bool = False,
    on_episode: Callable[[Job, Path], None] | None = None,
    on_frames: FrameProgress | None = None,
    executor: str = "local",
    address: str | None = None,
) -> list[Path]:
    """Make the missing episodes of a world set; returns every episode folder (in id order)."""
    world_kind(kind)  # a ValueError naming the registered kinds
    return run_jobs(
        [Job(kind, eid, seed, config) for eid in episode_ids(kind, episodes)],
        out,
        workers=jobs,
        force=force,
        on_episode=on_episode,
        on_frames=on_frames,
        executor=executor,
        address=address,
    )
