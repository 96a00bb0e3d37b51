"""Exact answer-letter balance: per task and number of options, every option position is the gold one
for ``n // k`` or ``n // k + 1`` of the ``n`` questions.

Questions are built with their options in a seeded random order; `balance_letters` then moves each gold
option to its assigned position (the other options keep their order), together with every per-option
metadata list (``choice_*``). Which positions get the extra units and which question gets which position
are seed-determined. A build may balance within groups of a task too (Nearest Fixture: the questions
that show its most frequent gold label and those that do not, so a guess of that label where shown and
of one position elsewhere stays at chance). The visibility question keeps its fixed ``No`` / ``Yes`` order (its balance is
anchors against visible controls).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from egoworld.benchmarks.beyond3d import VISIBILITY
from egoworld.benchmarks.beyond3d.balance import split_even
from egoworld.core.hashing import seeded_rng, stable_int
from egoworld.core.letters import letters_for as letters
from egoworld.core.schema import Sample


def move_gold(sample: Sample, position: int) -> Sample:
    """The sample with its gold option moved to ``position`` (per-option metadata moved alike)."""
    k = len(sample.choices)
    order = [i for i in range(k) if i != sample.answer]
    order.insert(position, sample.answer)
    meta = dict(sample.metadata)
    for key, value in sample.metadata.items():
        if key.startswith("choice_") and isinstance(value, list) and len(value) == k:
            meta[key] = [value[i] for i in order]
    return sample.model_copy(
        update={"choices": tuple(sample.choices[i] for i in order), "answer": position, "metadata": meta}
    )


def balance_letters(
    samples: Sequence[Sample], seed: int, stratum: Callable[[Sample], int] | None = None
) -> list[Sample]:
    """``samples`` with gold positions exactly balanced per (task, number of options); with ``stratum``
    also within each of its groups (in their order), the extra units of a group going to the positions
    that have the fewest so far, so the per-(task, options) balance still holds."""
    out = list(samples)
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, s in enumerate(out):
        if s.task != VISIBILITY and s.choices and isinstance(s.answer, int):
            groups[(s.task, len(s.choices))].append(i)
    for (task, k), idx in sorted(groups.items()):
        positions = list(range(k))
        seeded_rng(seed, "letters", task, k).shuffle(positions)
        parts: dict[int, list[int]] = defaultdict(list)
        for i in idx:
            parts[stratum(out[i]) if stratum is not None else 0].append(i)
        held = dict.fromkeys(positions, 0)
        for part in (parts[key] for key in sorted(parts)):
            order = sorted(positions, key=lambda p: held[p])  # stable: seeded order among equals
            quota = split_even(len(part), order)
            slots = [p for p in order for _ in range(quota[p])]
            part.sort(key=lambda i: (stable_int(seed, "letters", out[i].id), out[i].id))
            for i, p in zip(part, slots, strict=True):
                out[i] = move_gold(out[i], p)
                held[p] += 1
    return out


def letter_counts(samples: Sequence[Sample]) -> dict[str, dict[str, int]]:
    """Gold letters per task (for the build report)."""
    per: dict[str, Counter] = defaultdict(Counter)
    for s in samples:
        if s.choices and isinstance(s.answer, int):
            per[s.task][letters(len(s.choices))[s.answer]] += 1
    return {t: dict(sorted(c.items())) for t, c in sorted(per.items())}
