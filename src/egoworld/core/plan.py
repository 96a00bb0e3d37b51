"""The plan of a run: its work items (sample, option order, epoch) and which samples a selection takes.

Every run is a set of requests with dependencies (`RunPlan`): the standard plan's items (a plain question is
a one-step chain; a ``pred`` history's trajectory steps wait for earlier steps) or a benchmark's own request
chains (`egoworld.core.chains`). The runner sends what the plan lists; the scorer and the importers of other
harnesses' logs read the same plan, so a run folder means one set of items wherever it is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from egoworld.core.chains import ChainPlan
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.permutations import Permutation, orders_for, permutation_id
from egoworld.core.schema import Sample

ItemId = tuple[str, str, int]  # (sample id, permutation id or step label, epoch)


class Node(Protocol):
    """One request of a plan: its sample, its id (the store's sample, permutation and epoch) and the ids of
    the requests whose replies it needs."""

    @property
    def sample(self) -> Sample: ...

    @property
    def id(self) -> ItemId: ...

    @property
    def deps(self) -> list[ItemId]: ...


@dataclass
class RunPlan:
    """What one run sends: ``nodes`` in an order where each follows those it depends on (the standard plan
    streams them), at most ``size`` of them; the run.json fields between ``model_spec`` and ``command``, the
    progress label and the warnings of the selection. ``chains``: the benchmark's own plan (None: the
    standard one), whose ``golds`` the oracle reads. ``planned``: the standard plan's request count (run.json
    counts it; a chained plan's count is what its chains stored, and its summary counts samples).
    ``figures``: what run.json records besides the usage (``media_bytes_per_request`` or ``cost``)."""

    samples: list[Sample]
    nodes: Iterable[Node]
    size: int
    manifest: dict[str, Any]
    label: str = ""
    warnings: list[str] = field(default_factory=list)
    chains: ChainPlan | None = None
    golds: dict[str, str | None] | None = None
    planned: int | None = None
    figures: tuple[str, ...] = ("media_bytes_per_request",)


@dataclass
class Item:
    sample: Sample
    perm: Permutation | None
    epoch: int
    deps: list[ItemId] = field(default_factory=list)
    _id: ItemId = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._id = (self.sample.id, permutation_id(self.perm), self.epoch)

    @property
    def id(self) -> ItemId:
        return self._id


def select_samples(
    bench: Benchmark, tasks: list[str] | None, limit: int | None, per_task: int | None
) -> list[Sample]:
    """Samples in file order filtered by task, capped per task and in total; trajectory steps bring the steps
    they depend on."""
    if tasks:
        unknown = sorted(set(tasks) - set(bench.tasks()))
        if unknown:
            raise ValueError(f"--tasks: {unknown} not in this benchmark (tasks: {', '.join(bench.tasks())})")
    chosen: list[Sample] = []
    per: dict[str, int] = {}
    for s in bench.samples:
        if tasks and s.task not in tasks:
            continue
        if per_task is not None and per.get(s.task, 0) >= per_task:
            continue
        if limit is not None and len(chosen) >= limit:
            break
        per[s.task] = per.get(s.task, 0) + 1
        chosen.append(s)
    ids = {s.id for s in chosen}
    needed = set()
    for s in chosen:
        stack = list(s.trajectory.depends_on) if s.trajectory else []
        while stack:
            d = stack.pop()
            if d not in ids and d not in needed:
                needed.add(d)
                dep = bench.sample(d)
                stack.extend(dep.trajectory.depends_on if dep.trajectory else ())
    if needed:
        chosen = [s for s in bench.samples if s.id in ids or s.id in needed]
    return chosen


def plan_items(samples: list[Sample], mode: str | int, seed: int, epochs: int, history: str) -> list[Item]:
    """Every work item of ``samples``, in order (sample, then option order, then epoch)."""
    return list(iter_items(samples, mode, seed, epochs, history))


def iter_items(
    samples: list[Sample], mode: str | int, seed: int, epochs: int, history: str
) -> Iterator[Item]:
    """The work items of `plan_items`, one at a time: a run streams them, so its memory does not grow with
    the number of requests (only a ``pred`` history's dependencies keep every sample's orders)."""
    linked = has_dependencies(samples, history)
    orders = {s.id: _orders(s, mode, seed) for s in samples} if linked else {}
    for s in samples:
        for perm in orders[s.id] if linked else _orders(s, mode, seed):
            for epoch in range(epochs):
                item = Item(sample=s, perm=perm, epoch=epoch)
                if linked and s.trajectory:
                    for d in s.trajectory.depends_on:
                        pid = permutation_id(perm)
                        dep_pids = [permutation_id(p) for p in orders[d]]
                        item.deps.append((d, pid if pid in dep_pids else dep_pids[0], epoch))
                yield item


@dataclass(frozen=True)
class PlanItems:
    """The work items of `iter_items`, made afresh each time they are iterated (a run streams them)."""

    samples: list[Sample]
    mode: str | int
    seed: int
    epochs: int
    history: str

    def __iter__(self) -> Iterator[Item]:
        return iter_items(self.samples, self.mode, self.seed, self.epochs, self.history)


def count_items(samples: list[Sample], mode: str | int, seed: int, epochs: int) -> int:
    """How many work items `iter_items` yields, without making them."""
    return sum(len(_orders(s, mode, seed)) for s in samples) * epochs


def has_dependencies(samples: list[Sample], history: str) -> bool:
    """True when items must wait for the answers of earlier steps (a ``pred`` history over trajectories)."""
    return history == "pred" and any(s.trajectory and s.trajectory.depends_on for s in samples)


def _orders(sample: Sample, mode: str | int, seed: int) -> list[Permutation | None]:
    return orders_for(len(sample.choices) if sample.choices else None, mode, seed, sample.id)
