"""A benchmark's request chains (`egoworld.core.chains`) as requests of the one runner
(`egoworld.runner.worker.Runner`): step k of a chain depends on step k−1.

Step k's prompt carries step k−1's reply, so its request key covers that reply: a resumed chain reuses its
finished steps and continues where it stopped, and a failed step leaves the rest of its chain unsent
(counted as blocked).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from egoworld.core.chains import Chain, ChainPlan, Step
from egoworld.core.keys import request_key
from egoworld.core.model import Message, Request
from egoworld.core.plan import ItemId
from egoworld.core.schema import Sample


@dataclass(frozen=True)
class ChainStep:
    """One step of a sample's chain: stored under the step's label, epoch 0."""

    sample: Sample
    step: Step
    deps: list[ItemId] = field(default_factory=list)

    @property
    def id(self) -> ItemId:
        return (self.sample.id, self.step.label, 0)


def chain_steps(plan: ChainPlan) -> list[ChainStep]:
    """Every step of every chain of ``plan``, chain after chain (``plan.chain`` may read files: the chains
    are made in threads)."""
    with ThreadPoolExecutor() as pool:
        chains: list[Chain] = list(pool.map(plan.chain, plan.samples))
    nodes: list[ChainStep] = []
    for chain in chains:
        before: list[ItemId] = []
        for step in chain.steps:
            nodes.append(ChainStep(chain.sample, step, before))
            before = [nodes[-1].id]
    return nodes


class ChainRequests:
    """Builds a chain step's request from the previous step's raw reply; records each step's gold reply by
    request key in ``golds`` (what a solver's ``ModelContext.gold_reply`` reads; backends never see it)."""

    linked = True
    threaded = False

    def __init__(self, plan: ChainPlan, identity: dict[str, Any], golds: dict[str, str | None]):
        self.identity, self.golds = identity, golds
        self.inputs = plan.inputs

    def build(self, node: ChainStep, replies: dict[ItemId, Any]) -> Request:
        previous = replies.get(node.deps[0]) if node.deps else None
        messages = (Message(role="user", content=node.step.prompt(previous)),)
        key = request_key(
            model=self.identity,
            messages=messages,
            sample_id=node.sample.id,
            permutation=node.step.label,
            epoch=0,
            inputs=self.inputs,
        )
        self.golds[key] = node.step.gold
        return Request(
            key=key, sample_id=node.sample.id, messages=messages, choices=None, permutation=None, epoch=0
        )

    def reply(self, node: ChainStep, raw: str) -> str:
        return raw
