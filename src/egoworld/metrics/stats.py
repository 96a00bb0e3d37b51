"""Mean ± SEM and percentile bootstrap CIs that resample clusters (videos), not questions."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def mean_sem(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample std, ddof = 1); SEM is 0 for fewer than 2 values."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return math.nan, math.nan
    if arr.size == 1:
        return float(arr[0]), 0.0
    return float(arr.mean()), float(arr.std(ddof=1) / math.sqrt(arr.size))


def cluster_bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[str],
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile CI of the mean when whole clusters are resampled with replacement.

    Each replicate draws as many clusters as there are, with replacement, and takes the mean over all
    their questions (a ratio estimator, so large clusters weigh more, as in the question-level mean).
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return math.nan, math.nan
    ids, inverse = np.unique(np.asarray(clusters, dtype=object).astype(str), return_inverse=True)
    sums = np.bincount(inverse, weights=arr, minlength=len(ids))
    counts = np.bincount(inverse, minlength=len(ids)).astype(float)
    if len(ids) == 1:
        m = float(arr.mean())
        return m, m
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(ids), np.full(len(ids), 1.0 / len(ids)), size=n_boot).astype(float)
    means = (draws @ sums) / (draws @ counts)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
