"""Nearest Fixture distractors that keep a constant-label guess at chance.

Gold fixture labels keep their natural frequencies (counters and cupboards hold most objects), so a
blind guess of the most frequent gold label would beat chance unless that label is offered as a
distractor as often as its gold share asks: a label that is the answer of ``g`` questions must be shown
in about ``g / chance`` of them, so that, when shown, it is right at the chance rate. `LabelBalance`
counts, while the questions are written in order, how far each label is from that target; the option
sampler offers the labels furthest behind first (seeded order among equals).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence


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
