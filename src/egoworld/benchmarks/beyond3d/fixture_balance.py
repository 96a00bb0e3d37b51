"""Nearest Fixture distractors that keep a constant-label guess at chance.

Gold fixture labels keep their natural frequencies (counters and cupboards hold most objects), so a
blind guess of the most frequent gold label would beat chance unless that label is offered as a
distractor as often as its gold share asks: a label that is the answer of ``g`` questions must be shown
in about ``g / chance`` of them, so that, when shown, it is right at the chance rate. `LabelBalance`
counts, while the questions are written in order, how far each label is from that target; the option
sampler offers the labels furthest behind first (seeded order among equals). The guess falls back on the
most frequent gold position where its label is not shown, so `balance_label_guesses` exchanges gold
positions between questions of the same option count until no label's guess gains there either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from egoworld.benchmarks.beyond3d.letters import move_gold
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


def balance_label_guesses(samples: Sequence[Sample], task: str, max_swaps: int = 2000) -> list[Sample]:
    """``samples`` with the gold positions of ``task``'s questions exchanged between questions of the same
    option count (so every position keeps its count) until a constant guess of any gold label, falling
    back on the most frequent gold position where the label is not shown (the ``prior`` baseline's
    rule), gains as little over chance as such exchanges get: the largest gain first, then the sum of
    the squared gains. Deterministic (the first best exchange in sample order)."""
    import numpy as np

    out = list(samples)
    idx = [i for i, s in enumerate(out) if s.task == task and s.choices and isinstance(s.answer, int)]
    if len(idx) < 2:
        return out
    shown = [{_norm(c) for c in out[i].choices} for i in idx]
    golds = [_norm(out[i].choices[out[i].answer]) for i in idx]
    labels = sorted(set(golds))
    ks = np.array([len(out[i].choices) for i in idx])
    positions = Counter(out[i].answer for i in idx)
    fallback = min(positions, key=lambda p: (-positions[p], p))
    fb = np.minimum(fallback, ks - 1)
    pos = np.array([out[i].answer for i in idx])
    hidden = np.array([[lab not in sh for lab in labels] for sh in shown], dtype=float)
    chance = float(np.sum(1.0 / ks))
    base = np.array([golds.count(lab) for lab in labels], dtype=float) - chance
    for _ in range(max_swaps):
        holds = pos == fb
        dev = base + hidden[holds].sum(axis=0)
        gain = np.maximum(dev, 0.0)  # a guess below chance gains nothing: only the gains count
        best = (float(np.max(gain)), float(np.sum(gain**2)))
        pick = None
        for a in np.flatnonzero(holds):
            others = np.flatnonzero(~holds & (ks == ks[a]))
            if not len(others):
                continue
            trial = np.maximum(dev - hidden[a] + hidden[others], 0.0)
            worst, squares = np.max(trial, axis=1), np.sum(trial**2, axis=1)
            j = int(np.lexsort((squares, np.round(worst, 9)))[0])
            score = (float(round(worst[j], 9)), float(squares[j]))
            if score < (round(best[0], 9), best[1]) and (pick is None or score < pick[0]):
                pick = (score, int(a), int(others[j]))
        if pick is None:
            break
        _, a, b = pick
        pos[a], pos[b] = pos[b], fb[b]
    for q, i in enumerate(idx):
        if pos[q] != out[i].answer:
            out[i] = move_gold(out[i], int(pos[q]))
    return out


def _norm(text: str) -> str:
    return text.strip().lower()
