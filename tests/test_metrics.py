"""Metric definitions on hand-made numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from egoworld.core.permutations import all_orders
from egoworld.metrics.mra import mra_linear, mra_staircase
from egoworld.metrics.shuffle import shuffle_stats
from egoworld.metrics.stats import cluster_bootstrap_ci, mean_sem


def official_vsibench_mra(pred: float, target: float) -> float:
    """The VSI-Bench formula, written out as its public code does (numpy linspace thresholds)."""
    start, end, interval = 0.5, 0.95, 0.05
    thresholds = np.linspace(start, end, int((end - start) / interval + 2))
    return float((abs(pred - target) / target <= 1 - thresholds).mean())


def test_mra_linear():
    assert mra_linear(8, 10) == pytest.approx(0.8)
    assert mra_linear(12, 10) == pytest.approx(0.8)
    assert mra_linear(30, 10) == 0.0
    assert mra_linear(10, 10) == 1.0
    # gt 0: the denominator is max(y, 1)
    assert mra_linear(0, 0) == 1.0
    assert mra_linear(1, 0) == 0.0
    assert mra_linear(0.5, 0) == pytest.approx(0.5)


def test_mra_staircase_matches_official_float_arithmetic():
    # 1 - 0.8 is 0.19999999999999996 < 0.2, so the 0.80 threshold fails: 6 of 10, not 7
    assert mra_staircase(8, 10) == pytest.approx(0.6)
    assert mra_staircase(8, 10) == official_vsibench_mra(8, 10)
    for pred, gt in [(10, 10), (9, 10), (5, 10), (14, 10), (1, 3), (100, 7), (6.5, 6)]:
        assert mra_staircase(pred, gt) == official_vsibench_mra(pred, gt)
    assert mra_staircase(0, 0) == 1.0 and mra_staircase(2, 0) == 0.0


def test_mean_sem():
    m, s = mean_sem([1.0, 0.0, 1.0, 0.0])
    assert m == 0.5 and s == pytest.approx(math.sqrt(1 / 3) / 2)
    assert mean_sem([0.7]) == (0.7, 0.0)


def test_cluster_bootstrap_is_deterministic_and_widens_for_correlated_clusters():
    rng = np.random.default_rng(1)
    clusters = np.repeat(np.arange(20), 10).astype(str)
    # all questions of a cluster share the outcome: effective sample size 20, not 200
    values = np.repeat(rng.integers(0, 2, size=20), 10).astype(float)
    lo, hi = cluster_bootstrap_ci(values, clusters, seed=0)
    assert (lo, hi) == cluster_bootstrap_ci(values, clusters, seed=0)
    assert lo <= values.mean() <= hi
    iid = cluster_bootstrap_ci(values, np.arange(200).astype(str), seed=0)
    assert (hi - lo) > 2 * (iid[1] - iid[0])


def _always_first(n_questions: int):
    """Balanced gold positions; the model always answers display position A."""
    orders = all_orders(4)
    gold = np.arange(n_questions) % 4
    correct = np.array([[orders[j][0] == g for j in range(24)] for g in gold])
    picked = np.zeros_like(correct, dtype=int)
    return correct, picked


def test_always_first_position_baseline():
    st = shuffle_stats(*_always_first(40))
    assert st.order_accuracy == [25.0] * 24
    assert st.order_bias_std == 0.0 and st.best_worst_gap == 0.0
    assert st.pass_at_k[5] == 100.0  # Pass@6
    assert st.pass_at_k[6] == 0.0  # Pass@7
    assert st.top_k[0] == 25.0 and st.top_k[-1] == 100.0
    assert st.position_pick_rate["A"] == 100.0 and st.position_pick_rate["B"] == 0.0


def test_hand_made_top_k_and_pass_at_k():
    correct = np.zeros((4, 24), dtype=bool)
    correct[0, :] = True  # right in every order
    correct[1, 3] = True  # right once, in order 4
    correct[2, [0, 23]] = True  # right twice
    picked = np.full((4, 24), -1)
    st = shuffle_stats(correct, picked)
    assert st.top_k[0] == 50.0 and st.top_k[2] == 50.0 and st.top_k[3] == 75.0 and st.top_k[23] == 75.0
    assert st.pass_at_k[0] == 75.0 and st.pass_at_k[1] == 50.0 and st.pass_at_k[2] == 25.0
    assert st.pass_at_k[23] == 25.0
    assert st.position_pick_rate["none"] == 100.0


def test_random_guessing_has_known_top24_and_small_bias():
    rng = np.random.default_rng(0)
    correct = rng.random((4000, 24)) < 0.25
    st = shuffle_stats(correct, rng.integers(0, 4, size=(4000, 24)))
    assert st.top_k[-1] == pytest.approx(100 * (1 - 0.75**24), abs=0.5)
    assert st.order_bias_std < 1.5
    assert st.pass_at_k[0] == st.top_k[-1]


def test_shuffle_stats_rejects_bad_shapes():
    with pytest.raises(ValueError):
        shuffle_stats(np.zeros((2, 24), bool), np.zeros((2, 23), int))
