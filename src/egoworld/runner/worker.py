"""`Runner`: the one way a plan's requests are sent — each request is built (from the replies of those it
depends on), skipped when the store already has it, else sent and its reply stored; a request whose
dependency failed is blocked. In-process for a local run and inside each Ray task
(`egoworld.runner.ray_executor`).

What a request is comes from a `Requests` builder: `ItemRequests` for the standard plan (one request per
sample, option order and epoch) and `egoworld.runner.chain_runner.ChainRequests` for a benchmark's own chains.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, Protocol

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_json
from egoworld.core.folders.store import ResponseStore
from egoworld.core.input_protocol import protocol_of
from egoworld.core.keys import request_key
from egoworld.core.model import Message, Model, Request, TextPart
from egoworld.core.permutations import permutation_id
from egoworld.core.plan import Item, ItemId, Node
from egoworld.core.plugin import plugin_for
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample
from egoworld.runner.call import call_and_store
from egoworld.runner.inputs import MediaInputs, run_inputs
from egoworld.runner.response_cache import ResponseCache
from egoworld.runner.summary import RunSummary
from egoworld.scoring.extract import extract_answer

#: a worker hands the event loop a turn after this many requests (a Ctrl-C cancels between them)
YIELD_EVERY = 16


class Requests(Protocol):
    """Builds a plan's requests. ``inputs``: the request keys' input settings; ``linked``: dependents read
    the replies (`reply` makes what they read); ``threaded``: `build` reads files (run in a thread)."""

    inputs: dict[str, Any]
    linked: bool
    threaded: bool

    def build(self, node: Any, replies: dict[ItemId, Any]) -> Request: ...

    def reply(self, node: Any, raw: str) -> Any: ...


class ItemRequests:
    """The standard plan's requests: one per (sample, option order, epoch), with its media; under a ``gold``
    or ``pred`` history a trajectory step's prompt quotes the answers of the steps it depends on (``pred``:
    parsed from their replies)."""

    def __init__(self, cfg: RunConfig, bench: Benchmark, identity: dict[str, Any], media: MediaInputs):
        self.bench, self.identity, self.media = bench, identity, media
        self.history = cfg.history
        plugin = plugin_for(bench.name)
        self.prompt = plugin.prompt
        self.inputs = run_inputs(cfg)
        self.setting = cfg.setting
        self.official = plugin.official_inputs if protocol_of(cfg.options) == "official" else None
        self.linked = cfg.history == "pred"
        self.threaded = cfg.setting != "text"

    def build(self, item: Item, replies: dict[ItemId, Any]) -> Request:
        s, prompt = item.sample, self.prompt
        choices = prompt.presented_choices(s, item.perm)
        text = prompt.question_text(s, choices)
        if self.history != "none" and s.trajectory and s.trajectory.depends_on:
            steps = []
            for dep_id in s.trajectory.depends_on:
                dep = self.bench.sample(dep_id)
                if self.history == "gold":
                    value = dep.correct_indices[0] if dep.answer_type == "choice" else dep.answer
                else:
                    value = replies.get(next(d for d in item.deps if d[0] == dep_id))
                steps.append((dep, prompt.answer_text(dep, value)))
            text = prompt.with_history(text, steps)
        if self.official is not None:
            given = self.official(self.bench, s, text, self.setting, self.media)  # type: ignore[arg-type]
            parts = [*given.parts, TextPart(given.text)]
        else:
            parts = [*self.media.parts(self.bench, s), TextPart(text)]
        messages = (Message(role="user", content=tuple(parts)),)
        key = request_key(
            model=self.identity,
            messages=messages,
            sample_id=s.id,
            permutation=permutation_id(item.perm),
            epoch=item.epoch,
            inputs=self.inputs,
        )
        return Request(
            key=key,
            sample_id=s.id,
            messages=messages,
            choices=choices,
            permutation=item.perm,
            epoch=item.epoch,
        )

    def reply(self, item: Item, raw: str) -> int | float | str | None:
        """The answer a ``pred`` history shows for this step (an original choice index, a number, or a
        time + point reply as the model wrote it)."""
        s = item.sample
        if s.answer_type == "free":
            return None
        if s.answer_type == "time_point":
            return raw.strip().splitlines()[0] if raw.strip() else None
        choices = self.prompt.presented_choices(s, item.perm)
        value = extract_answer(raw, s.answer_type, choices).value
        if value is not None and s.answer_type == "choice" and item.perm is not None:
            value = item.perm[int(value)]
        return value


class Runner:
    """Sends a plan's requests with ``concurrency`` workers into ``store`` (a `ResponseStore`, or a Ray
    task's stand-in)."""

    def __init__(self, requests: Requests, model: Model, store: ResponseStore, concurrency: int):
        self.requests, self.model, self.store = requests, model, store
        self.concurrency = max(1, concurrency)
        self.identity = model.identity()
        self.replies: dict[ItemId, Any] = {}  # what dependents read (linked plans only)
        self.failed: set[ItemId] = set()  # requests without an ok reply (linked plans only)
        self._preflight: asyncio.Future[list[str]] | None = None
        self.warnings: list[str] = []
        self.cache: ResponseCache | None = None  # the response cache shared across runs (--cache)

    async def preflight(self) -> None:
        """Check the model once, before the first request that must be sent (none on a finished run);
        every worker waits for that one check and sees its failure."""
        if self._preflight is None:
            self._preflight = asyncio.ensure_future(self.model.preflight())
        self.warnings = list(await asyncio.shield(self._preflight))

    async def process(self, node: Node, summary: RunSummary) -> bool:
        """Run one request; True when it has an ok response."""
        if node.deps and any(d in self.failed for d in node.deps):
            summary.blocked += 1
            return False
        sample_id, label, epoch = node.id
        try:
            if self.requests.threaded:
                request = await asyncio.to_thread(self.requests.build, node, self.replies)
            else:
                request = self.requests.build(node, self.replies)
        except InputFileError as exc:  # e.g. a corrupt video: this item is an error row; the run goes on
            self._input_error(node, exc, summary)
            return False
        self.store.plan(sample_id, label, epoch, request.key)
        if self.store.is_ok(request.key):
            summary.reused += 1
            if self.requests.linked:
                row = self.store.get(request.key)
                self._remember(node, row.raw if row else None)
            return True
        await self.preflight()
        gen = await call_and_store(
            self.model, request, self.store, permutation=label, epoch=epoch, summary=summary, cache=self.cache
        )
        if gen is None:
            return False
        self._remember(node, gen.text)
        return True

    def _remember(self, node: Node, raw: str | None) -> None:
        if self.requests.linked and raw is not None:
            self.replies[node.id] = self.requests.reply(node, raw)

    def _input_error(self, node: Node, exc: InputFileError, summary: RunSummary) -> None:
        """Record a request whose inputs could not be built (retried on resume, never scored)."""
        sample_id, label, epoch = node.id
        key = sha256_json(
            {
                "input_error": True,
                "model": self.identity,
                "sample": sample_id,
                "permutation": label,
                "epoch": epoch,
                "inputs": self.requests.inputs,
            }
        )
        self.store.plan(sample_id, label, epoch, key)
        self.store.put(
            key=key, sample_id=sample_id, permutation=label, epoch=epoch, status="error", error=str(exc)
        )
        summary.errors += 1

    async def execute(self, nodes: Iterable[Node], summary: RunSummary, advance: Callable[[], None]) -> None:
        """Run ``nodes`` (each after those it depends on) with ``concurrency`` workers; they are drawn one at
        a time, so a streamed plan is never held in memory. A worker's error (e.g. a full disk) stops the
        plan: the other workers finish the requests they hold (their replies read, not cut off), then it is
        raised."""
        schedule = _Schedule(nodes)

        async def worker() -> None:
            try:
                served = 0
                while (node := await schedule.next()) is not None:
                    ok = await self.process(node, summary)
                    if not ok and self.requests.linked:
                        self.failed.add(node.id)
                    schedule.done(node)
                    advance()
                    served += 1
                    if served % YIELD_EVERY == 0:
                        # a local model (random, oracle) answers without waiting, and a worker that never
                        # waits never sees a Ctrl-C's cancellation: hand the event loop a turn
                        await asyncio.sleep(0)
            except Exception:
                schedule.stop()
                raise

        await self._gather(worker)

    async def _gather(self, worker: Callable[[], Awaitable[None]]) -> None:
        workers = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
        try:
            results = await asyncio.gather(*workers, return_exceptions=True)
        finally:
            for w in workers:
                w.cancel()
        for result in results:
            if isinstance(result, BaseException):
                raise result


class _Schedule:
    """Hands out a plan's nodes in order; a node whose dependencies are still running waits (parked) until
    they are done, while the nodes after it go ahead."""

    def __init__(self, nodes: Iterable[Node]):
        self.stream: Iterator[Node] = iter(nodes)
        self.ready: deque[Node] = deque()
        self.running: set[ItemId] = set()  # handed out or parked, not done (only while they matter)
        self.parked: dict[ItemId, int] = {}  # node → dependencies not done yet
        self.waiting: dict[ItemId, list[Node]] = {}  # dependency → nodes parked on it
        self.wake = asyncio.Event()
        self.stopped = False

    async def next(self) -> Node | None:
        """The next node to run; None when every node has been handed out, or the plan was stopped."""
        while not self.stopped:
            if self.ready:
                return self.ready.popleft()
            for node in self.stream:
                waits = [d for d in node.deps if d in self.running] if node.deps else []
                self.running.add(node.id)
                if not waits:
                    return node
                self.parked[node.id] = len(waits)
                for d in waits:
                    self.waiting.setdefault(d, []).append(node)
            if not self.parked:
                return None
            self.wake.clear()
            await self.wake.wait()
        return None

    def stop(self) -> None:
        """Hand out no more nodes (a worker failed)."""
        self.stopped = True
        self.wake.set()

    def done(self, node: Node) -> None:
        self.running.discard(node.id)
        for waiter in self.waiting.pop(node.id, ()):
            self.parked[waiter.id] -= 1
            if self.parked[waiter.id] == 0:
                del self.parked[waiter.id]
                self.ready.append(waiter)
        self.wake.set()


def clip_ordered(samples: list[Sample]) -> list[Sample]:
    """Samples grouped by video (stable within a clip), so each clip's media is read once: the items of
    these samples come in `clip_order`'s order."""
    first_seen: dict[str, int] = {}
    for s in samples:
        first_seen.setdefault(_video(s), len(first_seen))
    return sorted(samples, key=lambda s: first_seen[_video(s)])


def _video(sample: Sample) -> str:
    return sample.media.video.path if sample.media.video else ""
