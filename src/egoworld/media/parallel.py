"""Decode a sparse request with several single-threaded decoders at once.

The least-work plan splits the targets into runs (each starts with a seek to a keyframe). Frame threads help
little there: every seek empties their pipeline, and the keyframe that starts each run decodes on one thread.
So each worker keeps one container open on one thread and takes the next run from a shared list until none
is left: the work balances itself whatever a run costs (a keyframe decodes several times slower than the
frames after it) and whichever worker the machine slows down; the list holds the longest runs first, so the
workers end within one short run of each other. The frames decoded are exactly those of the one-decoder
plan on one thread; the thread budget is the same as FFmpeg's automatic frame threading (one
per core). A dense request (one run) is decoded by one decoder with frame threads.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.media.decoder import (
    DecodeStats,
    FrameDecoder,
    check_targets,
    decode_frames,
    plan_runs,
    seek_cost,
)
from egoworld.media.index import VideoIndex


def default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def runqueue_wait_s() -> float:
    """Wall seconds this thread has spent runnable but waiting for a core (Linux schedstat: time the
    machine's load took from it, as opposed to time it was blocked on a lock or queue); 0.0 elsewhere."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """One long-lived pool for every decode (new threads per call would each grow their own malloc arena)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(
                max_workers=2 * default_workers(), thread_name_prefix="egoworld-decode"
            )
        return _POOL


def queue_order(index: VideoIndex, wanted: list[int]) -> list[list[int]]:
    """The single-threaded plan's runs, longest first (each starts at one keyframe, so the frames it
    decodes rank its cost): the queue ends on short runs, and the workers finish close together."""
    planned = plan_runs(index, wanted, seek_cost(1)) if wanted else []
    return [members for members, _ in sorted(planned, key=lambda run: -run[1])]


class RunQueue:
    """The runs of a plan, handed out one at a time in order (thread-safe)."""

    def __init__(self, runs: list[list[int]]):
        self._runs = iter(runs)
        self._lock = threading.Lock()

    def take(self) -> list[int] | None:
        with self._lock:
            return next(self._runs, None)


def decode_parallel(
    path: str | Path,
    index: VideoIndex,
    targets: Iterable[int],
    *,
    size: tuple[int, int] | None = None,
    workers: int | None = None,
    stats: DecodeStats | None = None,
    skip_nonref: bool = True,
) -> Iterator[tuple[int, np.ndarray]]:
    """Like `decode_frames`, but frames come in completion order (ascending within each run; the longest
    runs start first).

    At most a few decoded frames wait in memory (a bounded queue); the first error stops every worker and
    is raised here. ``stats`` also gets each worker's thread CPU and wall seconds.
    """
    wanted = sorted(set(targets))
    stats = stats if stats is not None else DecodeStats()
    workers = workers or default_workers()
    runs = queue_order(index, wanted)
    if workers <= 1 or len(runs) <= 1:
        yield from decode_frames(
            path, index, wanted, size=size, threads=0, stats=stats, skip_nonref=skip_nonref
        )
        return
    check_targets(path, index, wanted)
    todo = RunQueue(runs)
    workers = min(workers, len(runs))
    results: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=2 * workers)
    stop = threading.Event()
    worker_stats = [DecodeStats() for _ in range(workers)]
    called = time.perf_counter()

    def hand_over(item: tuple[str, object], st: DecodeStats) -> bool:
        """Put ``item`` on the queue unless the consumer has gone; False when it has."""
        w0 = time.perf_counter()
        try:
            while not stop.is_set():
                try:
                    results.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False
        finally:
            st.wait_s += time.perf_counter() - w0

    def work(st: DecodeStats) -> None:
        c0, w0, q0 = time.thread_time(), time.perf_counter(), runqueue_wait_s()
        runs = 0
        try:
            if stop.is_set():  # the consumer is gone (an error, or it stopped reading)
                return
            with FrameDecoder(path, index, size=size, threads=1, stats=st, skip_nonref=skip_nonref) as dec:
                st.worker_start_s = [time.perf_counter() - called]
                while (members := todo.take()) is not None:
                    runs += 1
                    for item in dec.run(members):
                        if not hand_over(("frame", item), st):
                            return
            hand_over(("done", None), st)
        except BaseException as exc:  # handed to the consumer
            results.put(("error", exc))
        finally:
            st.worker_cpu_s = [time.thread_time() - c0]
            st.worker_wall_s = [time.perf_counter() - w0]
            st.worker_runqueue_s = [runqueue_wait_s() - q0]
            st.worker_runs, st.worker_packets = [runs], [st.packets]

    futures = [_pool().submit(work, s) for s in worker_stats]
    try:
        finished = 0
        while finished < len(futures):
            kind, payload = results.get()
            if kind == "frame":
                yield payload
            elif kind == "done":
                finished += 1
            else:
                raise payload
    finally:
        stop.set()
        while not all(f.done() for f in futures):
            with contextlib.suppress(queue.Empty):
                results.get(timeout=0.05)
        for s in worker_stats:
            stats.merge(s)
