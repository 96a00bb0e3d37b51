"""`run_benchmark`: run (or resume) a model over a benchmark into a run folder — plan the requests, skip what
the store already has, call the model with bounded concurrency, write each response as it arrives and record
in run.json how the run ended.

Every run is a set of requests with dependencies (`egoworld.core.plan.RunPlan`), sent by the one `Runner`
in-process or over Ray. The standard plan is one request per (sample, option order, epoch)
(`egoworld.core.plan`), ordered by clip so media is read once per clip; items of a trajectory wait for the
steps they depend on when the history mode needs their answers. A benchmark whose plug-in plans its own
requests (``plan_requests``: chains whose prompts carry earlier replies, e.g. EXPLORE's stepwise strategies)
gives chains whose steps each depend on the one before (`egoworld.runner.chain_runner`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
from egoworld.core.input_protocol import PROTOCOL, protocol_of
from egoworld.core.model import Model, ModelContext
from egoworld.core.permutations import parse_mode
from egoworld.core.plan import PlanItems, RunPlan, count_items, select_samples
from egoworld.core.plugin import plugin_for
from egoworld.core.process.secrets import redact
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE, RunConfig, check_resumable, config_dict
from egoworld.core.schema import Sample
from egoworld.models.preflight import served_model_warning
from egoworld.models.spec import create_model
from egoworld.runner.chain_runner import ChainRequests, chain_steps
from egoworld.runner.figures import parse_price, usage_figures
from egoworld.runner.inputs import InputSettings, check_media, open_inputs, run_inputs
from egoworld.runner.ray_executor import execute_with_ray
from egoworld.runner.response_cache import ResponseCache, open_optional_cache
from egoworld.runner.summary import RunSummary
from egoworld.runner.worker import ItemRequests, Requests, Runner, clip_ordered

#: how long a run's writes may wait for their commit (a killed run loses at most these, and what is in flight)
COMMIT_SECONDS = 0.2


def run_benchmark(cfg: RunConfig, *, model: Model | None = None) -> RunSummary:
    """Run (or resume) ``cfg``; returns counts. Errors are stored and retried by the next run."""
    check_config(cfg)
    mode = parse_mode(str(cfg.permutations))
    bench = load_benchmark(cfg.bench)
    plan = plan_run(bench, cfg, mode)
    golds = plan.golds
    given_model = model
    model = model or create_model(
        cfg.model,
        cfg.model_args,
        ModelContext(
            benchmark=bench,
            seed=cfg.seed,
            concurrency=cfg.concurrency,
            gold_reply=None if golds is None else lambda r: golds.get(r.key),
        ),
    )
    manifest = run_manifest(cfg, bench, model, plan)
    out = Path(cfg.out)
    check_resumable(out, manifest)
    with folder_lock(out, _command_label(cfg)):
        summary = _run_locked(cfg, bench, plan, model, given_model, manifest, out)
    summary.bench = bench
    return summary


def check_config(cfg: RunConfig) -> None:
    """Refuse settings no run takes, before anything is read or sent."""
    if cfg.history not in HISTORY_MODES:
        raise ValueError(f"--history {cfg.history!r}: expected one of {', '.join(HISTORY_MODES)}")
    if cfg.epochs < 1:
        raise ValueError("--epochs must be at least 1")
    if cfg.executor not in ("local", "ray"):
        raise ValueError(f"--executor {cfg.executor!r}: expected local or ray")
    if cfg.cache is not None and cfg.executor == "ray":
        raise ValueError("--cache works with --executor local (Ray workers do not share the cache yet)")
    parse_price(cfg.price)  # a bad --price fails before any request is sent


def plan_run(bench: Benchmark, cfg: RunConfig, mode: str | int) -> RunPlan:
    """The benchmark's own chains of this run, else the standard plan of its selection (media checked)."""
    chains = planned_chains(bench, cfg)
    if chains is not None:
        check_something(bench, chains.samples, cfg)
        if cfg.executor != "local":
            raise ValueError(f"{bench.name}'s request chains run in-process: drop --executor {cfg.executor}")
        return chain_plan(chains)
    samples = select_samples(bench, cfg.tasks, cfg.limit, cfg.per_task)
    notes = check_something(bench, samples, cfg)
    check_media(bench, samples, InputSettings.from_config(cfg))
    ordered = clip_ordered(samples) if cfg.setting != "text" else samples
    planned = count_items(samples, mode, cfg.seed, cfg.epochs)
    return RunPlan(
        samples=samples,
        nodes=PlanItems(
            ordered, mode, cfg.seed, cfg.epochs, cfg.history
        ),  # (streamed, also with dependencies)
        size=planned,
        manifest=standard_manifest(cfg),
        warnings=notes,
        planned=planned,
    )


def chain_plan(chains: ChainPlan) -> RunPlan:
    """A plug-in's chains as a run plan: every step of each chain depends on the one before."""
    steps = chain_steps(chains)
    return RunPlan(
        samples=chains.samples,
        nodes=steps,
        size=len(steps),
        manifest=chains.manifest,
        label=chains.label,
        chains=chains,
        golds={},
        figures=("cost",),
    )


def standard_manifest(cfg: RunConfig) -> dict[str, Any]:
    """The standard plan's run.json fields between ``model_spec`` and ``command``."""
    return {
        "inputs": run_inputs(cfg),
        "permutations": cfg.permutations,
        "seed": cfg.seed,
        "epochs": cfg.epochs,
        "history": cfg.history,
        "selection": cfg.selection(),
        "executor": cfg.executor,
        "config": config_dict(cfg),
    }


def run_manifest(cfg: RunConfig, bench: Benchmark, model: Model, plan: RunPlan) -> dict[str, Any]:
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


def _run_locked(
    cfg: RunConfig,
    bench: Benchmark,
    plan: RunPlan,
    model: Model,
    given_model: Model | None,
    manifest: dict[str, Any],
    out: Path,
) -> RunSummary:
    """The body of `run_benchmark`, with the folder locked: run.json says how the run ended, whatever happens."""
    previous = (out / RUN_MANIFEST).is_file()
    old = read_json_object(out / RUN_MANIFEST) if previous else {}
    short: dict[str, int] = dict(old.get("frames_sent", {}).get("short", {}))
    if old.get("counts"):
        manifest["counts"] = old["counts"]  # kept while running: an emptied store is then recognised
    manifest["status"] = "running"
    write_json(out / RUN_MANIFEST, manifest)
    summary = RunSummary(
        out=out,
        planned=plan.planned or 0,
        samples=len(plan.samples) if plan.planned is None else None,
        warnings=list(plan.warnings),
    )
    start = time.perf_counter()
    cache = open_optional_cache(cfg.cache, _warn)
    try:
        store = ResponseStore(out / STORE_FILE, expect_data=bool((old.get("counts") or {}).get("rows")))
        try:
            if _finished(cfg, bench, plan, model, old, manifest, store):
                summary.reused = summary.planned
                summary.kept_scores = old.get("scores")
                asyncio.run(model.aclose())
            else:
                with store.grouped(COMMIT_SECONDS):
                    store.reset_plan()
                    _drive(cfg, bench, plan, model, given_model, store, cache, summary, resumed=previous)
        finally:
            summary.seconds = time.perf_counter() - start
            counts = store.counts()
            figures = {name: FIGURES[name](store, summary) for name in plan.figures}
            usage = usage_figures(store, summary, cfg.price)
            store.close()
            if cache is not None:
                cache.close()
    except BaseException as exc:
        mark_failed(out, manifest, exc)
        raise
    short.update(summary.short_frames)
    _end_manifest(manifest, summary, model, short, cfg.frames, plan.samples)
    manifest.update(figures)
    if plan.planned is not None:
        counts["planned"] = plan.planned
    manifest["counts"] = counts
    _end_figures(manifest, usage, cache, model)
    write_json(out / RUN_MANIFEST, manifest)
    return summary


def _finished(
    cfg: RunConfig,
    bench: Benchmark,
    plan: RunPlan,
    model: Model,
    old: dict[str, Any],
    manifest: dict[str, Any],
    store: ResponseStore,
) -> bool:
    """True when this command repeats a complete run of the standard plan in the text setting: run.json as
    it was (egoworld version, benchmark, model, settings, selection, command), each request of the plan
    stored ok, and the first request's key still the one stored. Such a run has nothing to send; its store,
    and the scores written from it, stay as they are."""
    if old.get("status") != "complete" or plan.planned is None or cfg.setting != "text":
        return False
    if any(old.get(k) != v for k, v in manifest.items() if k not in ("counts", "status")):
        return False
    if store.plan_done() != (plan.planned, plan.planned):
        return False
    first = next(iter(plan.nodes))
    requests = ItemRequests(cfg, bench, model.identity(), open_inputs(bench, InputSettings.from_config(cfg)))
    return store.planned_key(*first.id) == requests.build(first, {}).key


def _end_manifest(
    manifest: dict[str, Any],
    summary: RunSummary,
    model: Model,
    short: dict[str, int],
    asked: int,
    samples: list[Sample],
) -> None:
    """How the run ended: its status, the models that answered, short clips and warnings."""
    manifest["status"] = "complete" if summary.errors == 0 and summary.blocked == 0 else "incomplete"
    manifest["served_models"] = sorted(summary.served_models)
    warning = served_model_warning(
        str(model.identity().get("model", "")), summary.served_models, "answered as"
    )
    summary.warnings.extend([warning] if warning and warning not in summary.warnings else [])
    if short:
        frames_note(manifest, summary, short, asked, sum(s.media.video is not None for s in samples))
    manifest["warnings"] = summary.warnings


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
    protocol_of(cfg.options)  # a bad value fails before anything is read
    rest = sorted(k for k in cfg.options if k != PROTOCOL or plugin.official_inputs is None)
    if plan is None and rest:
        raise ValueError(
            f"benchmark {bench.name!r} takes no option(s) {', '.join(rest)} "
            "(they are another benchmark's run options)"
        )
    return plan


def _warn(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _command_label(cfg: RunConfig) -> str:
    """The command holding a run folder's lock, as its lock file names it (``egoworld sweep run``)."""
    command = cfg.command
    return f"egoworld {command['name']}" if command else "egoworld run"


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


#: run.json figures a plan may ask for besides the usage (`RunPlan.figures`)
FIGURES: dict[str, Callable[[ResponseStore, RunSummary], Any]] = {
    "media_bytes_per_request": lambda _store, summary: summary.payload(),
    "cost": lambda store, _summary: run_cost(store),
}


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


def _drive(
    cfg: RunConfig,
    bench: Benchmark,
    plan: RunPlan,
    model: Model,
    given_model: Model | None,
    store: ResponseStore,
    cache: ResponseCache | None,
    summary: RunSummary,
    resumed: bool,
) -> None:
    """Send the plan's requests — in this process, or in Ray tasks that return their rows — with a bar."""
    ray = cfg.executor == "ray"
    how = ("ray, " if ray else "") + ("resume" if resumed else "run")
    label = " · ".join(x for x in (model.name, plan.label) if x) + f" ({how})"
    with _progress_bar(cfg.progress) as bar:
        task = bar.add_task(label, total=plan.size, status="")

        def advance(n: int = 1) -> None:
            bar.update(task, advance=n, status=f"ok {summary.ok + summary.reused} · err {summary.errors}")

        if not ray:
            asyncio.run(_execute(cfg, bench, plan, model, store, cache, summary, advance))
            return
        if model.cheap_preflight:  # (Ray workers load hf models themselves)
            summary.warnings.extend(asyncio.run(model.preflight()))
        execute_with_ray(
            cfg,
            list(plan.nodes),
            store,
            summary,
            advance,
            address=cfg.address,
            shard_size=cfg.shard_size,
            model=given_model,
        )


async def _execute(
    cfg: RunConfig,
    bench: Benchmark,
    plan: RunPlan,
    model: Model,
    store: ResponseStore,
    cache: ResponseCache | None,
    summary: RunSummary,
    advance: Callable[[], None],
) -> None:
    """The in-process run: one `Runner` over the plan's requests."""
    try:
        with _requests(cfg, bench, plan, model, summary) as requests:
            runner = Runner(requests, model, store, cfg.concurrency)
            runner.cache = cache
            try:
                await runner.execute(plan.nodes, summary, advance)
            finally:
                summary.warnings.extend(runner.warnings)
    finally:
        await model.aclose()


@contextmanager
def _requests(
    cfg: RunConfig, bench: Benchmark, plan: RunPlan, model: Model, summary: RunSummary
) -> Iterator[Requests]:
    """The plan's request builder; the standard plan's media inputs are open meanwhile (the clips that gave
    fewer frames than asked go to ``summary.short_frames``)."""
    if plan.chains is not None:
        yield ChainRequests(plan.chains, model.identity(), plan.golds if plan.golds is not None else {})
        return
    inputs = open_inputs(bench, InputSettings.from_config(cfg))
    try:
        yield ItemRequests(cfg, bench, model.identity(), inputs)
    finally:
        summary.short_frames.update(getattr(inputs, "short", {}))
        inputs.close()
