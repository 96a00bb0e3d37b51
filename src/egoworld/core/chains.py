"""Request chains: a benchmark's own plan of requests, for runs whose prompts carry earlier replies.

A plug-in's ``plan_requests`` hook (`egoworld.core.plugin`) turns a run's options into a `ChainPlan`: the
samples the run covers and, per sample, a chain of steps. The runner sends a chain's steps in order — step
k's prompt is built from step k−1's reply, so its request key covers that reply —, stores each step under its
label (the store's ``permutation`` column), reuses finished steps when a run resumes and leaves the rest of a
chain unsent when one step fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from egoworld.core.model import Part
from egoworld.core.schema import Sample


@dataclass(frozen=True)
class Step:
    """One request of a chain: its store label, its user message given the previous step's raw reply (None
    for the first step), and the reply the oracle baseline gives."""

    label: str
    prompt: Callable[[str | None], tuple[Part, ...]]
    gold: str | None = None


@dataclass(frozen=True)
class Chain:
    sample: Sample
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class ChainPlan:
    """A run planned by its benchmark: the samples, how to chain each (``chain`` may read files; the runner
    calls it in a worker thread), the request keys' ``inputs`` (the settings that change replies), the
    run.json fields between ``model_spec`` and ``command``, and the progress bar's label."""

    samples: list[Sample]
    chain: Callable[[Sample], Chain]
    inputs: dict[str, Any]
    manifest: dict[str, Any]
    label: str
