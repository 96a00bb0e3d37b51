"""Anchor selection under exact quotas.

Every out-of-sight anchor has a *type*: its object–camera cell (quadrant × distance bin, fixed by the
anchor) and its object–object cell (clock range × distance bin, chosen among its visible references).
The four class variables must each come out exactly even (250 per quadrant, 334/333/333 per 3-class
variable at 1,000), and so must the chronological rank of both timestamp questions.

1. **Type quotas** — a table over the 4 × 3 × 3 × 3 types with exactly those marginals, following how
   many candidates offer each type (iterative proportional fitting on the availability, then integer
   completion that respects every marginal).
2. **Greedy** — candidates are visited round robin over the 3 × 3 strata query time × horizon (equal caps
   first, then none), scarce types first, within a stratum round robin over the number of moves; one
   anchor per (object, out-of-sight span, horizon bucket). A candidate is taken when a type of it and a
   rank of each timestamp question have room — `CapacitatedAssignment` re-routes earlier anchors to
   their other references or ranks when that makes room.
3. **Refit** — when anchors are still missing, the marginal deficits are fitted onto the types of the
   unused candidates, their quotas added, and the greedy resumes; repeated while it makes progress.

So every full selection is exactly balanced; a pool that cannot fill the quotas gives fewer anchors.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import product

from egoworld.benchmarks.beyond3d.build.anchors import (
    HORIZON_BUCKETS,
    QUERY_BUCKETS,
    Candidate,
    Needs,
    Selection,
    interleave,
    rank_capacity,
)
from egoworld.benchmarks.beyond3d.build.answer_balance import CapacitatedAssignment, split_even
from egoworld.core.folders.hashing import seeded_rng
from egoworld.geometry.directions import QUADRANTS

BINS = (0, 1, 2)
MAX_REFITS = 12


def class_labels(seed: int) -> list[list]:
    """The labels of the four class variables in seed-determined order."""
    rng = seeded_rng(seed, "class-quotas")
    labels = [list(QUADRANTS), list(BINS), list(BINS), list(BINS)]
    for lab in labels:
        rng.shuffle(lab)
    return labels


def class_marginals(n: int, seed: int, order: list[list] | None = None) -> list[dict]:
    """Quotas of the four class variables: the extra units of uneven splits go to the first classes of
    ``order`` (default: `class_labels`)."""
    return [split_even(n, lab) for lab in (order or class_labels(seed))]


def types_of(c: Candidate) -> list[tuple]:
    """The types a candidate can take (one per distinct object–object cell of its references)."""
    return [(c.oc[0], c.oc[1], cell[0], cell[1]) for cell in dict.fromkeys(cell for cell, _ in c.oo)]


def fit_types(avail: dict[tuple, float], marginals: list[dict], iterations: int = 60) -> dict[tuple, int]:
    """Integer type quotas with the given marginals (sums may fall short when availability is too low)."""
    cells = [t for t in product(*(list(m) for m in marginals)) if avail.get(t, 0) > 0]
    x = {t: float(avail[t]) for t in cells}
    for _ in range(iterations):
        for d, marg in enumerate(marginals):
            sums: dict = defaultdict(float)
            for t, v in x.items():
                sums[t[d]] += v
            for t in x:
                s = sums[t[d]]
                x[t] = x[t] * marg[t[d]] / s if s > 0 else 0.0
    y = {t: max(0, min(int(math.floor(x[t])), int(avail[t]))) for t in cells}
    left = [dict(m) for m in marginals]
    for t, v in y.items():
        for d in range(4):
            left[d][t[d]] -= v
    _trim_overfull(y, x, left)
    while True:
        best, score = None, -1.0
        for t in cells:
            if y[t] < avail[t] and all(left[d][t[d]] > 0 for d in range(4)):
                s = x[t] - y[t]
                if s > score:
                    best, score = t, s
        if best is None:
            break
        y[best] += 1
        for d in range(4):
            left[d][best[d]] -= 1
    if any(v > 0 for v in left[0].values()):  # the greedy completion got stuck: solve the table exactly
        y = _exact_table(cells, avail, marginals, x) or y
    return {t: v for t, v in y.items() if v > 0}


def _trim_overfull(y: dict[tuple, int], x: dict[tuple, float], left: list[dict]) -> None:
    """Take units off the floored quotas until no class exceeds its marginal (``left ≥ 0``): when the
    availability admits no table with these marginals the fit does not converge, and its floors can put more
    in a class than the marginal (quotas the greedy would then fill into a skewed "full" set)."""
    for d, lab in enumerate(left):
        for v in lab:
            while lab[v] < 0:
                t = min(
                    (t for t in y if t[d] == v and y[t] > 0), key=lambda t: (x[t] - y[t], t), default=None
                )
                if t is None:
                    break
                y[t] -= 1
                for e in range(4):
                    left[e][t[e]] += 1


def _exact_table(cells: list[tuple], avail: dict, marginals: list[dict], x: dict) -> dict[tuple, int] | None:
    """Integer quotas ``0 ≤ y_t ≤ avail_t`` with exactly the given marginals, nearest (L1) to the fitted
    ``x`` — a small mixed-integer program (scipy's HiGHS); None when there is none or scipy is missing."""
    try:
        from scipy.optimize import LinearConstraint, milp
    except ModuleNotFoundError:  # pragma: no cover - scipy comes with the test extras
        return None
    import numpy as np

    n = len(cells)
    if not n:
        return None
    rows, lb = [], []
    for d, marg in enumerate(marginals):
        for v, q in marg.items():
            rows.append([1.0 if t[d] == v else 0.0 for t in cells] + [0.0] * n)
            lb.append(q)
    xs = np.array([x[t] for t in cells])
    eye = np.eye(n)
    # e_t ≥ |y_t − x_t|:  y − e ≤ x  and  −y − e ≤ −x
    a = np.vstack([np.array(rows).reshape(-1, 2 * n), np.hstack([eye, -eye]), np.hstack([-eye, -eye])])
    lo = np.concatenate([lb, np.full(2 * n, -np.inf)])
    hi = np.concatenate([lb, xs, -xs])
    res = milp(
        c=np.concatenate([np.zeros(n), np.ones(n)]),
        integrality=np.concatenate([np.ones(n), np.zeros(n)]),
        bounds=(np.zeros(2 * n), np.concatenate([[avail[t] for t in cells], np.full(n, np.inf)])),
        constraints=LinearConstraint(a, lo, hi),
        options={"time_limit": 10.0},
    )
    if res.x is None or not res.success:
        return None
    return {t: int(round(v)) for t, v in zip(cells, res.x[:n], strict=True)}


def balanced_table(avail: dict[tuple, int], m: int, labels: list[list]) -> dict[tuple, int] | None:
    """Integer quotas ``0 ≤ y_t ≤ avail_t`` summing to ``m`` in which every class of every dimension gets
    ``m // k`` or ``m // k + 1`` (any classes may take the extra units); None when there are none (or
    scipy is missing)."""
    try:
        from scipy.optimize import LinearConstraint, milp
    except ModuleNotFoundError:  # pragma: no cover - scipy comes with the test extras
        return None
    import numpy as np

    cells = [t for t in product(*labels) if avail.get(t, 0) > 0]
    if not cells or m <= 0:
        return {} if m == 0 else None
    rows, lo, hi = [np.ones(len(cells))], [m], [m]
    for d, lab in enumerate(labels):
        k = len(lab)
        for v in lab:
            rows.append(np.array([1.0 if t[d] == v else 0.0 for t in cells]))
            lo.append(m // k)
            hi.append(m // k + (1 if m % k else 0))
    res = milp(
        c=np.zeros(len(cells)),
        integrality=np.ones(len(cells)),
        bounds=(np.zeros(len(cells)), np.array([avail[t] for t in cells], dtype=float)),
        constraints=LinearConstraint(np.vstack(rows), lo, hi),
        options={"time_limit": 10.0},
    )
    if res.x is None or not res.success:
        return None
    return {t: int(round(v)) for t, v in zip(cells, res.x, strict=True) if round(v) > 0}


def availability(cands: list[Candidate], used: set) -> dict[tuple, int]:
    keys: dict = defaultdict(set)
    for c in cands:
        if c.key not in used:
            for t in types_of(c):
                keys[t].add(c.key)
    return {t: len(v) for t, v in keys.items()}


class _State:
    def __init__(self, n: int, seed: int, needs: Needs, types: dict, order: dict | None = None):
        self.n, self.seed, self.needs = n, seed, needs
        order = order or {}
        self.types = CapacitatedAssignment(types) if needs.spatial else None
        lv, lp = rank_capacity(n, seed, "lv", order.get("lv")), rank_capacity(n, seed, "lp", order.get("lp"))
        self.lv = CapacitatedAssignment(lv) if needs.last_visible else None
        self.lp = CapacitatedAssignment(lp) if needs.last_placement else None
        self.used: set = set()
        self.moments: set = set()
        self.chosen: list[Candidate] = []
        self.per_stratum: dict = defaultdict(int)

    def take(self, c: Candidate, only: tuple | None = None) -> bool:
        if c.key in self.used or not self.moments.isdisjoint(c.moments):
            return False
        rng = seeded_rng(self.seed, "options", *c.id)
        added = []
        kinds = [only] if only is not None else types_of(c) if self.needs.spatial else []
        for assign, opts in ((self.types, kinds), (self.lv, c.lv_ranks), (self.lp, c.lp_ranks)):
            if assign is None:
                continue
            opts = list(opts)
            rng.shuffle(opts)
            if not assign.add(c.id, opts):
                for a in added:
                    a.remove(c.id)
                return False
            added.append(assign)
        self.used.add(c.key)
        self.moments.update(c.moments)
        self.chosen.append(c)
        self.per_stratum[c.stratum] += 1
        return True

    def remove(self, c: Candidate) -> None:
        self.chosen.remove(c)
        self.used.discard(c.key)
        self.moments.difference_update(c.moments)
        self.per_stratum[c.stratum] -= 1
        for assign in (self.types, self.lv, self.lp):
            if assign is not None and c.id in assign.assigned:
                assign.remove(c.id)

    def counts(self) -> list[dict]:
        out: list[dict] = [defaultdict(int) for _ in range(4)]
        for t in self.types.assigned.values():
            for d in range(4):
                out[d][t[d]] += 1
        return out


def _order(cands: list[Candidate], quota: dict, avail: dict) -> list[Candidate]:
    """Scarce types first (tenths of quota / availability, highest first), then `interleave` order."""
    levels: dict[int, list[Candidate]] = defaultdict(list)
    for c in cands:
        p = max((quota.get(t, 0) / max(1, avail.get(t, 1)) for t in types_of(c)), default=0.0)
        levels[min(int(p * 10), 1000)].append(c)
    return [c for lvl in sorted(levels, reverse=True) for c in interleave(levels[lvl])]


def _pass(state: _State, cands: list[Candidate], quota: dict, avail: dict, capped: bool) -> int:
    strata = [(q, h) for q in QUERY_BUCKETS for h in HORIZON_BUCKETS]
    queues = {
        s: _order([c for c in cands if c.stratum == s and c.key not in state.used], quota, avail)
        for s in strata
    }
    pos = dict.fromkeys(strata, 0)
    start = len(state.chosen)
    caps = [math.ceil(state.n / len(strata)), state.n] if capped else [state.n]
    for cap in caps:
        progress = True
        while len(state.chosen) < state.n and progress:
            progress = False
            for s in strata:
                if len(state.chosen) >= state.n or state.per_stratum[s] >= cap:
                    continue
                q = queues[s]
                while pos[s] < len(q):
                    c = q[pos[s]]
                    pos[s] += 1
                    if state.take(c):
                        progress = True
                        break
    return len(state.chosen) - start


def select_anchors(
    cands: list[Candidate],
    n: int,
    seed: int,
    needs: Needs = Needs(),
    order: dict | None = None,
) -> Selection:
    """``n`` out-of-sight anchors (fewer when the pool cannot satisfy the quotas). ``order`` (keys
    ``types``: the four class lists, ``lv`` / ``lp``: ranks) says which classes get the extra units when
    ``n`` does not divide evenly (default: seed-determined)."""
    marginals = class_marginals(n, seed, (order or {}).get("types"))
    avail = availability(cands, set()) if needs.spatial else {}
    quota = fit_types(avail, marginals) if needs.spatial else {}
    state = _State(n, seed, needs, quota, order)
    _pass(state, cands, quota, avail, capped=True)
    for _ in range(MAX_REFITS if needs.spatial else 0):
        if len(state.chosen) >= n:
            break
        counts = state.counts()
        deficit = [{v: marginals[d][v] - counts[d].get(v, 0) for v in marginals[d]} for d in range(4)]
        avail = availability(cands, state.used)
        extra = fit_types(avail, deficit)
        if not extra:
            break
        for t in state.types.capacity:  # unfilled room of earlier quotas goes; the deficits are re-placed
            state.types.capacity[t] = len(state.types.members[t])
        for t, v in extra.items():
            state.types.capacity[t] = state.types.capacity.get(t, 0) + v
            state.types.members.setdefault(t, [])
        if not _pass(state, cands, extra, avail, capped=False):
            break
    if needs.spatial:
        _swap_repair(state, cands, marginals)
    chosen = sorted(state.chosen, key=lambda c: c.id)
    oo_cell = {i: (t[2], t[3]) for i, t in state.types.assigned.items()} if state.types else {}
    return Selection(
        anchors=chosen,
        oo_cell=oo_cell,
        lv_rank=dict(state.lv.assigned) if state.lv else {},
        lp_rank=dict(state.lp.assigned) if state.lp else {},
        wanted=n,
        pool=len(cands),
    )


def _deficits(state: _State, marginals: list[dict]) -> list[dict]:
    counts = state.counts()
    return [{v: marginals[d][v] - counts[d].get(v, 0) for v in marginals[d]} for d in range(4)]


def _swap_repair(state: _State, cands: list[Candidate], marginals: list[dict]) -> None:
    """Net +1 swaps while anchors are missing: eject an anchor of type ``a`` and add two unused
    candidates of types ``b`` and ``c`` with ``b + c − a`` inside the marginal deficits."""
    while len(state.chosen) < state.n:
        deficit = _deficits(state, marginals)
        by_type: dict = defaultdict(list)
        for c in cands:
            if c.key not in state.used:
                for t in types_of(c):
                    by_type[t].append(c)
        held: dict = defaultdict(list)
        for c in state.chosen:
            held[state.types.assigned[c.id]].append(c)
        if not _one_swap(state, deficit, by_type, held):
            return


def _one_swap(state: _State, deficit: list[dict], by_type: dict, held: dict) -> bool:
    for ta in sorted(held, key=str):
        for tb in sorted(by_type, key=str):
            # per dimension: either b keeps a's value (then c brings a deficit value) or c does
            choices = []
            for d in range(4):
                opts = []
                if tb[d] == ta[d]:
                    opts += [v for v, k in deficit[d].items() if k > 0]
                elif deficit[d].get(tb[d], 0) > 0:
                    opts.append(ta[d])
                choices.append(opts)
            for tc in product(*choices):
                if tc not in by_type:
                    continue
                for a in held[ta][:5]:
                    state.remove(a)
                    state.types.capacity[ta] -= 1
                    for t in (tb, tc):
                        state.types.capacity[t] = state.types.capacity.get(t, 0) + 1
                        state.types.members.setdefault(t, [])
                    for b in by_type[tb][:20]:
                        if not state.take(b, only=tb):
                            continue
                        for c in by_type[tc][:20]:
                            if c.key != b.key and state.take(c, only=tc):
                                return True
                        state.remove(b)
                    for t in (tb, tc):
                        state.types.capacity[t] -= 1
                    state.types.capacity[ta] += 1
                    if not state.take(a, only=ta):
                        raise RuntimeError("anchor swap could not be rolled back")
    return False
