"""`run_benchmark`: build every request of a run, skip what the store already has, call the model with
bounded concurrency, and write each response as it arrives.

Work items are (sample, option order, epoch). Items of a trajectory run after the steps they depend on when
the history mode needs their answers; everything else is independent. Items are ordered by clip so media
is read once per clip.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.core.bench_folder import Benchmark, load_benchmark
from egoworld.core.files import InputFileError, read_json_object, write_json, write_json_or_in_place
from egoworld.core.hashing import sha256_json
from egoworld.core.history import HISTORY_MODES
from egoworld.core.keys import request_key
from egoworld.core.lock import folder_lock
from egoworld.core.model import Message, Model, ModelContext, Request, TextPart
from egoworld.core.permutations import parse_mode, permutation_id
from egoworld.core.plan import Item, ItemId, plan_items, select_samples
from egoworld.core.plugin import plugin_for
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE, RunConfig, check_resumable, config_dict
from egoworld.core.schema import Sample
from egoworld.core.secrets import redact
from egoworld.core.store import ResponseStore
from egoworld.models.preflight import served_model_warning
from egoworld.models.spec import create_model
from egoworld.runner.call import call_and_store
from egoworld.runner.config_file import recorded_command
from egoworld.runner.inputs import InputSettings, MediaInputs, check_media, open_inputs
from egoworld.scoring.extract import extract_answer


@dataclass
class RunSummary:
    out: Path
    planned: int = 0
    called: int = 0
    reused: int = 0
    ok: int = 0
    errors: int = 0
    blocked: int = 0
    seconds: float = 0.0
    served_models: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    media_bytes: int = 0  # encoded images and clips in the requests sent
    media_bytes_max: int = 0  # the largest request's

    def line(self) -> str:
        warned = "".join(f"\nwarning: {w}" for w in self.warnings)
        return (
            warned.lstrip("\n")
            + ("\n" if warned else "")
            + (
                f"{self.planned} requests: {self.reused} already done, {self.called} sent "
                f"({self.ok} ok, {self.errors} errors), {self.blocked} waiting on failed steps — {self.seconds:.1f} s"
                + self.payload_line()
            )
        )

    def payload_line(self) -> str:
        """``; media 12.3 MB per request (max 13.1 MB)`` when requests carrying media were sent."""
        if not self.called or not self.media_bytes:
            return ""
        mean = self.media_bytes / self.called / 1e6
        return f"; media {mean:.2f} MB per request (max {self.media_bytes_max / 1e6:.2f} MB)"

    def payload(self) -> dict[str, Any]:
        """Bytes per request sent (encoded media; a data URL is 4/3 of it), for the run manifest."""
        mean = round(self.media_bytes / self.called) if self.called else 0
        return {"requests_sent": self.called, "mean": mean, "max": self.media_bytes_max}


class Runner:
    def __init__(
        self, cfg: RunConfig, bench: Benchmark, model: Model, store: ResponseStore, inputs: MediaInputs
    ):
        self.cfg, self.bench, self.model, self.store, self.inputs = cfg, bench, model, store, inputs
        self.plugin = plugin_for(bench.name)
        self.identity = model.identity()
        self.input_settings = InputSettings.from_config(cfg).describe()
        self.answers: dict[
            ItemId, int | float | None
        ] = {}  # parsed answers (original choice index) for histories
        self.failed: set[ItemId] = set()
        self.ok_keys = store.ok_keys()
        self._preflight: asyncio.Future[list[str]] | None = None
        self.warnings: list[str] = []

    async def preflight(self) -> None:
        """Check the model once, before the first request that must be sent (none on a finished run);
        every worker waits for that one check and sees its failure."""
        if self._preflight is None:
            self._preflight = asyncio.ensure_future(self.model.preflight())
        self.warnings = list(await asyncio.shield(self._preflight))

    def build(self, item: Item) -> Request:
        s, prompt = item.sample, self.plugin.prompt
        choices = prompt.presented_choices(s, item.perm)
        text = prompt.question_text(s, choices)
        if self.cfg.history != "none" and s.trajectory and s.trajectory.depends_on:
            steps = []
            for dep_id in s.trajectory.depends_on:
                dep = self.bench.sample(dep_id)
                if self.cfg.history == "gold":
                    value = dep.correct_indices[0] if dep.answer_type == "choice" else dep.answer
                else:
                    value = self.answers.get(next(d for d in item.deps if d[0] == dep_id))
                steps.append((dep, prompt.answer_text(dep, value)))
            text = prompt.with_history(text, steps)
        parts = [*self.inputs.parts(self.bench, s), TextPart(text)]
        messages = (Message(role="user", content=tuple(parts)),)
        pid = permutation_id(item.perm)
        key = request_key(
            model=self.identity,
            messages=messages,
            sample_id=s.id,
            permutation=pid,
            epoch=item.epoch,
            inputs=self.input_settings,
        )
        return Request(
            key=key,
            sample_id=s.id,
            messages=messages,
            choices=choices,
            permutation=item.perm,
            epoch=item.epoch,
        )

    def remember(self, item: Item, raw: str | None) -> None:
        if self.cfg.history != "pred" or raw is None:
            return
        s = item.sample
        choices = self.plugin.prompt.presented_choices(s, item.perm)
        if s.answer_type == "free":
            self.answers[item.id] = None
            return
        if s.answer_type == "time_point":  # shown back as the model wrote it
            self.answers[item.id] = raw.strip().splitlines()[0] if raw.strip() else None  # type: ignore[assignment]
            return
        ex = extract_answer(raw, s.answer_type, choices)
        value = ex.value
        if value is not None and s.answer_type == "choice" and item.perm is not None:
            value = item.perm[int(value)]
        self.answers[item.id] = value

    async def process(self, item: Item, summary: RunSummary) -> bool:
        """Run one item; True when it has an ok response."""
        if any(d in self.failed for d in item.deps):
            summary.blocked += 1
            return False
        pid = permutation_id(item.perm)
        try:
            if self.cfg.setting == "text":
                request = self.build(item)
            else:
                request = await asyncio.to_thread(self.build, item)
        except InputFileError as exc:  # e.g. a corrupt video: this item is an error row; the run goes on
            self._input_error(item, pid, exc, summary)
            return False
        self.store.plan(item.sample.id, pid, item.epoch, request.key)
        if request.key in self.ok_keys:
            summary.reused += 1
            if self.cfg.history == "pred":
                row = self.store.get(request.key)
                self.remember(item, row.raw if row else None)
            return True
        await self.preflight()
        gen = await call_and_store(
            self.model, request, self.store, permutation=pid, epoch=item.epoch, summary=summary
        )
        if gen is None:
            return False
        self.remember(item, gen.text)
        return True

    def _input_error(self, item: Item, pid: str, exc: InputFileError, summary: RunSummary) -> None:
        """Record an item whose inputs could not be built (retried on resume, never scored)."""
        key = sha256_json(
            {
                "input_error": True,
                "model": self.identity,
                "sample": item.sample.id,
                "permutation": pid,
                "epoch": item.epoch,
                "inputs": self.input_settings,
            }
        )
        self.store.plan(item.sample.id, pid, item.epoch, key)
        self.store.put(
            key=key,
            sample_id=item.sample.id,
            permutation=pid,
            epoch=item.epoch,
            status="error",
            error=str(exc),
        )
        summary.errors += 1

    async def execute(self, items: list[Item], summary: RunSummary, advance: Callable[[], None]) -> None:
        by_id = {it.id: it for it in items}
        waiting = {it.id: len(it.deps) for it in items}
        dependents: dict[ItemId, list[ItemId]] = {}
        for it in items:
            for d in it.deps:
                if d not in by_id:
                    raise ValueError(f"{it.sample.id} depends on {d}, which is not part of this run")
                dependents.setdefault(d, []).append(it.id)
        ready: deque[Item] = deque(it for it in items if not it.deps)
        remaining = len(items)
        wake = asyncio.Event()

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                if not ready:
                    wake.clear()
                    await wake.wait()
                    continue
                item = ready.popleft()
                ok = await self.process(item, summary)
                if not ok:
                    self.failed.add(item.id)
                for dep_id in dependents.get(item.id, ()):
                    waiting[dep_id] -= 1
                    if waiting[dep_id] == 0:
                        ready.append(by_id[dep_id])
                remaining -= 1
                advance()
                wake.set()

        workers = [asyncio.create_task(worker()) for _ in range(max(1, self.cfg.concurrency))]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()


def _clip_order(items: list[Item]) -> list[Item]:
    """Group items by video so each clip's media is read once (stable within a clip)."""
    first_seen: dict[str, int] = {}
    for it in items:
        v = it.sample.media.video.path if it.sample.media.video else ""
        first_seen.setdefault(v, len(first_seen))
    return sorted(
        items, key=lambda it: first_seen[it.sample.media.video.path if it.sample.media.video else ""]
    )


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
        "command": recorded_command(),
    }


def run_benchmark(cfg: RunConfig, *, model: Model | None = None) -> RunSummary:
    """Run (or resume) ``cfg``; returns counts. Errors are stored and retried by the next run."""
    if cfg.history not in HISTORY_MODES:
        raise ValueError(f"--history {cfg.history!r}: expected one of {', '.join(HISTORY_MODES)}")
    if cfg.epochs < 1:
        raise ValueError("--epochs must be at least 1")
    if cfg.executor not in ("local", "ray"):
        raise ValueError(f"--executor {cfg.executor!r}: expected local or ray")
    mode = parse_mode(str(cfg.permutations))
    bench = load_benchmark(cfg.bench)
    samples = select_samples(bench, cfg.tasks, cfg.limit, cfg.per_task)
    settings = InputSettings.from_config(cfg)
    check_media(bench, samples, settings)
    given_model = model
    model = model or create_model(
        cfg.model, cfg.model_args, ModelContext(benchmark=bench, seed=cfg.seed, concurrency=cfg.concurrency)
    )
    manifest = run_manifest(cfg, bench, model)
    out = Path(cfg.out)
    check_resumable(out, manifest)
    with folder_lock(out):
        return _run_locked(cfg, bench, samples, settings, mode, model, given_model, manifest, out)


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
) -> RunSummary:
    """The body of `run_benchmark`, with the folder locked: run.json says how the run ended, whatever happens."""
    previous = (out / RUN_MANIFEST).is_file()
    old_counts = read_json_object(out / RUN_MANIFEST).get("counts") if previous else None
    stored_before = bool((old_counts or {}).get("rows"))
    if old_counts:
        manifest["counts"] = old_counts  # kept while running: an emptied store is then recognised
    manifest["status"] = "running"
    write_json(out / RUN_MANIFEST, manifest)

    items = plan_items(samples, mode, cfg.seed, cfg.epochs, cfg.history)
    if cfg.setting != "text":
        items = _clip_order(items)
    summary = RunSummary(out=out, planned=len(items))
    start = time.perf_counter()
    counts: dict[str, int] = {}
    try:
        store = ResponseStore(out / STORE_FILE, expect_data=stored_before)
        try:
            store.reset_plan()
            if cfg.executor == "ray":
                if model.cheap_preflight:  # (Ray workers load hf models themselves)
                    summary.warnings.extend(asyncio.run(model.preflight()))
                _drive_ray(cfg, items, store, summary, given_model, resumed=previous)
            else:
                inputs = open_inputs(bench, settings)
                try:
                    runner = Runner(cfg, bench, model, store, inputs)
                    asyncio.run(_drive(runner, items, summary, cfg.progress, resumed=previous))
                finally:
                    inputs.close()
        finally:
            counts = store.counts()
            store.close()
    except BaseException as exc:
        mark_failed(out, manifest, exc)
        raise
    summary.seconds = time.perf_counter() - start
    manifest["status"] = "complete" if summary.errors == 0 and summary.blocked == 0 else "incomplete"
    manifest["served_models"] = sorted(summary.served_models)
    warning = served_model_warning(
        str(model.identity().get("model", "")), summary.served_models, "answered as"
    )
    summary.warnings.extend([warning] if warning and warning not in summary.warnings else [])
    manifest["warnings"] = summary.warnings
    manifest["media_bytes_per_request"] = summary.payload()
    manifest["counts"] = {"planned": summary.planned, **{k: v for k, v in counts.items() if k != "planned"}}
    write_json(out / RUN_MANIFEST, manifest)
    return summary


def mark_failed(out: Path, manifest: dict[str, Any], exc: BaseException) -> None:
    """Record in run.json that the command stopped (never leave it "running"), even on a full disk."""
    interrupted = isinstance(exc, KeyboardInterrupt)
    manifest["status"] = "interrupted" if interrupted else "failed"
    if not interrupted:
        manifest["failure"] = redact(f"{type(exc).__name__}: {exc}")[:500]
    write_json_or_in_place(out / RUN_MANIFEST, manifest)


def _progress_bar(enabled: bool):
    """A bar on a terminal; plain progress lines when stderr is a log file (see `egoworld.core.progress`)."""
    from egoworld.core.progress import progress_bar

    return progress_bar(enabled)


def _drive_ray(
    cfg: RunConfig,
    items: list[Item],
    store: ResponseStore,
    summary: RunSummary,
    model: Model | None,
    resumed: bool,
) -> None:
    from egoworld.runner.ray_executor import execute_with_ray

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
    runner: Runner, items: list[Item], summary: RunSummary, progress: bool, resumed: bool
) -> None:
    try:
        if not progress:
            await runner.execute(items, summary, lambda: None)
            return
        label = f"{runner.model.name} ({'resume' if resumed else 'run'})"
        with _progress_bar(True) as bar:
            task = bar.add_task(label, total=len(items), status="")

            def advance() -> None:
                bar.update(task, advance=1, status=f"ok {summary.ok + summary.reused} · err {summary.errors}")

            await runner.execute(items, summary, advance)
    finally:
        summary.warnings.extend(runner.warnings)
        await runner.model.aclose()
