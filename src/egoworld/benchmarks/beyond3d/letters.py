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


def fallback_position(quotas: dict[int, dict[int, int]]) -> int:
    """The most frequent gold position of a task whose option counts ``k`` have position quotas
    ``quotas[k]`` (ties → the smaller): where a blind constant guess falls back when its text is absent."""
    totals: Counter[int] = Counter()
    for quota in quotas.values():
        totals.update(quota)
    return min(totals, key=lambda p: (-totals[p], p))


def _part_quota(size: int, left: dict[int, int], order: list[int], fallback: int) -> dict[int, int]:
    """Position quotas of one group of ``size`` questions within what is ``left`` of its (task, options)
    quota: as even as ``left`` allows, the uneven units to the positions with the most left, the fallback
    position last."""
    got = dict.fromkeys(order, 0)
    for _ in range(size):
        room = [p for p in order if got[p] < left[p]]
        p = min(room, key=lambda p: (got[p], p == fallback, -left[p], order.index(p)))
        got[p] += 1
    return got


def balance_letters(
    samples: Sequence[Sample], seed: int, stratum: Callable[[Sample], int] | None = None
) -> list[Sample]:
    """``samples`` with gold positions exactly balanced per (task, number of options); with ``stratum``
    (sample → group; None: not grouped) also as evenly as possible within each group of a task, taken in
    key order, each group's uneven units kept off the task's `fallback_position` (so a guess of that
    position gains nothing in the first groups); the per-(task, options) balance holds either way."""
    out = list(samples)
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, s in enumerate(out):
        if s.task != VISIBILITY and s.choices and isinstance(s.answer, int):
            groups[(s.task, len(s.choices))].append(i)
    orders, quotas = {}, defaultdict(dict)
    for (task, k), idx in groups.items():
        positions = list(range(k))
        seeded_rng(seed, "letters", task, k).shuffle(positions)
        orders[(task, k)] = positions
        quotas[task][k] = split_even(len(idx), positions)
    for (task, k), idx in sorted(groups.items()):
        positions, quota = orders[(task, k)], quotas[task][k]
        parts: dict[int, list[int]] = defaultdict(list)
        for i in idx:
            key = stratum(out[i]) if stratum is not None else None
            parts[0 if key is None else key].append(i)
        fallback = fallback_position(quotas[task])
        left = dict(quota)
        for key in sorted(parts):
            part = parts[key]
            got = _part_quota(len(part), left, positions, fallback) if len(parts) > 1 else quota
            slots = [p for p in positions for _ in range(got[p])]
            part.sort(key=lambda i: (stable_int(seed, "letters", out[i].id), out[i].id))
            for i, p in zip(part, slots, strict=True):
                out[i] = move_gold(out[i], p)
                left[p] -= 1
    return out


def letter_counts(samples: Sequence[Sample]) -> dict[str, dict[str, int]]:
    """Gold letters per task (for the build report)."""
    per: dict[str, Counter] = defaultdict(Counter)
    for s in samples:
        if s.choices and isinstance(s.answer, int):
            per[s.task][letters(len(s.choices))[s.answer]] += 1
    return {t: dict(sorted(c.items())) for t, c in sorted(per.items())}
