"""Cap a Nearest Fixture gold label's share of the anchors by like-for-like swaps.

A label can be offered at most once a question, so one that is the gold of more than the chance rate of
the questions that can show it makes a constant guess beat chance whatever the distractors. After the
balanced selection, `cap_gold_labels` swaps anchors of an over-full label for unused candidates of
another label in the same object–camera cell that take the anchor's object–object cell and both
chronological ranks, or take other ones that the other anchors make room for by moving to another of
their references or ranks (`balance.CapacitatedAssignment`), so every class count stays exactly as it
was; a partner comes from the anchor's query-time × horizon stratum, or from another where the move
lowers no stratum below the emptiest (the scarce strata keep their anchors; the others are soft quotas
and may fill up: 400 anchors from 176 min, late × short 63 → 140). It stops where no such candidate is left (the share is then
as low as the pool allows).
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable

from egoworld.benchmarks.beyond3d.anchors import HORIZON_BUCKETS, QUERY_BUCKETS, Candidate, Selection
from egoworld.benchmarks.beyond3d.balance import CapacitatedAssignment

#: swaps that need re-routing tried per anchor (each a search over the assignment); like-for-like unbounded
MAX_REROUTES = 40


class _Slots:
    """One exact assignment of a selection (object–object cells, or one timestamp question's ranks) as a
    `CapacitatedAssignment` at its current counts, so a swap may re-route other anchors."""

    def __init__(self, table: dict[tuple, object], anchors: list[Candidate], options):
        self.options = options
        self.assign = CapacitatedAssignment(Counter(table.values()))
        for a in anchors:
            self.assign.add(a.id, [table[a.id]])
            self.assign.options[a.id] = tuple(dict.fromkeys([table[a.id], *options(a)]))

    def direct(self, a: Candidate, b: Candidate) -> bool:
        """``b`` can hold ``a``'s own cell or rank (no re-routing needed)."""
        return self.assign.assigned[a.id] in self.options(b)

    def swap(self, a: Candidate, b: Candidate) -> bool:
        """``b`` in ``a``'s place (others re-routed as needed); False and no change when impossible."""
        old = self.assign.options[a.id]
        self.assign.remove(a.id)
        if self.assign.add(b.id, list(self.options(b))):
            return True
        if not self.assign.add(a.id, list(old)):  # pragma: no cover - a's own slot is free again
            raise RuntimeError("label swap could not be rolled back")
        return False


def _slots(sel: Selection) -> list[_Slots]:
    anchors = list(sel.anchors)
    parts = []
    if sel.oo_cell:
        parts.append(_Slots(sel.oo_cell, anchors, lambda c: [cell for cell, _ in c.oo]))
    if sel.lv_rank:
        parts.append(_Slots(sel.lv_rank, anchors, lambda c: c.lv_ranks))
    if sel.lp_rank:
        parts.append(_Slots(sel.lp_rank, anchors, lambda c: c.lp_ranks))
    return parts


def _keeps_scarce(strata: Counter, out: tuple) -> bool:
    """Moving an anchor out of stratum ``out`` lowers no stratum below the emptiest of the nine."""
    return strata[out] - 1 >= min(strata[(q, h)] for q in QUERY_BUCKETS for h in HORIZON_BUCKETS)


def _try_swap(parts: list[_Slots], a: Candidate, b: Candidate) -> bool:
    done: list[_Slots] = []
    for part in parts:
        if not part.swap(a, b):
            for d in reversed(done):
                if not d.swap(b, a):  # pragma: no cover - the freed slot takes a back
                    raise RuntimeError("label swap could not be rolled back")
            return False
        done.append(part)
    return True


def cap_gold_labels(
    sel: Selection,
    pool: list[Candidate],
    label_of: Callable[[Candidate], str],
    cap: float,
    rng: random.Random,
) -> Selection:
    """``sel`` with no gold label over ``cap`` of its anchors where swaps allow it."""
    anchors = list(sel.anchors)
    limit = max(1, math.floor(cap * len(anchors)))
    count = Counter(label_of(a) for a in anchors)
    used = {a.key for a in anchors}
    spare: dict = defaultdict(list)  # object–camera cell → unused candidates, seeded order
    for b in rng.sample(pool, len(pool)):
        if b.key not in used:
            spare[b.oc].append(b)
    strata = Counter(a.stratum for a in anchors)
    parts = _slots(sel)
    order = list(range(len(anchors)))
    rng.shuffle(order)
    for i in order:
        a = anchors[i]
        lab = label_of(a)
        if count[lab] <= limit:
            continue
        same = spare[a.oc]
        fits = [
            j
            for j, b in enumerate(same)
            if label_of(b) != lab
            and count[label_of(b)] < limit
            and (b.stratum == a.stratum or _keeps_scarce(strata, a.stratum))
        ]
        fits.sort(key=lambda j: same[j].stratum != a.stratum)  # stable: seeded order within each
        direct = [j for j in fits if all(p.direct(a, same[j]) for p in parts)]
        rerouted = [j for j in fits if j not in set(direct)][:MAX_REROUTES]
        for j in direct + rerouted:
            b = same[j]
            if b.key in used or not _try_swap(parts, a, b):
                continue
            anchors[i] = b
            used.add(b.key)
            used.discard(a.key)
            count[lab] -= 1
            count[label_of(b)] += 1
            strata[a.stratum] -= 1
            strata[b.stratum] += 1
            same[j] = a
            break
    tables = [dict(p.assign.assigned) for p in parts]
    oo = tables.pop(0) if sel.oo_cell else {}
    lv = tables.pop(0) if sel.lv_rank else {}
    lp = tables.pop(0) if sel.lp_rank else {}
    return Selection(
        anchors=sorted(anchors, key=lambda c: c.id),
        oo_cell=oo,
        lv_rank=lv,
        lp_rank=lp,
        wanted=sel.wanted,
        pool=sel.pool,
        nf_label=sel.nf_label,
    )
