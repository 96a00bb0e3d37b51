"""Decode a sparse request with several single-threaded decoders at once.

The least-work plan splits the targets into runs (each starts with a seek to a keyframe). Frame threads help
little there: every seek empties their pipeline, and the keyframe that starts each run decodes on one thread.
So the runs are split into contiguous blocks of about equal decoding cost, one per worker, each decoded by
its own container on one thread. The frames decoded are exactly those of the one-decoder plan; the thread
budget is the same as FFmpeg's automatic frame threading (one per core). A dense request (one run) is
decoded by one decoder with frame threads.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from egoworld.media.decoder import DecodeStats, decode_frames, plan_continues
from egoworld.media.index import VideoIndex


def plan_runs(index: VideoIndex, targets: list[int]) -> list[tuple[list[int], int]]:
    """The one-decoder plan as runs: (targets of the run, frames it decodes: the non-reference frames
    passed on the way to a target are not decoded)."""
    runs: list[tuple[list[int], int]] = []
    last: int | None = None
    for t in targets:
        key = index.keyframes[index.keyframe_slot(t)]
        if last is None or not plan_continues(last, key):
            runs.append(([t], t - key + 1 - index.nonref_in(key, t - 1)))
        else:
            members, cost = runs[-1]
            runs[-1] = ([*members, t], cost + t - last - index.nonref_in(last + 1, t - 1))
        last = t
    return runs


def split_blocks(runs: list[tuple[list[int], int]], workers: int) -> list[list[int]]:
    """Contiguous blocks of runs with about equal cost (at most ``workers`` blocks)."""
    total = sum(cost for _, cost in runs)
    blocks: list[list[int]] = []
    current: list[int] = []
    done = 0
    for members, cost in runs:
        current.extend(members)
        done += cost
        if len(blocks) < workers - 1 and done >= total * (len(blocks) + 1) / workers:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


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
    """Like `decode_frames`, but frames come in completion order (ascending within each block).

    At most a few decoded frames wait in memory (a bounded queue); the first error stops every worker and
    is raised here.
    """
    wanted = sorted(set(targets))
    stats = stats if stats is not None else DecodeStats()
    workers = workers or default_workers()
    runs = plan_runs(index, wanted) if wanted else []
    if workers <= 1 or len(runs) <= 1:
        yield from decode_frames(
            path, index, wanted, size=size, threads=0, stats=stats, skip_nonref=skip_nonref
        )
        return
    blocks = split_blocks(runs, workers)
    results: queue.Queue = queue.Queue(maxsize=2 * len(blocks))
    stop = threading.Event()
    block_stats = [DecodeStats() for _ in blocks]

    def work(block: list[int], st: DecodeStats) -> None:
        if stop.is_set():  # the consumer is gone (an error, or it stopped reading)
            return
        try:
            frames = decode_frames(
                path, index, block, size=size, threads=1, stats=st, skip_nonref=skip_nonref
            )
            for item in frames:
                while not stop.is_set():
                    try:
                        results.put(("frame", item), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
        except BaseException as exc:  # handed to the consumer
            results.put(("error", exc))
            return
        results.put(("done", None))

    futures = [_pool().submit(work, b, s) for b, s in zip(blocks, block_stats, strict=True)]
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
        for s in block_stats:
            stats.packets += s.packets
            stats.frames += s.frames
            stats.seeks += s.seeks
            stats.converted += s.converted
            stats.skip_runs += s.skip_runs
