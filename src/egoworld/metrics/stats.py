"""Mean ± SEM and percentile bootstrap CIs that resample clusters (videos), not questions."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

BOOTSTRAP_BLOCK_CELLS = 1 << 20  # draws held at once (replicates × clusters)


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
    # stream the replicates in blocks (rows of one multinomial stream, so identical to drawing all at once):
    # memory stays ~8 MB instead of n_boot × clusters (hundreds of MB at 20,000 questions)
    # (blocks of near-equal size, at least 32 rows: BLAS then sums each row as it does for the whole matrix)
    rows = max(32, BOOTSTRAP_BLOCK_CELLS // len(ids))
    p = np.full(len(ids), 1.0 / len(ids))
    means = np.empty(n_boot)
    for part in np.array_split(np.arange(n_boot), max(1, n_boot // rows)):
        draws = rng.multinomial(len(ids), p, size=len(part)).astype(float)
        means[part[0] : part[-1] + 1] = (draws @ sums) / (draws @ counts)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
