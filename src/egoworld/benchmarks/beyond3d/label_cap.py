"""Cap a Nearest Fixture gold label's share of the anchors by like-for-like swaps.

A label can be offered at most once a question, so one that is the gold of more than the chance rate of
the questions that can show it makes a constant guess beat chance whatever the distractors. After the
balanced selection, `cap_gold_labels` swaps anchors of an over-full label for unused candidates of
another label that take the very same balance cells (object–camera cell, object–object cell, both
chronological ranks), so every exact quota still holds; it stops where no such candidate is
left (the share is then as low as the pool allows).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

from egoworld.benchmarks.beyond3d.anchors import Candidate, Selection


def _fits(b: Candidate, a: Candidate, sel: Selection) -> bool:
    """``b`` can take ``a``'s place: same cells and ranks."""
    if a.id in sel.oo_cell and (b.oc != a.oc or sel.oo_cell[a.id] not in {cell for cell, _ in b.oo}):
        return False
    if a.id in sel.lv_rank and sel.lv_rank[a.id] not in b.lv_ranks:
        return False
    return not (a.id in sel.lp_rank and sel.lp_rank[a.id] not in b.lp_ranks)


def cap_gold_labels(
    sel: Selection,
    pool: list[Candidate],
    label_of: Callable[[Candidate], str],
    cap: float,
    rng: random.Random,
) -> Selection:
    """``sel`` with no gold label over ``cap`` of its anchors where like-for-like swaps allow it."""
    anchors = list(sel.anchors)
    limit = max(1, math.floor(cap * len(anchors)))
    count = Counter(label_of(a) for a in anchors)
    used = {a.key for a in anchors}
    spare = [b for b in pool if b.key not in used]
    rng.shuffle(spare)
    oo, lv, lp = dict(sel.oo_cell), dict(sel.lv_rank), dict(sel.lp_rank)
    order = list(range(len(anchors)))
    rng.shuffle(order)
    for i in order:
        a = anchors[i]
        lab = label_of(a)
        if count[lab] <= limit:
            continue
        for j, b in enumerate(spare):
            other = label_of(b)
            if other == lab or count[other] >= limit or b.key in used or not _fits(b, a, sel):
                continue
            anchors[i] = b
            used.add(b.key)
            used.discard(a.key)
            count[lab] -= 1
            count[other] += 1
            for table in (oo, lv, lp):
                if a.id in table:
                    table[b.id] = table.pop(a.id)
            spare[j] = a
            break
    return Selection(
        anchors=sorted(anchors, key=lambda c: c.id),
        oo_cell=oo,
        lv_rank=lv,
        lp_rank=lp,
        wanted=sel.wanted,
        pool=sel.pool,
    )
