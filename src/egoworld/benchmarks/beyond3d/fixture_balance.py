"""Nearest Fixture distractors that keep a constant-label guess at chance.

Gold fixture labels keep their natural frequencies (counters and cupboards hold most objects), so a
blind guess of the most frequent gold label would beat chance unless that label is offered as a
distractor as often as its gold share asks: a label that is the answer of ``g`` questions must be shown
in about ``g / chance`` of them, so that, when shown, it is right at the chance rate. `LabelBalance`
counts, while the questions are written in order, how far each label is from that target; the option
sampler offers the labels furthest behind first (seeded order among equals). The guess falls back on its
most frequent gold position where its label is not shown, so the builder balances the gold positions of
those questions apart (`shows_label` groups for `letters.balance_letters`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from egoworld.core.schema import Sample


class LabelBalance:
    """Distractor deficits per option label: ``gold · (1 / chance − 1)`` minus the times already offered."""

    def __init__(self, golds: Iterable[str], chance: float):
        if not 0.0 < chance < 1.0:
            raise ValueError(f"chance must lie in (0, 1), not {chance}")
        self.gold = Counter(golds)
        self.chance = chance
        self.offered: Counter[str] = Counter()

    def deficit(self, label: str) -> float:
        """How many more times ``label`` should be offered as a distractor (negative: over its target)."""
        return self.gold[label] * (1.0 / self.chance - 1.0) - self.offered[label]

    def record(self, labels: Sequence[str], gold_index: int) -> None:
        """Count the distractors of one written question."""
        self.offered.update(lab for i, lab in enumerate(labels) if i != gold_index)


def leading_label(samples: Iterable[Sample]) -> str | None:
    """The most frequent gold option text of ``samples`` (case and spaces ignored; ties → the smaller
    text): the answer of a blind frequency guess such as the ``prior`` baseline."""
    golds = Counter(_norm(s.choices[s.answer]) for s in samples if s.choices and isinstance(s.answer, int))
    return min(golds, key=lambda t: (-golds[t], t)) if golds else None


def shows_label(label: str) -> Callable[[Sample], int]:
    """Letter strata (`letters.balance_letters`) of a task: 1 where a question shows ``label``, else 0."""
    return lambda s: int(label in {_norm(c) for c in s.choices or ()})


def _norm(text: str) -> str:
    return text.strip().lower()
