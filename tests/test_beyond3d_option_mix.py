"""Nearest Fixture in the official release's option mix: 3 options in 20.25 % of the questions, 5 in the
rest, so chance 22.7 % (the paper's release), from the sim kitchens' real fixture layouts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from egoworld.benchmarks.beyond3d.fixtures import (
    counter_area_labels,
    fixture_options,
    max_options,
    release_option_counts,
)

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
