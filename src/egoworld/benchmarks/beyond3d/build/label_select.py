"""The anchor selection again, with every Nearest Fixture gold label within its allowance: one exact program.

A label's *allowance* is the chance a constant guess of it earns where it may be shown: ``Σ 1 / k`` over
the questions that may show it (`fixture_plan.allowance`). `allowance_selection` takes a balanced
selection and picks the same number of anchors from the pool with exactly its class counts
(object–camera quadrant and distance bin, object–object clock range and distance bin, both
chronological ranks), one anchor per uniqueness key, no more 3-option questions than the release's
share, and every label's gold count at most its allowance plus ``slack``: a mixed-integer program
(scipy's HiGHS) that keeps as many of the given anchors as it can; the query-time × horizon strata are
soft quotas: none drops below the emptiest of ``sel``'s (or below its own count there, if lower). Each anchor is assigned its object–object cell, its
ranks and its question form (a counter placement of a 3–4-area kitchen asks for the counter area with 3
options or for the fixture type, gold "counter", with 5). None when no such set exists (or none is found
within the node limit). Large pools are sampled (`MAX_POOL`): the 1,000-anchor test build chooses from
3,000 of its 35,081 candidates in about 10 CPU s.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from egoworld.benchmarks.beyond3d.build.anchors import Candidate, Selection
from egoworld.core.folders.hashing import seeded_rng

#: the most candidates the program chooses from: ``sel``'s anchors and a seeded sample of the others,
#: round robin over their gold labels and object–camera cells (rare labels first in full)
MAX_POOL = 3000
#: the relative optimality gap the solver stops at (the set is feasible either way: this is how many of
#: ``sel``'s anchors it may replace more than needed)
GAP = 0.05
#: the most branch-and-bound nodes per solve (a count, not a time, so the result does not depend on the
#: machine's speed; the time limit is only a guard)
NODES = 500


@dataclass(frozen=True)
class Form:
    """One way an anchor's Nearest Fixture question can be asked."""

    gold: str
    options: int
    pool: tuple[str, ...]
    """every label the question may show, the gold among them"""


def allowance_selection(
    sel: Selection,
    cands: list[Candidate],
    forms: dict[tuple, tuple[Form, ...]],
    three_slots: int,
    slack: float,
    seed: int = 0,
    time_limit: float = 600.0,
) -> Selection | None:
    """``sel``'s size and class counts from ``cands`` with every gold label within its allowance plus
    ``slack`` (candidates without ``forms`` are not eligible) and at most ``three_slots`` questions of
    3 options or fewer; ``Selection.nf_label`` names each anchor's gold label. None when infeasible."""
    try:
        from scipy.optimize import LinearConstraint, milp
        from scipy.sparse import coo_array
    except ModuleNotFoundError:  # pragma: no cover - scipy comes with the test extras
        return None
    import numpy as np

    kept = {c.id for c in sel.anchors}
    pool = _sample_pool(sel, [c for c in cands if forms.get(c.id)], forms, seed)
    var: list[tuple] = []  # (kind, candidate index, value)
    index: dict[tuple, int] = {}

    def add(kind: str, i: int, value) -> int:
        index[(kind, i, value)] = len(var)
        var.append((kind, i, value))
        return len(var) - 1

    for i, c in enumerate(pool):
        add("y", i, None)
        for cell in dict.fromkeys(cell for cell, _ in c.oo):
            if sel.oo_cell:
                add("oo", i, cell)
        if sel.lv_rank:
            for r in dict.fromkeys(c.lv_ranks):
                add("lv", i, r)
        if sel.lp_rank:
            for r in dict.fromkeys(c.lp_ranks):
                add("lp", i, r)
        for f, _ in enumerate(forms[c.id]):
            add("form", i, f)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    lo: list[float] = []
    hi: list[float] = []

    def row(entries: list[tuple[int, float]], low: float, high: float) -> None:
        r = len(lo)
        for j, v in entries:
            rows.append(r)
            cols.append(j)
            vals.append(v)
        lo.append(low)
        hi.append(high)

    by_kind: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for j, (kind, i, _) in enumerate(var):
        if kind != "y":
            by_kind[kind][i].append(j)
    for i in range(len(pool)):  # each chosen anchor takes exactly one cell, rank, rank and form
        y = index[("y", i, None)]
        for kind in ("oo", "lv", "lp", "form"):
            if (
                kind == "form"
                or (kind == "oo" and sel.oo_cell)
                or (kind == "lv" and sel.lv_rank)
                or (kind == "lp" and sel.lp_rank)
            ):
                row([(y, -1.0)] + [(j, 1.0) for j in by_kind[kind][i]], 0.0, 0.0)
    keys: dict = defaultdict(list)
    for i, c in enumerate(pool):
        keys[c.key].append(index[("y", i, None)])
    for i, c in enumerate(pool):  # one anchor per moment (`Candidate.moments`)
        for m in c.moments:
            keys[m].append(index[("y", i, None)])
    for ys in keys.values():
        if len(ys) > 1:
            row([(j, 1.0) for j in ys], 0.0, 1.0)
    # the class counts of ``sel``, exactly
    targets: dict[tuple, int] = defaultdict(int)
    for c in sel.anchors:
        targets[("quad", c.oc[0])] += 1
        targets[("dist", c.oc[1])] += 1
        if sel.oo_cell:
            targets[("clock", sel.oo_cell[c.id][0])] += 1
            targets[("oodist", sel.oo_cell[c.id][1])] += 1
        if sel.lv_rank:
            targets[("lv", sel.lv_rank[c.id])] += 1
        if sel.lp_rank:
            targets[("lp", sel.lp_rank[c.id])] += 1
    members: dict[tuple, list[int]] = defaultdict(list)
    for j, (kind, i, value) in enumerate(var):
        c = pool[i]
        if kind == "y":
            members[("quad", c.oc[0])].append(j)
            members[("dist", c.oc[1])].append(j)
        elif kind == "oo":
            members[("clock", value[0])].append(j)
            members[("oodist", value[1])].append(j)
        elif kind in ("lv", "lp"):
            members[(kind, value)].append(j)
    for key in sorted(set(targets) | set(members), key=str):
        entries = [(j, 1.0) for j in members.get(key, [])]
        row(entries, targets.get(key, 0), targets.get(key, 0))
    strata: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(pool):
        strata[c.stratum].append(index[("y", i, None)])
    held = defaultdict(int, {s: 0 for s in strata})
    for c in sel.anchors:
        held[c.stratum] += 1
    emptiest = min((v for v in held.values() if v), default=0)
    for s in sorted(strata):  # none drops below the emptiest of ``sel``'s strata
        if min(held[s], emptiest):
            row([(j, 1.0) for j in strata[s]], min(held[s], emptiest), np.inf)
    # the release's 3-option share, and every label within its allowance
    small = [
        index[("form", i, f)]
        for i, c in enumerate(pool)
        for f, fm in enumerate(forms[c.id])
        if fm.options <= 3
    ]
    row([(j, 1.0) for j in small], 0.0, float(three_slots))
    labels: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for i, c in enumerate(pool):
        for f, fm in enumerate(forms[c.id]):
            j = index[("form", i, f)]
            for lab in dict.fromkeys(fm.pool):  # not a set: the row order must not follow string hashing
                labels[lab].append((j, (1.0 if lab == fm.gold else 0.0) - 1.0 / fm.options))
    for entries in labels.values():
        if any(v > 0 for _, v in entries):
            row(entries, -np.inf, slack)
    cost = np.zeros(len(var))
    for j, (kind, i, _) in enumerate(var):
        if kind == "y":
            cost[j] = -1.0 if pool[i].id in kept else 0.0
    a = coo_array((vals, (rows, cols)), shape=(len(lo), len(var))).tocsr()
    res = milp(
        c=cost,
        integrality=np.ones(len(var)),
        bounds=(np.zeros(len(var)), np.ones(len(var))),
        constraints=LinearConstraint(a, np.array(lo), np.array(hi)),
        options={"time_limit": time_limit, "mip_rel_gap": GAP, "node_limit": NODES},
    )
    if res.x is None:  # infeasible, or no feasible set found within the node limit
        return None
    x = np.round(res.x).astype(int)
    chosen = [pool[i] for j, (kind, i, _) in enumerate(var) if kind == "y" and x[j]]
    pick: dict[str, dict[tuple, object]] = defaultdict(dict)
    for j, (kind, i, value) in enumerate(var):
        if kind != "y" and x[j]:
            pick[kind][pool[i].id] = forms[pool[i].id][value].gold if kind == "form" else value
    return Selection(
        anchors=sorted(chosen, key=lambda c: c.id),
        oo_cell=dict(pick["oo"]),
        lv_rank=dict(pick["lv"]),
        lp_rank=dict(pick["lp"]),
        wanted=sel.wanted,
        pool=sel.pool,
        nf_label=dict(pick["form"]),
    )


def _sample_pool(
    sel: Selection, cands: list[Candidate], forms: dict[tuple, tuple[Form, ...]], seed: int
) -> list[Candidate]:
    """``sel``'s anchors and up to `MAX_POOL` in all: the others taken round robin over (gold labels,
    object–camera cell) groups in seeded order, so the rare labels come in full."""
    if len(cands) <= MAX_POOL:
        return cands
    kept = {c.id for c in sel.anchors}
    groups: dict[tuple, list[Candidate]] = defaultdict(list)
    for c in cands:
        if c.id not in kept:
            groups[(tuple(f.gold for f in forms[c.id]), c.oc)].append(c)
    rng = seeded_rng(seed, "allowance-pool")
    queues = [groups[g] for g in sorted(groups, key=str)]
    for q in queues:
        rng.shuffle(q)
    out = [c for c in cands if c.id in kept]
    depth = 0
    while len(out) < MAX_POOL and any(depth < len(q) for q in queues):
        out += [q[depth] for q in queues if depth < len(q)][: MAX_POOL - len(out)]
        depth += 1
    return sorted(out, key=lambda c: c.id)
