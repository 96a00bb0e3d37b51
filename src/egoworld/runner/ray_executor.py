"""Run a benchmark on a Ray cluster: ``egoworld run … --executor ray [--address auto]``.

The driver plans the work, groups items into shards (by clip, so each worker reads a video's media once
through the shared media cache; by trajectory when later steps need earlier answers), and submits one Ray
task per shard. Each task builds the requests and calls the model in its worker — the same `Runner` code as
the in-process run — and returns the rows; the driver writes them into the one response store as shards
finish. Killing the driver loses only unfinished shards; rerunning the command resumes from the store.

Workers must see the benchmark folder (and media) at the same path: a shared file system on a cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.store import ResponseRow
from egoworld.core.model import Model, ModelContext
from egoworld.core.process.pool import ensure_ray
from egoworld.core.run_config import RunConfig
from egoworld.models.spec import create_model
from egoworld.runner.inputs import InputSettings, open_inputs
from egoworld.runner.summary import RunSummary
from egoworld.runner.worker import ItemRequests, Runner

DEFAULT_SHARD_SIZE = 64


@dataclass
class RowSink:
    """Stands in for the response store inside a worker: records writes for the driver to apply."""

    done: dict[str, str | None]  # ok keys already in the store → raw output (kept only for pred histories)
    ops: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)

    def ok_keys(self) -> set[str]:
        return set(self.done)

    def is_ok(self, key: str) -> bool:
        return key in self.done

    def get(self, key: str) -> ResponseRow | None:
        raw = self.done.get(key)
        if key not in self.done:
            return None
        return ResponseRow(key, "", "", 0, "ok", raw, None, None, None, None, None, None, None, 1)

    def plan(self, *args: Any) -> None:
        self.ops.append(("plan", args, {}))

    def put_request(self, *args: Any) -> None:
        self.ops.append(("put_request", args, {}))

    def put(self, **kwargs: Any) -> None:
        self.ops.append(("put", (), kwargs))


def shard_items(items: list[Any], history: str, size: int) -> list[list[Any]]:
    """Consecutive groups of items: whole trajectories when histories need answers, else whole clips where
    they fit, cut to at most ``size`` items (a trajectory is never cut)."""

    def group_key(it: Any) -> str:
        s = it.sample
        if history == "pred" and s.trajectory is not None:
            return f"traj:{s.trajectory.id}"
        return f"clip:{s.media.video.path if s.media.video else s.id}"

    groups: dict[str, list[Any]] = {}
    for it in items:
        groups.setdefault(group_key(it), []).append(it)
    shards: list[list[Any]] = []
    current: list[Any] = []
    for key, group in groups.items():
        splittable = not key.startswith("traj:")
        while splittable and len(group) > size:
            shards.append(group[:size])
            group = group[size:]
        if current and len(current) + len(group) > size:
            shards.append(current)
            current = []
        current.extend(group)
    if current:
        shards.append(current)
    return shards


_BENCH_CACHE: dict[str, Benchmark] = {}


def run_shard(
    cfg: RunConfig, items: list[Any], done: dict[str, str | None], model: Model | None
) -> dict[str, Any]:
    """Worker side: run ``items`` with the in-process runner code and return the store writes and counts."""
    key = str(cfg.bench)
    bench = _BENCH_CACHE.get(key) or _BENCH_CACHE.setdefault(key, load_benchmark(cfg.bench))
    model = model or create_model(
        cfg.model, cfg.model_args, ModelContext(benchmark=bench, seed=cfg.seed, concurrency=cfg.concurrency)
    )
    inputs = open_inputs(bench, InputSettings.from_config(cfg))
    sink = RowSink(done)
    summary = RunSummary(out=cfg.out, planned=len(items))
    runner = Runner(ItemRequests(cfg, bench, model.identity(), inputs), model, sink, cfg.concurrency)  # type: ignore[arg-type]

    async def go() -> None:
        try:
            await runner.execute(items, summary, lambda: None)
        finally:
            await model.aclose()

    try:
        asyncio.run(go())
    finally:
        inputs.close()
    return {
        "short_frames": dict(getattr(inputs, "short", {})),
        "ops": sink.ops,
        "called": summary.called,
        "reused": summary.reused,
        "ok": summary.ok,
        "errors": summary.errors,
        "blocked": summary.blocked,
        "served_models": sorted(summary.served_models),
        "media_bytes": summary.media_bytes,
        "media_bytes_max": summary.media_bytes_max,
    }


def execute_with_ray(
    cfg: RunConfig,
    items: list[Any],
    store: Any,
    summary: Any,
    advance: Callable[[int], None],
    *,
    address: str | None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    model: Model | None = None,
) -> None:
    """Driver side: submit shards, apply each finished shard's writes to ``store`` (one transaction)."""
    ray = ensure_ray(address)
    keep_raw = cfg.history == "pred"
    if keep_raw:
        done = {k: r.raw for k in store.ok_keys() if (r := store.get(k)) is not None}
    else:
        done = dict.fromkeys(store.ok_keys())
    done_ref = ray.put(done)
    model_ref = ray.put(model) if model is not None else None
    remote = ray.remote(run_shard)
    pending = {
        remote.remote(cfg, shard, done_ref, model_ref): len(shard)
        for shard in shard_items(items, cfg.history, shard_size)
    }
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        ref = ready[0]
        n = pending.pop(ref)
        result = ray.get(ref)
        with store.transaction():
            for op, args, kwargs in result["ops"]:
                getattr(store, op)(*args, **kwargs)
        for name in ("called", "reused", "ok", "errors", "blocked", "media_bytes"):
            setattr(summary, name, getattr(summary, name) + result[name])
        summary.media_bytes_max = max(summary.media_bytes_max, result["media_bytes_max"])
        summary.served_models.update(result["served_models"])
        summary.short_frames.update(result["short_frames"])
        advance(n)
