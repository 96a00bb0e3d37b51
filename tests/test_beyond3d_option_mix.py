"""Nearest Fixture in the official release's option mix: 3 options in 20.25 % of the questions, 5 in the
rest, so chance 22.7 % (the paper's release), from the sim kitchens' real fixture layouts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from egoworld.benchmarks.beyond3d.anchors import Candidate, Selection
from egoworld.benchmarks.beyond3d.fixture_balance import LabelBalance
from egoworld.benchmarks.beyond3d.fixtures import (
    counter_area_labels,
    fixture_options,
    max_options,
    release_option_counts,
)
from egoworld.benchmarks.beyond3d.label_cap import cap_gold_labels

RELEASE_CHANCE = 22.7


def test_release_option_counts_hit_the_share_exactly() -> None:
    maxima = {k: (3 if k % 10 == 0 else 5) for k in range(1000)}
    counts = release_option_counts(maxima, random.Random(0))
    assert Counter(counts.values()) == {3: 202, 5: 798}  # round(0.2025 * 1000) = 202
    assert all(counts[k] == 3 for k in range(0, 1000, 10))  # small kitchens keep their maximum
    assert counts == release_option_counts(maxima, random.Random(0))
    forced = release_option_counts({k: 3 for k in range(10)} | {10: 5}, random.Random(0))
    assert forced[10] == 5  # already over the share: nothing more is cut


def _placements(n: int) -> list[tuple]:
    """(fixtures, labels, gold fixture) for ``n`` object placements of sim kitchen stories."""
    from egoworld.sim.kitchen import KitchenConfig, build_kitchen_episode

    out: list[tuple] = []
    k = 0
    while len(out) < n:
        episode, _ = build_kitchen_episode(f"K{k}", k, KitchenConfig(minutes=4.0, fps=1.0, size=64))
        fixtures = {f.id: f for f in episode.fixtures}
        labels = counter_area_labels(episode.fixtures)
        for obj in episode.objects:
            out += [
                (episode.fixtures, labels, fixtures[m.end_fixture]) for m in obj.movements if m.end_fixture
            ]
        k += 1
    return out[:n]


@pytest.mark.parametrize("n", [200, pytest.param(1000, marks=pytest.mark.slow)])
def test_fixture_chance_is_the_releases(n: int) -> None:
    places = _placements(n)
    maxima = {i: max_options(f, g, lab) for i, (f, lab, g) in enumerate(places)}
    counts = release_option_counts(maxima, random.Random(1))
    sizes = []
    for i, (fixtures, labels, gold) in enumerate(places):
        opts = fixture_options(fixtures, gold, random.Random(i), labels, counts[i])
        assert opts is not None
        variant, texts, keys, gi = opts
        assert len(texts) == counts[i] and len(set(texts)) == len(texts)
        sizes.append(len(texts))
    chance = 100 * sum(1 / s for s in sizes) / len(sizes)
    assert abs(chance - RELEASE_CHANCE) <= 0.5, (chance, Counter(sizes))
    assert Counter(sizes)[3] == round(0.2025 * n)


def test_three_option_slots_go_first_to_the_named_keys() -> None:
    maxima = dict.fromkeys(range(100), 5)
    counts = release_option_counts(maxima, random.Random(0), first=set(range(10)))
    assert Counter(counts.values()) == {3: 20, 5: 80}
    assert all(counts[k] == 3 for k in range(10))


def _label_shares(n: int, balanced: bool) -> tuple[float, float]:
    """(gold share, shown share) of the most frequent gold label over ``n`` sim placements."""
    places = _placements(n)
    maxima = {i: max_options(f, g, lab) for i, (f, lab, g) in enumerate(places)}
    counts = release_option_counts(maxima, random.Random(1))
    golds = [fixture_options(f, g, random.Random(0), lab, counts[i]) for i, (f, lab, g) in enumerate(places)]
    chance = sum(1 / c for c in counts.values()) / n
    balance = LabelBalance([o[1][o[3]] for o in golds if o], chance) if balanced else None
    shown: Counter[str] = Counter()
    for i, (fixtures, labels, gold) in enumerate(places):
        prefer = balance.deficit if balance else None
        opts = fixture_options(fixtures, gold, random.Random(i), labels, counts[i], prefer)
        assert opts is not None and opts[1][opts[3]] == golds[i][1][golds[i][3]]  # the gold never changes
        shown.update(opts[1])
        if balance:
            balance.record(opts[1], opts[3])
    top, g = Counter(o[1][o[3]] for o in golds if o).most_common(1)[0]
    return g / n, shown[top] / n


def test_label_balance_shows_frequent_gold_labels_as_distractors() -> None:
    gold, plain = _label_shares(200, balanced=False)
    _, balanced = _label_shares(200, balanced=True)
    # a constant guess of the top label is right in gold / shown of the questions that show it
    assert balanced > plain + 0.1, (gold, plain, balanced)


def test_label_balance_counts_deficits() -> None:
    b = LabelBalance(["sink", "sink", "hob"], chance=0.25)
    assert b.deficit("sink") == 6.0 and b.deficit("hob") == 3.0 and b.deficit("fridge") == 0.0
    b.record(["sink", "hob", "fridge"], 2)
    assert b.deficit("sink") == 5.0 and b.deficit("fridge") == 0.0
    with pytest.raises(ValueError):
        LabelBalance([], chance=1.0)


def _cand(i: int, oc: tuple[str, int], cell: tuple[int, int], rank: int) -> Candidate:
    return Candidate(
        kind="out_of_sight", episode=0, obj=i, k=0, query_s=10.0, moves=1, key=(i,), priority=0,
        horizon_s=30.0, oc=oc, oo=[(cell, 1)], lv_ranks=[rank], lp_ranks=[rank],
    )  # fmt: skip


def test_cap_gold_labels_swaps_like_for_like() -> None:
    """Anchors 0–5 all of label "a"; spares 6–11 of label "b", only 6–8 in the same cells and ranks."""
    cells = [(("front", 0), (1, 1), 0), (("left", 1), (2, 0), 1), (("back", 2), (0, 2), 2)]
    anchors = [_cand(i, *cells[i % 3]) for i in range(6)]
    spares = [_cand(6 + i, *cells[i]) for i in range(3)] + [
        _cand(9 + i, ("right", 0), (0, 0), 0) for i in range(3)
    ]
    label = {c.id: ("a" if c.obj < 6 else "b") for c in anchors + spares}
    sel = Selection(
        anchors=anchors, oo_cell={c.id: c.oo[0][0] for c in anchors}, lv_rank={c.id: c.lv_ranks[0] for c in anchors},
        lp_rank={c.id: c.lp_ranks[0] for c in anchors}, wanted=6, pool=12,
    )  # fmt: skip
    out = cap_gold_labels(sel, anchors + spares, lambda c: label[c.id], 0.5, random.Random(0))
    assert Counter(label[c.id] for c in out.anchors) == {"a": 3, "b": 3}
    for c in out.anchors:  # every swapped-in anchor takes the cells and ranks it can hold
        assert out.oo_cell[c.id] == c.oo[0][0] and out.lv_rank[c.id] == c.lv_ranks[0] == out.lp_rank[c.id]
    assert sorted((c.oc, out.oo_cell[c.id]) for c in out.anchors) == sorted(
        (c.oc, sel.oo_cell[c.id]) for c in anchors
    )
    assert cap_gold_labels(sel, anchors + spares, lambda c: label[c.id], 0.5, random.Random(0)) == out
