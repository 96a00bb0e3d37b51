"""`run_explore`: run a model over an EXPLORE benchmark with an inference strategy.

Why a driver of its own: a stepwise multi-turn sample is a chain of requests whose prompts contain the
model's previous answers, and a single-turn stepwise reply must be parsed as a list. The generic runner keeps
one request per (sample, order, epoch) — the one-go strategy, which it runs through the plug-in's prompt
builder — and stays benchmark-agnostic. This driver reuses everything else: the `Model` backends (HTTP retries,
baselines), request keys, the `ResponseStore` (resume, error rows retried) and the run-folder layout, so
`egoworld score RUNDIR` and `egoworld report` treat its runs like any other.

Each request is stored under the step label (``one-go``, ``list`` or ``turn-001`` …) in the ``permutation``
column; the plan table lists the steps of the latest command. Turn k's key covers turn k−1's answer, so a
resumed chain reuses finished turns and continues where it stopped; a failed turn blocks the rest of its chain.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.benchmarks.explore.images import image_part
from egoworld.benchmarks.explore.instances import Instance, Scene, instance_from_sample
from egoworld.benchmarks.explore.prompts import (
    describe_scene,
    describe_scene_list,
    next_turn_prompt,
    one_go_prompt,
    single_turn_prompt,
)
from egoworld.benchmarks.explore.selection import select_explore_samples
from egoworld.benchmarks.explore.strategy import Strategy, clean_reply, step_labels
from egoworld.core.bench_folder import Benchmark, load_benchmark
from egoworld.core.files import InputFileError, read_json_object, write_json
from egoworld.core.keys import request_key
from egoworld.core.lock import folder_lock
from egoworld.core.model import Message, Model, ModelContext, Part, Request, TextPart
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE, check_resumable
from egoworld.core.schema import Sample
from egoworld.core.store import ResponseStore
from egoworld.models.preflight import served_model_warning
from egoworld.models.spec import create_model
from egoworld.runner.call import call_and_store
from egoworld.runner.config_file import recorded_command
from egoworld.runner.run import RunSummary, mark_failed

SETTINGS = ("image", "text")


@dataclass
class ExploreRunConfig:
    bench: Path
    model: str
    out: Path
    strategy: Strategy = field(default_factory=Strategy)
    model_args: dict[str, str] = field(default_factory=dict)
    setting: str = "image"
    subset: str = "full"
    tasks: list[str] | None = None
    limit: int | None = None
    seed: int = 0
    concurrency: int = 8
    progress: bool = True


@dataclass
class ExploreRunSummary(RunSummary):
    """`RunSummary` counted per request, plus the number of samples (a sample may take several turns)."""

    samples: int = 0

    def line(self) -> str:
        return "".join(f"warning: {w}\n" for w in self.warnings) + (
            f"{self.samples} samples: {self.reused} requests already done, {self.called} sent ({self.ok} ok, "
            f"{self.errors} errors), {self.blocked} steps waiting on failed turns — {self.seconds:.1f} s"
        )


def _scene_after(inst: Instance, n: int) -> Scene | None:
    """The annotated scene after ``n`` actions, or the final scene when that step is not annotated."""
    if inst.final is None:
        return None
    if n == 0 and inst.initial is not None:
        return inst.initial
    for m in inst.middle:
        if m.after_action == n:
            return m
    return inst.final


def gold_replies(inst: Instance, strategy: Strategy) -> list[str | None]:
    """The oracle's reply for each step (the annotated scenes in the form each prompt asks for)."""
    if inst.final is None:
        return [None] * len(step_labels(strategy, inst.actions_text))
    if strategy.kind == "one-go":
        return [describe_scene(inst.final.objects)]
    scenes = [_scene_after(inst, n) for n in strategy.step_ends(inst.actions_text)]
    objs = [s.objects if s is not None else () for s in scenes]
    if strategy.turns == "single":
        return [describe_scene_list(objs)]
    return [describe_scene(o) for o in objs]


def check_images(bench: Benchmark, samples: list[Sample]) -> None:
    """One error listing every sample without an initial image file (the image setting needs them)."""
    missing = []
    for s in samples:
        path = bench.resolve(s.media.images[0].path) if s.media.images else None
        if path is None or not path.is_file():
            missing.append(f"{s.id}: {path or 'no image in the sample'}")
    if missing:
        shown = "\n  ".join(missing[:10]) + (
            f"\n  … and {len(missing) - 10} more" if len(missing) > 10 else ""
        )
        raise InputFileError(
            f"setting 'image': {len(missing)} sample(s) lack their initial image (paths relative to "
            f"{bench.root}):\n  {shown}\nfix: `egoworld import explore-anno FILE --images DIR`, or run with "
            "--setting text"
        )


class _Driver:
    def __init__(
        self,
        cfg: ExploreRunConfig,
        bench: Benchmark,
        model: Model,
        store: ResponseStore,
        golds: dict[str, str | None],
    ):
        self.cfg, self.bench, self.model, self.store = cfg, bench, model, store
        self.golds = golds  # the oracle's reply by request key (its `ModelContext.gold_reply` reads it)
        self.identity = model.identity()
        self.inputs = {"setting": cfg.setting, "explore": cfg.strategy.describe()}
        self.ok_keys = store.ok_keys()
        self.sem = asyncio.Semaphore(max(1, cfg.concurrency))

    def _messages(self, image: list[Part], text: str) -> tuple[Message, ...]:
        return (Message(role="user", content=(*image, TextPart(text))),)

    def _prompt(self, step: int, segments: list[str], actions_text: str, previous: str | None) -> str:
        st = self.cfg.strategy
        if st.kind == "one-go":
            return one_go_prompt(actions_text)
        if st.turns == "single":
            return single_turn_prompt(segments)
        return one_go_prompt(segments[0]) if step == 0 else next_turn_prompt(previous or "", segments[step])

    async def run_sample(self, sample: Sample, summary: ExploreRunSummary) -> None:
        inst = instance_from_sample(sample)
        st = self.cfg.strategy
        segments = st.segments(sample.question)
        labels = step_labels(st, sample.question)
        golds = gold_replies(inst, st)
        image: list[Part] = []
        if self.cfg.setting == "image":
            image = [await asyncio.to_thread(image_part, self.bench.resolve(inst.image or ""))]
        previous: str | None = None
        for i, label in enumerate(labels):
            messages = self._messages(image, self._prompt(i, segments, sample.question, previous))
            key = request_key(
                model=self.identity,
                messages=messages,
                sample_id=sample.id,
                permutation=label,
                epoch=0,
                inputs=self.inputs,
            )
            self.store.plan(sample.id, label, 0, key)
            if key in self.ok_keys:
                row = self.store.get(key)
                raw = row.raw if row else ""
                summary.reused += 1
            else:
                self.golds[key] = golds[i]
                request = Request(
                    key=key, sample_id=sample.id, messages=messages, choices=None, permutation=None, epoch=0
                )
                raw = await self._call(request, label, summary)
                if raw is None:
                    summary.blocked += len(labels) - i - 1
                    return
            previous = clean_reply(raw or "")

    async def _call(self, request: Request, label: str, summary: ExploreRunSummary) -> str | None:
        async with self.sem:
            gen = await call_and_store(
                self.model, request, self.store, permutation=label, epoch=0, summary=summary
            )
        return None if gen is None else gen.text


def explore_manifest(cfg: ExploreRunConfig, bench: Benchmark, model: Model) -> dict[str, Any]:
    selection = {"subset": cfg.subset, "tasks": cfg.tasks, "limit": cfg.limit}
    return {
        "egoworld_version": __version__,
        "benchmark": bench.name,
        "benchmark_path": str(Path(bench.root).resolve()),
        "benchmark_hash": bench.hash,
        "model": model.identity(),
        "model_spec": cfg.model,
        "inputs": {"setting": cfg.setting, "explore": cfg.strategy.describe()},
        "permutations": "none",
        "seed": cfg.seed,
        "epochs": 1,
        "history": "none",
        "selection": selection,
        "executor": "explore-driver",
        "config": {
            "tasks": cfg.tasks,
            "limit": cfg.limit,
            "per_task": None,
            "epochs": 1,
            "seed": cfg.seed,
            "concurrency": cfg.concurrency,
            "model_args": cfg.model_args,
        },
        "explore": {"strategy": cfg.strategy.describe(), "selection": selection},
        "command": recorded_command(),
    }


def _run_cost(store: ResponseStore) -> dict[str, int]:
    cost = {"requests": 0, "ok_requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for _s, _p, _e, _k, resp in store.planned():
        if resp is None:
            continue
        cost["requests"] += resp.attempts
        cost["ok_requests"] += resp.status == "ok"
        cost["prompt_tokens"] += resp.prompt_tokens or 0
        cost["completion_tokens"] += resp.completion_tokens or 0
    return cost


def run_explore(cfg: ExploreRunConfig, *, model: Model | None = None) -> ExploreRunSummary:
    """Run (or resume) ``cfg``; failed requests are stored and retried by the next run of the same command."""
    if cfg.setting not in SETTINGS:
        raise ValueError(f"--setting {cfg.setting!r}: expected one of {', '.join(SETTINGS)}")
    bench = load_benchmark(cfg.bench)
    samples = select_explore_samples(bench, subset=cfg.subset, tasks=cfg.tasks, limit=cfg.limit)
    if not samples:
        raise ValueError("no samples selected (check --subset / --tasks / --limit)")
    if cfg.setting == "image":
        check_images(bench, samples)
    golds: dict[str, str | None] = {}
    model = model or create_model(
        cfg.model,
        cfg.model_args,
        ModelContext(
            benchmark=bench,
            seed=cfg.seed,
            concurrency=cfg.concurrency,
            gold_reply=lambda request: golds.get(request.key),
        ),
    )
    manifest = explore_manifest(cfg, bench, model)
    out = Path(cfg.out)
    if (out / RUN_MANIFEST).is_file():
        old = read_json_object(out / RUN_MANIFEST).get("explore", {}).get("strategy")
        if old != cfg.strategy.describe():
            raise InputFileError(
                f"{out / RUN_MANIFEST}: this folder holds a run with strategy {old!r}; use a new --out folder "
                f"for strategy {cfg.strategy.describe()!r}"
            )
    check_resumable(out, manifest)
    with folder_lock(out, "egoworld explore run"):
        write_json(out / RUN_MANIFEST, {**manifest, "status": "running"})
        try:
            return _run_locked(cfg, bench, samples, model, manifest, out, golds)
        except BaseException as exc:
            mark_failed(out, manifest, exc)
            raise


def _run_locked(
    cfg: ExploreRunConfig,
    bench: Any,
    samples: list[Sample],
    model: Model,
    manifest: dict,
    out: Path,
    golds: dict[str, str | None],
) -> ExploreRunSummary:
    summary = ExploreRunSummary(out=out, samples=len(samples))
    start = time.perf_counter()
    store = ResponseStore(out / STORE_FILE)
    try:
        store.reset_plan()
        driver = _Driver(cfg, bench, model, store, golds)
        asyncio.run(_drive(driver, samples, summary, cfg.progress))
        cost = _run_cost(store)
        counts = store.counts()
    finally:
        store.close()
    summary.seconds = time.perf_counter() - start
    manifest.update(
        status="complete" if summary.errors == 0 and summary.blocked == 0 else "incomplete",
        served_models=sorted(summary.served_models),
        counts=counts,
        cost=cost,
    )
    warning = served_model_warning(
        str(model.identity().get("model", "")), summary.served_models, "answered as"
    )
    summary.warnings.extend([warning] if warning else [])
    manifest["warnings"] = summary.warnings
    write_json(out / RUN_MANIFEST, manifest)
    return summary


async def _drive(driver: _Driver, samples: list[Sample], summary: ExploreRunSummary, progress: bool) -> None:
    try:
        summary.warnings = await driver.model.preflight()  # one connection check before any request
        if not progress:
            await asyncio.gather(*(driver.run_sample(s, summary) for s in samples))
            return
        from egoworld.core.progress import progress_bar

        with progress_bar(True) as bar:
            task = bar.add_task(
                f"{driver.model.name} · {driver.cfg.strategy.label}", total=len(samples), status=""
            )

            async def one(s: Sample) -> None:
                await driver.run_sample(s, summary)
                bar.advance(task)

            await asyncio.gather(*(one(s) for s in samples))
    finally:
        await driver.model.aclose()
