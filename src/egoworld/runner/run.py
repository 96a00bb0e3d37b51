"""`run_benchmark`: run (or resume) a model over a benchmark into a run folder — plan the requests, skip what
the store already has, call the model with bounded concurrency, write each response as it arrives and record
in run.json how the run ended.

The standard plan is one request per (sample, option order, epoch) (`egoworld.core.plan`), sent by `Runner`
in-process or over Ray; items of a trajectory run after the steps they depend on when the history mode needs
their answers, and items are ordered by clip so media is read once per clip. A benchmark whose plug-in plans
its own requests (``plan_requests``: chains whose prompts carry earlier replies, e.g. EXPLORE's stepwise
strategies) is sent by `ChainRunner`, into the same store and run-folder layout.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.core.chains import ChainPlan
from egoworld.core.errors import NothingToDo
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import read_json_object, write_json, write_json_or_in_place
from egoworld.core.folders.lock import folder_lock
from egoworld.core.folders.store import ResponseStore
from egoworld.core.history import HISTORY_MODES
from egoworld.core.model import Model, ModelContext
from egoworld.core.permutations import parse_mode
from egoworld.core.plan import Item, count_items, has_dependencies, iter_items, select_samples
from egoworld.core.plugin import plugin_for
from egoworld.core.process.secrets import redact
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE, RunConfig, check_resumable, config_dict
from egoworld.core.schema import Sample
from egoworld.models.preflight import served_model_warning
from egoworld.models.spec import create_model
from egoworld.runner.chain_runner import ChainRunner
from egoworld.runner.figures import parse_price, usage_figures
from egoworld.runner.inputs import InputSettings, check_media, open_inputs
from egoworld.runner.ray_executor import execute_with_ray
from egoworld.runner.response_cache import ResponseCache
from egoworld.runner.summary import RunSummary
from egoworld.runner.worker import Runner, clip_ordered


def run_manifest(cfg: RunConfig, bench: Benchmark, model: Model) -> dict[str, Any]:
    return {
        "egoworld_version": __version__,
        "benchmark": bench.name,
        "benchmark_path": str(Path(bench.root).resolve()),
        "benchmark_hash": bench.hash,
        "model": model.identity(),
        "model_spec": cfg.model,
        "inputs": InputSettings.from_config(cfg).describe(),
        "permutations": cfg.permutations,
        "seed": cfg.seed,
        "epochs": cfg.epochs,
        "history": cfg.history,
        "selection": cfg.selection(),
        "executor": cfg.executor,
        "config": config_dict(cfg),
        "command": cfg.command,
    }


def run_benchmark(cfg: RunConfig, *, model: Model | None = None) -> RunSummary:
    """Run (or resume) ``cfg``; returns counts. Errors are stored and retried by the next run."""
    if cfg.history not in HISTORY_MODES:
        raise ValueError(f"--history {cfg.history!r}: expected one of {', '.join(HISTORY_MODES)}")
    if cfg.epochs < 1:
        raise ValueError("--epochs must be at least 1")
    if cfg.executor not in ("local", "ray"):
        raise ValueError(f"--executor {cfg.executor!r}: expected local or ray")
    if cfg.cache is not None and cfg.executor == "ray":
        raise ValueError("--cache works with --executor local (Ray workers do not share the cache yet)")
    parse_price(cfg.price)  # a bad --price fails before any request is sent
    mode = parse_mode(str(cfg.permutations))
    bench = load_benchmark(cfg.bench)
    plan = planned_chains(bench, cfg)
    if plan is not None:
        check_something(bench, plan.samples, cfg)
        return _run_chains(cfg, bench, plan, model)
    samples = select_samples(bench, cfg.tasks, cfg.limit, cfg.per_task)
    notes = check_something(bench, samples, cfg)
    settings = InputSettings.from_config(cfg)
    check_media(bench, samples, settings)
    given_model = model
    model = model or create_model(
        cfg.model, cfg.model_args, ModelContext(benchmark=bench, seed=cfg.seed, concurrency=cfg.concurrency)
    )
    manifest = run_manifest(cfg, bench, model)
    out = Path(cfg.out)
    check_resumable(out, manifest)
    with folder_lock(out, _command_label(cfg)):
        return _run_locked(cfg, bench, samples, settings, mode, model, given_model, manifest, out, notes)


def _run_locked(
    cfg: RunConfig,
    bench: Benchmark,
    samples: list[Sample],
    settings: InputSettings,
    mode: str | int,
    model: Model,
    given_model: Model | None,
    manifest: dict[str, Any],
    out: Path,
    notes: list[str] | None = None,
) -> RunSummary:
    """The body of `run_benchmark`, with the folder locked: run.json says how the run ended, whatever happens."""
    previous = (out / RUN_MANIFEST).is_file()
    old = read_json_object(out / RUN_MANIFEST) if previous else {}
    old_counts = old.get("counts")
    short: dict[str, int] = dict(old.get("frames_sent", {}).get("short", {}))
    stored_before = bool((old_counts or {}).get("rows"))
    if old_counts:
        manifest["counts"] = old_counts  # kept while running: an emptied store is then recognised
    manifest["status"] = "running"
    write_json(out / RUN_MANIFEST, manifest)

    ordered = clip_ordered(samples) if cfg.setting != "text" else samples
    items: Iterable[Item] = iter_items(ordered, mode, cfg.seed, cfg.epochs, cfg.history)
    if has_dependencies(samples, cfg.history):
        items = list(items)  # a dependency graph needs the whole plan (Ray's shards too); else it streams
    planned = count_items(samples, mode, cfg.seed, cfg.epochs)
    summary = RunSummary(out=out, planned=planned, warnings=list(notes or []))
    start = time.perf_counter()
    counts: dict[str, int] = {}
    usage: dict[str, Any] = {}
    cache = ResponseCache(cfg.cache) if cfg.cache is not None else None
    try:
        store = ResponseStore(out / STORE_FILE, expect_data=stored_before)
        try:
            store.reset_plan()
            if cfg.executor == "ray":
                if model.cheap_preflight:  # (Ray workers load hf models themselves)
                    summary.warnings.extend(asyncio.run(model.preflight()))
                try:
                    _drive_ray(cfg, list(items), store, summary, given_model, resumed=previous)
                finally:
                    short.update(summary.short_frames)  # (each shard measures the frames it sent)
            else:
                inputs = open_inputs(bench, settings)
                try:
                    runner = Runner(cfg, bench, model, store, inputs)
                    runner.cache = cache
                    asyncio.run(_drive(runner, items, summary, cfg.progress, resumed=previous))
                finally:
                    short.update(getattr(inputs, "short", {}))
                    inputs.close()
        finally:
            summary.seconds = time.perf_counter() - start
            counts = store.counts()
            usage = usage_figures(store, summary, cfg.price)
            store.close()
            if cache is not None:
                cache.close()
    except BaseException as exc:
        mark_failed(out, manifest, exc)
        raise
    manifest["status"] = "complete" if summary.errors == 0 and summary.blocked == 0 else "incomplete"
    manifest["served_models"] = sorted(summary.served_models)
    warning = served_model_warning(
        str(model.identity().get("model", "")), summary.served_models, "answered as"
    )
    summary.warnings.extend([warning] if warning and warning not in summary.warnings else [])
    if short:
        frames_note(manifest, summary, short, cfg.frames, sum(s.media.video is not None for s in samples))
    manifest["warnings"] = summary.warnings
    manifest["media_bytes_per_request"] = summary.payload()
    manifest["counts"] = {"planned": summary.planned, **{k: v for k, v in counts.items() if k != "planned"}}
    _end_figures(manifest, usage, cache, model)
    write_json(out / RUN_MANIFEST, manifest)
    return summary


def _end_figures(
    manifest: dict[str, Any], usage: dict[str, Any], cache: ResponseCache | None, model: Model
) -> None:
    """Token totals, throughput and cost; cache hits; the adaptive-concurrency figures of a server model."""
    manifest["usage"] = usage
    if cache is not None:
        manifest["cache"] = cache.counts.as_dict(cache.folder)
    load = getattr(model, "load_figures", None)
    if callable(load):
        manifest["concurrency"] = load()


def frames_note(
    manifest: dict[str, Any], summary: RunSummary, short: dict[str, int], asked: int, videos: int
) -> None:
    """Record in run.json (``frames_sent``) and say that some samples got fewer frames than --frames."""
    sent = sorted(short.values())
    manifest["frames_sent"] = {
        "asked": asked,
        "min": sent[0],
        "max": sent[-1],
        "samples": videos,
        "short_samples": len(short),
        "short": dict(sorted(short.items())),
    }
    first = ", ".join(f"{sid} {n}" for sid, n in list(sorted(short.items()))[:3])
    summary.warnings.append(
        f"--frames {asked}: {len(short)} sample(s) got fewer frames than asked ({sent[0]}–{sent[-1]}; "
        f"first: {first}) — their clips have fewer frames; run.json frames_sent lists them"
    )


def check_something(bench: Benchmark, samples: list[Sample], cfg: RunConfig) -> list[str]:
    """Refuse a run with no samples (exit 3, as `score` with n = 0), and warn when --per-task asks for more
    questions of a task than the benchmark has."""
    if not samples:
        where = (
            "holds no samples"
            if not bench.samples
            else "has no sample the selection (--tasks, --limit) keeps"
        )
        raise NothingToDo(
            f"{Path(bench.root) / bench.manifest.samples_file}: the benchmark {where} — nothing to run; "
            "rebuild it or widen the selection"
        )
    if cfg.per_task is None:
        return []
    got: dict[str, int] = {}
    for s in samples:
        got[s.task] = got.get(s.task, 0) + 1
    short = {t: n for t, n in got.items() if n < cfg.per_task}
    short.update({t: 0 for t in (cfg.tasks or []) if t not in got})
    if short:
        listed = ", ".join(f"{t} {n}" for t, n in sorted(short.items()))
        return [f"--per-task {cfg.per_task}: fewer questions than asked in {len(short)} task(s) ({listed})"]
    return []


def planned_chains(bench: Benchmark, cfg: RunConfig) -> ChainPlan | None:
    """The benchmark's own plan of this run (its plug-in's ``plan_requests``), or None for the standard plan;
    benchmark options (``cfg.options``) that no plug-in takes are refused."""
    plugin = plugin_for(bench.name)
    plan = plugin.plan_requests(bench, cfg) if plugin.plan_requests is not None else None
    if plan is None and cfg.options:
        raise ValueError(
            f"benchmark {bench.name!r} takes no option(s) {', '.join(sorted(cfg.options))} "
            "(they are another benchmark's run options)"
        )
    return plan


def _command_label(cfg: RunConfig) -> str:
    """The command holding a run folder's lock, as its lock file names it (``egoworld run``)."""
    command = cfg.command
    return f"egoworld {command['name']}" if command else "egoworld run"


def chain_manifest(cfg: RunConfig, bench: Benchmark, model: Model, plan: ChainPlan) -> dict[str, Any]:
    return {
        "egoworld_version": __version__,
        "benchmark": bench.name,
        "benchmark_path": str(Path(bench.root).resolve()),
        "benchmark_hash": bench.hash,
        "model": model.identity(),
        "model_spec": cfg.model,
        **plan.manifest,
        "command": cfg.command,
    }


def _run_chains(cfg: RunConfig, bench: Benchmark, plan: ChainPlan, model: Model | None) -> RunSummary:
    """`run_benchmark` for a benchmark's own plan of request chains."""
    golds: dict[str, str | None] = {}  # a step's gold reply by request key, for solvers such as the oracle
    model = model or create_model(
        cfg.model,
        cfg.model_args,
        ModelContext(
            benchmark=bench, seed=cfg.seed, concurrency=cfg.concurrency, gold_reply=lambda r: golds.get(r.key)
        ),
    )
    manifest = chain_manifest(cfg, bench, model, plan)
    out = Path(cfg.out)
    check_resumable(out, manifest)
    with folder_lock(out, _command_label(cfg)):
        write_json(out / RUN_MANIFEST, {**manifest, "status": "running"})
        try:
            return _run_chains_locked(cfg, plan, model, manifest, out, golds)
        except BaseException as exc:
            mark_failed(out, manifest, exc)
            raise


def _run_chains_locked(
    cfg: RunConfig,
    plan: ChainPlan,
    model: Model,
    manifest: dict[str, Any],
    out: Path,
    golds: dict[str, str | None],
) -> RunSummary:
    summary = RunSummary(out=out, samples=len(plan.samples))
    start = time.perf_counter()
    store = ResponseStore(out / STORE_FILE)
    cache = ResponseCache(cfg.cache) if cfg.cache is not None else None
    try:
        store.reset_plan()
        runner = ChainRunner(plan, model, store, cfg.concurrency, golds)
        runner.cache = cache
        asyncio.run(_drive_chains(runner, summary, cfg.progress))
        summary.seconds = time.perf_counter() - start
        cost = run_cost(store)
        counts = store.counts()
        usage = usage_figures(store, summary, cfg.price)
    finally:
        store.close()
        if cache is not None:
            cache.close()
    manifest.update(
        status="complete" if summary.errors == 0 and summary.blocked == 0 else "incomplete",
        served_models=sorted(summary.served_models),
        counts=counts,
        cost=cost,
    )
    _end_figures(manifest, usage, cache, model)
    warning = served_model_warning(
        str(model.identity().get("model", "")), summary.served_models, "answered as"
    )
    summary.warnings.extend([warning] if warning else [])
    manifest["warnings"] = summary.warnings
    write_json(out / RUN_MANIFEST, manifest)
    return summary


def run_cost(store: ResponseStore) -> dict[str, int]:
    """Requests (attempts), ok requests and tokens of the rows the latest command planned."""
    cost = {"requests": 0, "ok_requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for _s, _p, _e, _k, resp in store.planned():
        if resp is None:
            continue
        cost["requests"] += resp.attempts
        cost["ok_requests"] += resp.status == "ok"
        cost["prompt_tokens"] += resp.prompt_tokens or 0
        cost["completion_tokens"] += resp.completion_tokens or 0
    return cost


async def _drive_chains(runner: ChainRunner, summary: RunSummary, progress: bool) -> None:
    try:
        if not progress:
            await runner.execute(summary, lambda: None)
            return
        with _progress_bar(True) as bar:
            task = bar.add_task(
                f"{runner.model.name} · {runner.plan.label}", total=len(runner.plan.samples), status=""
            )
            await runner.execute(summary, lambda: bar.advance(task))
    finally:
        await runner.model.aclose()


def mark_failed(out: Path, manifest: dict[str, Any], exc: BaseException) -> None:
    """Record in run.json that the command stopped (never leave it "running"), even on a full disk."""
    interrupted = isinstance(exc, KeyboardInterrupt)
    manifest["status"] = "interrupted" if interrupted else "failed"
    if not interrupted:
        manifest["failure"] = redact(f"{type(exc).__name__}: {exc}")[:500]
    write_json_or_in_place(out / RUN_MANIFEST, manifest)


def _progress_bar(enabled: bool):
    """A bar on a terminal; plain progress lines when stderr is a log file (see `egoworld.core.process.progress`)."""
    from egoworld.core.process.progress import progress_bar

    return progress_bar(enabled)


def _drive_ray(
    cfg: RunConfig,
    items: list[Item],
    store: ResponseStore,
    summary: RunSummary,
    model: Model | None,
    resumed: bool,
) -> None:
    with _progress_bar(cfg.progress) as bar:
        task = bar.add_task(
            f"{cfg.model} (ray, {'resume' if resumed else 'run'})", total=len(items), status=""
        )

        def advance(n: int) -> None:
            bar.update(task, advance=n, status=f"ok {summary.ok + summary.reused} · err {summary.errors}")

        execute_with_ray(
            cfg, items, store, summary, advance, address=cfg.address, shard_size=cfg.shard_size, model=model
        )


async def _drive(
    runner: Runner, items: Iterable[Item], summary: RunSummary, progress: bool, resumed: bool
) -> None:
    try:
        if not progress:
            await runner.execute(items, summary, lambda: None)
            return
        label = f"{runner.model.name} ({'resume' if resumed else 'run'})"
        with _progress_bar(True) as bar:
            task = bar.add_task(label, total=summary.planned, status="")

            def advance() -> None:
                bar.update(task, advance=1, status=f"ok {summary.ok + summary.reused} · err {summary.errors}")

            await runner.execute(items, summary, advance)
    finally:
        summary.warnings.extend(runner.warnings)
        await runner.model.aclose()
