"""`ChainRunner`: sends a benchmark's request chains (`egoworld.core.chains`) — the steps of one chain in
order, the chains side by side with bounded concurrency.

Step k's prompt carries step k−1's reply, so its request key covers that reply: a resumed chain reuses its
finished steps and continues where it stopped, and a failed step leaves the rest of its chain unsent
(counted as blocked).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from egoworld.core.chains import Chain, ChainPlan
from egoworld.core.folders.store import ResponseStore
from egoworld.core.keys import request_key
from egoworld.core.model import Message, Model, Request
from egoworld.core.schema import Sample
from egoworld.runner.call import call_and_store
from egoworld.runner.response_cache import ResponseCache
from egoworld.runner.summary import RunSummary


class ChainRunner:
    def __init__(
        self,
        plan: ChainPlan,
        model: Model,
        store: ResponseStore,
        concurrency: int,
        golds: dict[str, str | None] | None = None,
    ):
        self.plan, self.model, self.store = plan, model, store
        #: request key → the step's gold reply, filled as requests are made (what a solver's
        #: ``ModelContext.gold_reply`` reads; backends never see it)
        self.golds = golds if golds is not None else {}
        self.identity = model.identity()
        self.ok_keys = store.ok_keys()
        self.sem = asyncio.Semaphore(max(1, concurrency))
        self.cache: ResponseCache | None = None  # the response cache shared across runs (--cache)

    async def run_sample(self, sample: Sample, summary: RunSummary) -> None:
        chain: Chain = await asyncio.to_thread(self.plan.chain, sample)
        previous: str | None = None
        for i, step in enumerate(chain.steps):
            messages = (Message(role="user", content=step.prompt(previous)),)
            key = request_key(
                model=self.identity,
                messages=messages,
                sample_id=sample.id,
                permutation=step.label,
                epoch=0,
                inputs=self.plan.inputs,
            )
            self.store.plan(sample.id, step.label, 0, key)
            if key in self.ok_keys:
                row = self.store.get(key)
                previous = row.raw if row else ""
                summary.reused += 1
                continue
            request = Request(
                key=key,
                sample_id=sample.id,
                messages=messages,
                choices=None,
                permutation=None,
                epoch=0,
            )
            self.golds[key] = step.gold
            async with self.sem:
                gen = await call_and_store(
                    self.model,
                    request,
                    self.store,
                    permutation=step.label,
                    epoch=0,
                    summary=summary,
                    cache=self.cache,
                )
            if gen is None:
                summary.blocked += len(chain.steps) - i - 1
                return
            previous = gen.text

    async def execute(self, summary: RunSummary, advance: Callable[[], None]) -> None:
        """Every chain of the plan; the model is checked once before the first request."""
        summary.warnings = await self.model.preflight()

        async def one(sample: Sample) -> None:
            await self.run_sample(sample, summary)
            advance()

        await asyncio.gather(*(one(s) for s in self.plan.samples))
