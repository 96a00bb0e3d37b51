"""Exact answer-letter balance: per task and number of options, every option position is the gold one
for ``n // k`` or ``n // k + 1`` of the ``n`` questions.

Questions are built with their options in a seeded random order; `balance_letters` then moves each gold
option to its assigned position (the other options keep their order), together with every per-option
metadata list (``choice_*``). Which positions get the extra units and which question gets which position
are seed-determined (Nearest Fixture's are then exchanged within each option count,
`fixture_balance.balance_label_guesses`). The visibility question keeps its fixed ``No`` / ``Yes`` order
(its balance is anchors against visible controls).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from egoworld.benchmarks.beyond3d import VISIBILITY
from egoworld.benchmarks.beyond3d.build.answer_balance import split_even
from egoworld.core.folders.hashing import seeded_rng, stable_int
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


def balance_letters(samples: Sequence[Sample], seed: int) -> list[Sample]:
    """``samples`` with gold positions exactly balanced per (task, number of options)."""
    out = list(samples)
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, s in enumerate(out):
        if s.task != VISIBILITY and s.choices and isinstance(s.answer, int):
            groups[(s.task, len(s.choices))].append(i)
    for (task, k), idx in sorted(groups.items()):
        positions = list(range(k))
        seeded_rng(seed, "letters", task, k).shuffle(positions)
        quota = split_even(len(idx), positions)
        slots = [p for p in positions for _ in range(quota[p])]
        idx.sort(key=lambda i: (stable_int(seed, "letters", out[i].id), out[i].id))
        for i, p in zip(idx, slots, strict=True):
            out[i] = move_gold(out[i], p)
    return out


def letter_counts(samples: Sequence[Sample]) -> dict[str, dict[str, int]]:
    """Gold letters per task (for the build report)."""
    per: dict[str, Counter] = defaultdict(Counter)
    for s in samples:
        if s.choices and isinstance(s.answer, int):
            per[s.task][letters(len(s.choices))[s.answer]] += 1
    return {t: dict(sorted(c.items())) for t, c in sorted(per.items())}
