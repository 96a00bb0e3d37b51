"""Nearest Fixture in the official release's option mix: 3 options in 20.25 % of the questions, 5 in the
rest, so chance 22.7 % (the paper's release), from the sim kitchens' real fixture layouts."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from egoworld.benchmarks.beyond3d.anchors import Candidate, Selection
from egoworld.benchmarks.beyond3d.fixture_balance import LabelBalance
from egoworld.benchmarks.beyond3d.fixture_plan import FixtureQuestion, allowance, gold_counts
from egoworld.benchmarks.beyond3d.fixtures import (
    counter_area_labels,
    fixture_options,
    max_options,
    release_option_counts,
)
from egoworld.benchmarks.beyond3d.label_cap import cap_gold_labels
from egoworld.benchmarks.beyond3d.letters import balance_letters
from egoworld.benchmarks.beyond3d.select import LabelCaps, select_anchors
from egoworld.benchmarks.beyond3d.shortfall import select_balanced
from egoworld.core.schema import Sample
from test_beyond3d_shortfall import pool, spreads

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


def test_three_option_slots_go_last_to_the_named_keys() -> None:
    maxima = dict.fromkeys(range(100), 5)
    counts = release_option_counts(maxima, random.Random(0), first={0, 1}, last=set(range(2, 90)))
    assert Counter(counts.values()) == {3: 20, 5: 80}
    assert counts[0] == counts[1] == 3 and all(counts[k] == 3 for k in range(90, 100))
    assert sum(counts[k] == 3 for k in range(2, 90)) == 8


def _question(gold: str, pool: tuple[str, ...], k: int) -> FixtureQuestion:
    return FixtureQuestion(options=k, variant="type", gold=gold, pool=(gold, *(p for p in pool if p != gold)))


def test_allowance_and_caps_of_a_plan() -> None:
    """'cupboard' gold in 3 of 5 five-option questions that all may show it: allowance 1 (2 over)."""
    kinds = ("cupboard", "drawer", "sink", "hob", "fridge")
    plan = {i: _question(g, kinds, 5) for i, g in enumerate(["cupboard"] * 3 + ["drawer", "sink"])}
    plan[9] = _question("counter area next to the sink", ("counter area next to the hob", "x"), 3)
    assert allowance(plan)["cupboard"] == pytest.approx(1.0)
    assert allowance(plan)["counter area next to the sink"] == pytest.approx(1 / 3)
    assert gold_counts(plan) == {"cupboard": 3, "drawer": 1, "sink": 1, "counter area next to the sink": 1}


def test_label_caps_hold_inside_the_exact_selection() -> None:
    """Candidates without label options are not capped; a capped pool that cannot fill is short."""
    cands = pool(400, seed=2)
    labels = {c.id: (("cupboard",) if c.obj % 2 else ("drawer", "counter")) for c in cands if c.obj % 5}
    free, _ = select_balanced(cands, 40, seed=0)
    assert sum(c.obj % 2 for c in free.anchors) > 8  # without caps the pool gives many cupboards
    sel = select_anchors(cands, 40, seed=0, labels=LabelCaps(labels, {"cupboard": 8, "drawer": 12}))
    assert not sel.short and max(spreads(sel, cands).values()) <= 1, spreads(sel, cands)
    got = Counter(sel.nf_label[c.id] for c in sel.anchors if c.id in labels)
    assert got["cupboard"] <= 8 and got["drawer"] <= 12
    assert all(c.id in labels or c.id not in sel.nf_label for c in sel.anchors)
    assert all(sel.nf_label[c.id] in labels[c.id] for c in sel.anchors if c.id in labels)
    tight = select_anchors(
        cands, 40, seed=0, labels=LabelCaps(labels, {"cupboard": 0, "drawer": 0, "counter": 0})
    )
    assert tight.short and all(c.id not in labels for c in tight.anchors)  # only the uncapped ones


def _sample(i: int, k: int, task: str) -> Sample:
    return Sample(
        id=f"s{i:03d}", benchmark="beyond3d", task=task, episode="e", question="q?", answer_type="choice",
        choices=tuple(f"option {j}" for j in range(k)), answer=0, metadata={},
    )  # fmt: skip


def test_letters_balance_within_groups_and_overall() -> None:
    samples = [_sample(i, 3 if i % 4 == 0 else 5, "nearest_fixture") for i in range(53)]
    group = lambda s: int(int(s.id[1:4]) % 3 == 0)  # noqa: E731
    out = balance_letters(samples, seed=0, stratum=group)
    for k in (3, 5):
        mine = [s for s in out if len(s.choices) == k]
        for part in ({0}, {1}, {0, 1}):
            got = Counter(s.answer for s in mine if group(s) in part)
            counts = [got[p] for p in range(k)]
            assert max(counts) - min(counts) <= 1, (k, part, counts)
    assert all(s.choices[s.answer] == "option 0" for s in out)  # the gold moved, not changed
    assert balance_letters(samples, seed=0) == balance_letters(samples, seed=0, stratum=lambda s: 0)


@pytest.mark.slow  # 440 kitchen minutes, ground truth only (no rendering), and a 1,000-anchor build
def test_fixture_chance_of_a_1000_anchor_build(tmp_path: Path) -> None:
    """A text-only build of the paper's 1,000 out-of-sight anchors from unrendered sim kitchens (the build
    reads no pixels with detections "none") has the release's Nearest Fixture chance."""
    from egoworld.benchmarks.beyond3d.build import BuildConfig, build_beyond3d
    from sim_worlds import sim_kitchens

    worlds = sim_kitchens(tmp_path / "w", episodes=40, minutes=11.0, seed=0, render=False)
    report = build_beyond3d(
        [worlds], tmp_path / "b", BuildConfig(anchors=1000, controls=10, detections="none")
    )
    assert report.anchors == 1000 and report.shortfall is None, report.lines()
    nf = [s for s in report.bench.samples if s.task == "nearest_fixture"]
    assert len(nf) == 1000 and Counter(len(s.choices) for s in nf) == {3: 202, 5: 798}
    assert abs(report.bench.manifest.tasks["nearest_fixture"].chance - RELEASE_CHANCE) <= 0.5


def test_cap_gold_labels_reroutes_other_anchors() -> None:
    """Label "a" holds 2 of 3 anchors (limit 1): anchor 0 at rank 1, anchor 3 at rank 3; anchor 1 ("c")
    holds rank 2 and could take rank 1. The spare ("b") fits rank 2 only: it replaces anchor 0 once
    anchor 1 moves to rank 1 (no like-for-like partner exists), every count unchanged."""
    anchors = [
        _cand(0, ("front", 0), (1, 1), 1),
        _cand(1, ("front", 0), (1, 1), 2),
        _cand(3, ("front", 0), (1, 1), 3),
    ]
    anchors[1].lv_ranks = anchors[1].lp_ranks = [2, 1]
    spare = _cand(2, ("front", 0), (1, 1), 2)
    label = {0: "a", 1: "c", 2: "b", 3: "a"}
    ranks = {c.id: c.lv_ranks[0] for c in anchors}
    sel = Selection(
        anchors=anchors, oo_cell={c.id: (1, 1) for c in anchors}, lv_rank=ranks, lp_rank=dict(ranks), wanted=3, pool=4,
    )  # fmt: skip
    out = cap_gold_labels(sel, [*anchors, spare], lambda c: label[c.obj], 0.0, random.Random(0))
    assert [c.obj for c in out.anchors] == [1, 2, 3]
    assert out.lv_rank == {anchors[1].id: 1, spare.id: 2, anchors[2].id: 3} == out.lp_rank
    assert set(out.oo_cell.values()) == {(1, 1)} and len(out.oo_cell) == 3


def test_letters_keep_the_fallback_position_off_the_questions_without_the_label() -> None:
    """30 five-option questions, 7 of them not showing the leading label: their gold positions spread
    2/2/2/1/0 at most, the fewest on the fallback (most frequent overall) position."""
    from egoworld.benchmarks.beyond3d.fixture_balance import leading_label, shows_label
    from egoworld.benchmarks.beyond3d.letters import fallback_position

    samples = [_sample(i, 5, "nearest_fixture") for i in range(31)]
    samples = [
        s.model_copy(update={"choices": ("cupboard", *s.choices[1:]) if i >= 7 else s.choices})
        for i, s in enumerate(samples)
    ]
    samples[7] = samples[7].model_copy(update={"answer": 0})  # one "cupboard" gold: the leading label
    assert leading_label(samples) == "cupboard"
    shows = shows_label("cupboard")
    out = balance_letters(samples, seed=0, stratum=shows)
    overall = Counter(s.answer for s in out)
    fallback = min(overall, key=lambda p: (-overall[p], p))
    assert sorted(overall.values()) == [6, 6, 6, 6, 7]
    apart = Counter(s.answer for s in out if not shows(s))
    assert sum(apart.values()) == 7 and max(apart.values()) - min(apart[p] for p in range(5)) <= 1
    assert apart[fallback] == min(apart[p] for p in range(5)) == 1
    assert fallback == fallback_position({5: dict(overall)})
    assert balance_letters(samples, seed=0, stratum=shows) == out
