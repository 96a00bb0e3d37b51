"""`Runner`: builds each work item's request, skips what the store already has, sends the rest and stores
the replies — in-process for a local run and inside each Ray task (`egoworld.runner.ray_executor`)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_json
from egoworld.core.folders.store import ResponseStore
from egoworld.core.keys import request_key
from egoworld.core.model import Message, Model, Request, TextPart
from egoworld.core.permutations import permutation_id
from egoworld.core.plan import Item, ItemId
from egoworld.core.plugin import plugin_for
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample
from egoworld.runner.call import call_and_store
from egoworld.runner.inputs import InputSettings, MediaInputs
from egoworld.runner.response_cache import ResponseCache
from egoworld.runner.summary import RunSummary
from egoworld.scoring.extract import extract_answer


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
        self.failed: set[ItemId] = set()  # items that depend on others only (a streamed run keeps none)
        self._preflight: asyncio.Future[list[str]] | None = None
        self.warnings: list[str] = []
        self.cache: ResponseCache | None = None  # the response cache shared across runs (--cache)

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
        if self.store.is_ok(request.key):
            summary.reused += 1
            if self.cfg.history == "pred":
                row = self.store.get(request.key)
                self.remember(item, row.raw if row else None)
            return True
        await self.preflight()
        gen = await call_and_store(
            self.model,
            request,
            self.store,
            permutation=pid,
            epoch=item.epoch,
            summary=summary,
            cache=self.cache,
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

    async def execute(self, items: Iterable[Item], summary: RunSummary, advance: Callable[[], None]) -> None:
        """Run ``items`` with ``cfg.concurrency`` workers. A list whose items depend on others runs as a
        graph; otherwise items are drawn one at a time, so a streamed plan is never held in memory."""
        if isinstance(items, list) and any(it.deps for it in items):
            await self._execute_graph(items, summary, advance)
            return
        stream = iter(items)

        async def worker() -> None:
            for item in stream:  # one shared iterator: each item goes to exactly one worker
                await self.process(item, summary)
                advance()

        await self._gather(worker)

    async def _execute_graph(
        self, items: list[Item], summary: RunSummary, advance: Callable[[], None]
    ) -> None:
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

        await self._gather(worker)

    async def _gather(self, worker: Callable[[], Awaitable[None]]) -> None:
        workers = [asyncio.create_task(worker()) for _ in range(max(1, self.cfg.concurrency))]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()


def clip_ordered(samples: list[Sample]) -> list[Sample]:
    """Samples grouped by video (stable within a clip), so each clip's media is read once: the items of
    these samples come in `clip_order`'s order."""
    first_seen: dict[str, int] = {}
    for s in samples:
        first_seen.setdefault(_video(s), len(first_seen))
    return sorted(samples, key=lambda s: first_seen[_video(s)])


def _video(sample: Sample) -> str:
    return sample.media.video.path if sample.media.video else ""
