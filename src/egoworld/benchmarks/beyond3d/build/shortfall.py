"""Exact balance, or a clear shortfall: the largest exactly balanced anchor set a pool gives.

`select_anchors` fills exact quotas for ``n`` anchors (object–camera quadrant and distance bin,
object–object clock range and distance bin, chronological rank of both timestamp questions: every class
``n // k`` or ``n // k + 1`` times). When the pool cannot fill them, what the greedy reached is skewed, so
it is never delivered: `select_balanced` searches a smaller ``m`` whose quotas the pool fills completely
(with the extra units of uneven quotas given to the classes the pool offers most): from an upper bound
(the scarcest class; the largest size whose joint type table has a solution) down to what each try
reached until one fills, then up through the sizes
skipped on the way down, so the size just above the one delivered was tried and not filled.
`shortfall_note` says how many anchors are missing and how many more minutes of video that takes at the
anchor yield of the worlds. The size found is the largest the greedy fills, not a proven optimum.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from egoworld.benchmarks.beyond3d.build.anchors import Candidate, Needs, Selection, rank_order
from egoworld.benchmarks.beyond3d.build.select import (
    availability,
    balanced_table,
    class_labels,
    select_anchors,
    types_of,
)


@dataclass
class Shortfall:
    """A build that could not fill its quotas."""

    wanted: int
    greedy: int
    """anchors the greedy reached under the quotas for ``wanted`` (an unbalanced set, not delivered)"""
    delivered: int
    tried: dict[int, int] = field(default_factory=dict)
    """size asked → anchors reached"""

    @property
    def missing(self) -> int:
        return self.wanted - self.delivered


def availability_order(cands: list[Candidate], seed: int, needs: Needs) -> dict:
    """Class orders for `select_anchors` that give the extra units of uneven quotas to the classes the
    pool offers most (ties keep the seed-determined order)."""

    def ranked(labels: list, counts: Counter) -> list:
        return sorted(labels, key=lambda lab: -counts[lab])

    order: dict = {}
    if needs.spatial:
        counts = [Counter() for _ in range(4)]
        for c in cands:
            for d, labels in enumerate(zip(*types_of(c), strict=True)):
                counts[d].update(set(labels))
        order["types"] = [ranked(labels, counts[d]) for d, labels in enumerate(class_labels(seed))]
    for name, attr in (("lv", "lv_ranks"), ("lp", "lp_ranks")):
        order[name] = ranked(rank_order(seed, name), Counter(r for c in cands for r in getattr(c, attr)))
    return order


def balanced_bound(cands: list[Candidate], needs: Needs) -> int:
    """An upper bound on any exactly balanced set: a variable with ``k`` classes, the scarcest offered by
    ``a`` distinct candidates (uniqueness keys), admits at most ``k·a + k − 1`` anchors."""
    variables: list[tuple[int, dict]] = []
    if needs.spatial:
        for d, k in enumerate((4, 3, 3, 3)):
            keys: dict = {}
            for c in cands:
                for t in types_of(c):
                    keys.setdefault(t[d], set()).add(c.key)
            variables.append((k, keys))
    for attr, wanted in (("lv_ranks", needs.last_visible), ("lp_ranks", needs.last_placement)):
        if wanted:
            keys = {}
            for c in cands:
                for r in getattr(c, attr):
                    keys.setdefault(r, set()).add(c.key)
            variables.append((5, keys))
    bound = len({c.key for c in cands})
    for k, keys in variables:
        scarcest = min(len(v) for v in keys.values()) if len(keys) >= k else 0
        bound = min(bound, k * scarcest + k - 1)
    return bound


def flexible_order(cands: list[Candidate], m: int, needs: Needs, base: dict) -> dict | None:
    """``base`` with the type classes reordered so the extra units of ``m``'s quotas go where the joint
    object–camera × object–object table can take them (`balanced_table`); None when no table exists."""
    if not needs.spatial:
        return base
    table = balanced_table(availability(cands, set()), m, base["types"])
    if table is None:
        return None
    counts = [Counter() for _ in range(4)]
    for t, q in table.items():
        for d in range(4):
            counts[d][t[d]] += q
    return base | {
        "types": [sorted(lab, key=lambda v, d=d: -counts[d][v]) for d, lab in enumerate(base["types"])]
    }


def table_bound(cands: list[Candidate], upper: int, needs: Needs, base: dict) -> int:
    """The largest size ≤ ``upper`` (by bisection) whose object–camera × object–object type table has a
    solution at all: joint limits (targets behind the camera are rarely near a visible reference) that
    no per-class bound sees."""
    if not needs.spatial:
        return upper
    lo, hi = 0, upper + 1
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if flexible_order(cands, mid, needs, base) is not None else (lo, mid)
    return lo


def select_balanced(
    cands: list[Candidate], n: int, seed: int, needs: Needs = Needs()
) -> tuple[Selection, Shortfall | None]:
    """``n`` exactly balanced anchors, or the largest exactly balanced set found and its `Shortfall`."""
    first = select_anchors(cands, n, seed, needs)
    if not first.short:
        return first, None
    order = availability_order(cands, seed, needs)
    tried: dict[int, int] = {}
    best: Selection | None = None
    m = table_bound(cands, min(n, balanced_bound(cands, needs)), needs, order)
    while m > 0 and best is None:  # down to what each try reached, until one size fills
        sel = select_anchors(cands, m, seed, needs, flexible_order(cands, m, needs, order) or order)
        tried[m] = len(sel.anchors)
        best = None if sel.short else sel
        m = min(m - 1, len(sel.anchors))
    size = len(best.anchors) + 1 if best is not None else n + 1
    while best is not None and size <= n and size not in tried:  # sizes skipped on the way down
        sel = select_anchors(cands, size, seed, needs, flexible_order(cands, size, needs, order) or order)
        tried[size] = len(sel.anchors)
        if not sel.short:
            best, size = sel, size + 1
    if best is not None and len(best.anchors) == n:
        return best, None  # full once the extra units go to the classes the pool offers most
    if best is None:
        best = Selection(anchors=[], oo_cell={}, lv_rank={}, lp_rank={}, wanted=n, pool=len(cands))
    best.wanted = n
    return best, Shortfall(wanted=n, greedy=len(first.anchors), delivered=len(best.anchors), tried=tried)


def shortfall_note(short: Shortfall, pool: int, minutes: float) -> str:
    """What the build delivered instead of ``wanted`` and how much more video the quotas need."""
    head = (
        f"shortfall: only {short.delivered} of {short.wanted} out-of-sight anchors form an exactly balanced set "
        f"(candidate pool {pool}; the quotas for {short.wanted} reached {short.greedy}, which would skew ranks and "
        "directions, so it was not delivered)"
    )
    if short.delivered == 0 or minutes <= 0:
        return head + "; the worlds yield no balanced anchor — add worlds where moved objects leave the view"
    rate = short.delivered / minutes
    more = math.ceil(short.missing / rate)
    return (
        f"{head}; at {rate:.2f} anchors per minute of video ({minutes:.1f} min with geometry), about {more} more "
        f"minute{'' if more == 1 else 's'} of kitchen video would fill the request (×{short.wanted / short.delivered:.1f} the worlds), or lower --anchors"
    )
