"""Map independent jobs (e.g. one per episode of a build) in-process or over Ray, results in job order.

``executor="local"`` runs the jobs here, one after another; ``executor="ray"`` submits one Ray task per job
(``address`` as for `ray.init`: "auto" joins the running cluster, None starts Ray on this machine).
Jobs must be picklable and their inputs readable on every worker (a shared file system on a cluster).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
EXECUTORS = ("local", "ray")


def ensure_ray(address: str | None, cpus: int | None = None) -> Any:
    """Import Ray and connect to ``address`` or start a local instance with ``cpus`` CPUs (None:
    ``EGOWORLD_RAY_CPUS`` or every CPU); returns the module."""
    try:
        import ray
    except ModuleNotFoundError as exc:
        raise RuntimeError("--executor ray needs Ray: pip install 'egoworld[ray]'") from exc
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "ignore_reinit_error": True,
        }
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = cpus if cpus is not None else ray_cpus()
        ray.init(**kwargs)
    return ray


def ray_cpus() -> int:
    """The CPUs of a Ray instance started here: ``EGOWORLD_RAY_CPUS`` or every CPU of the machine."""
    return int(os.environ.get("EGOWORLD_RAY_CPUS", os.cpu_count() or 1))


def map_jobs(
    fn: Callable[..., T],
    jobs: Sequence[tuple[Any, ...]],
    *,
    executor: str = "local",
    address: str | None = None,
    done: Callable[[int], None] | None = None,
) -> list[T]:
    """``[fn(*job) for job in jobs]``, in order; ``done(i)`` is called as job ``i`` finishes."""
    if executor not in EXECUTORS:
        raise ValueError(f"--executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    if executor == "local":
        results = []
        for i, job in enumerate(jobs):
            results.append(fn(*job))
            if done:
                done(i)
        return results
    ray = ensure_ray(address)
    remote = ray.remote(fn)
    refs = [remote.remote(*job) for job in jobs]
    index = {ref: i for i, ref in enumerate(refs)}
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        if done:
            done(index[ready[0]])
    gathered: list[T] = ray.get(refs)
    return gathered


def cpu_workers() -> int:
    """Worker processes for in-machine parallel work: ``EGOWORLD_WORKERS`` or the CPUs this process may use."""
    env = os.environ.get("EGOWORLD_WORKERS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


#: in a forked worker of `map_processes`: the function and the shared object its initializer was handed
_WORKER: list[Any] = []


def _start_worker(fn: Callable[..., Any], shared: Any) -> None:
    """Pool initializer: keep ``fn`` and ``shared`` (inherited by the fork, never pickled) in this worker."""
    _WORKER[:] = [fn, shared]


def _call_shared(*job: Any) -> Any:
    fn, shared = _WORKER
    return fn(shared, *job)


def map_processes(
    fn: Callable[..., T], jobs: Sequence[tuple[Any, ...]], *, workers: int | None = None, shared: Any = None
) -> list[T]:
    """``[fn(*job) for job in jobs]`` over forked worker processes on this machine, results in job order;
    with ``shared`` given, ``[fn(shared, *job) ...]``.

    ``shared`` reaches each worker once through the fork (a pool initializer's argument, not pickled), so a
    large input costs nothing per job; with one worker, one job or no ``fork`` the jobs run here."""
    import multiprocessing as mp

    n = min(workers or cpu_workers(), len(jobs))
    if n <= 1 or "fork" not in mp.get_all_start_methods():
        if shared is None:
            return [fn(*job) for job in jobs]
        return [fn(shared, *job) for job in jobs]
    if shared is None:
        with mp.get_context("fork").Pool(n) as pool:
            return pool.starmap(fn, jobs, chunksize=1)
    with mp.get_context("fork").Pool(n, initializer=_start_worker, initargs=(fn, shared)) as pool:
        return pool.starmap(_call_shared, jobs, chunksize=1)
