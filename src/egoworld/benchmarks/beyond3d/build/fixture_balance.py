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

from egoworld.benchmarks.beyond3d.build.letter_balance import move_gold
from egoworld.core.schema import Sample

#: the exact exchanges' solver limits: a node count, not a time, so the result does not depend on the
#: machine's speed (the time limit is only a guard); the best set found within them is used
OPTIONS = {"node_limit": 2000, "time_limit": 600.0}


class LabelBalance:
    """Distractor deficits per option label: how often it should still be offered, ``gold · (1 / chance − 1)``
    minus the times already offered; with ``options`` (the option count of each gold's question) the target
    is ``Σ (k − 1)`` over its gold questions instead, what brings its allowance (``Σ 1 / k`` where shown)
    up to its gold count when it is offered in questions of the same size (a label gold only in 5-option
    questions needs 4 offers per gold; the build's mixed chance of 3- and 5-option questions asked for
    3.4, leaving such labels up to a question over their allowance)."""

    def __init__(self, golds: Iterable[str], chance: float, options: Iterable[int] | None = None):
        if not 0.0 < chance < 1.0:
            raise ValueError(f"chance must lie in (0, 1), not {chance}")
        golds = list(golds)
        self.gold = Counter(golds)
        self.chance = chance
        self.target: Counter[str] = Counter()
        if options is None:
            for lab, g in self.gold.items():
                self.target[lab] = g * (1.0 / chance - 1.0)
        else:
            for lab, k in zip(golds, options, strict=True):
                self.target[lab] += k - 1
        self.offered: Counter[str] = Counter()

    def deficit(self, label: str) -> float:
        """How many more times ``label`` should be offered as a distractor (negative: over its target)."""
        return self.target[label] - self.offered[label]

    def record(self, labels: Sequence[str], gold_index: int) -> None:
        """Count the distractors of one written question."""
        self.offered.update(lab for i, lab in enumerate(labels) if i != gold_index)


def balance_label_guesses(samples: Sequence[Sample], task: str, max_swaps: int = 2000) -> list[Sample]:
    """``samples`` with the gold positions of ``task``'s questions exchanged between questions of the same
    option count (so every position keeps its count) until a constant guess of any gold label, falling
    back on the most frequent gold position where the label is not shown (the ``prior`` baseline's
    rule), gains as little over chance as such exchanges get. Which questions hold the fallback position
    is chosen in one exact program (`_fallback_holders`: the smallest largest gain, then the fewest
    exchanges); without scipy, exchanges one at a time (the largest gain first, then the sum of the
    squared gains). Deterministic."""
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
    target = _fallback_holders(hidden, base, ks, pos == fb)
    if target is not None:
        for k in sorted(set(ks.tolist())):
            lose = [int(q) for q in np.flatnonzero((pos == fb) & ~target & (ks == k))]
            gain = [int(q) for q in np.flatnonzero((pos != fb) & target & (ks == k))]
            for a, b in zip(lose, gain, strict=True):
                pos[a], pos[b] = pos[b], fb[b]
    else:
        _exchange_greedily(pos, fb, ks, hidden, base, max_swaps)
    for q, i in enumerate(idx):
        if pos[q] != out[i].answer:
            out[i] = move_gold(out[i], int(pos[q]))
    return out


def _fallback_holders(hidden, base, ks, holds):  # noqa: ANN001, ANN202 - numpy arrays
    """Which questions should hold the fallback position (as many of each option count as now): the
    smallest largest gain of any label's guess (``base`` + the holders where it is hidden), then the
    fewest changes — two small mixed-integer programs (scipy's HiGHS); None without scipy or a solution."""
    try:
        from scipy.optimize import LinearConstraint, milp
    except ModuleNotFoundError:  # pragma: no cover - scipy comes with the test extras
        return None
    import numpy as np

    n, m = hidden.shape
    counts = [(ks == k).astype(float) for k in sorted(set(ks.tolist()))]
    # variables: h_0 … h_{n-1} (hold the fallback), then the largest gain g ≥ 0
    rows = [np.append(c, 0.0) for c in counts] + [np.append(hidden[:, lab], -1.0) for lab in range(m)]
    lo = [float(c @ holds) for c in counts] + [-np.inf] * m
    hi = [float(c @ holds) for c in counts] + [float(-b) for b in base]
    bounds = (np.zeros(n + 1), np.append(np.ones(n), np.inf))
    integrality = np.append(np.ones(n), 0.0)
    constraints = LinearConstraint(np.vstack(rows), lo, hi)
    first = milp(
        c=np.append(np.zeros(n), 1.0),
        integrality=integrality,
        bounds=bounds,
        constraints=constraints,
        options=OPTIONS,
    )
    if first.x is None:
        return None
    best = float(first.x[-1]) + 1e-6
    second = milp(
        c=np.append(1.0 - 2.0 * holds.astype(float), 0.0),
        integrality=integrality,
        bounds=(np.zeros(n + 1), np.append(np.ones(n), best)),
        constraints=constraints,
        options=OPTIONS,
    )
    x = second.x if second.x is not None else first.x
    return np.round(x[:n]).astype(bool)


def _exchange_greedily(pos, fb, ks, hidden, base, max_swaps: int) -> None:  # noqa: ANN001 - numpy arrays
    """The exchanges one at a time (the largest gain first, then the sum of the squared gains)."""
    import numpy as np

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


def _norm(text: str) -> str:
    return text.strip().lower()
