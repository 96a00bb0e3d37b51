"""Mean ± SEM and percentile bootstrap CIs that resample clusters (videos), not questions."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

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
    ((lo, hi),) = cluster_bootstrap_cis(
        np.column_stack([sums, counts]), _ratio, n_boot=n_boot, level=level, seed=seed
    )
    return lo, hi


def _ratio(totals: np.ndarray) -> np.ndarray:
    return (totals[:, 0] / totals[:, 1])[:, None]


def cluster_bootstrap_cis(
    per_cluster: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> list[tuple[float, float]]:
    """The one cluster bootstrap: percentile CIs of statistics of per-cluster totals, clusters resampled.

    ``per_cluster`` holds one row of additive counts per cluster (e.g. score sum and question count, or a
    confusion matrix); each replicate draws as many clusters as there are, with replacement, and sums their
    rows. ``statistic`` maps a block of replicate totals (rows) to one column per statistic; replicates where
    a statistic is NaN (a ratio with nothing below it) are left out of its interval. With fewer than 2
    clusters every interval is the statistic of the total."""
    k = len(per_cluster)
    if k < 2:
        point = statistic(per_cluster.sum(axis=0, keepdims=True))[0]
        return [(float(v), float(v)) for v in point]
    rng = np.random.default_rng(seed)
    # stream the replicates in blocks (rows of one multinomial stream, so identical to drawing all at once):
    # memory stays ~8 MB instead of n_boot × clusters (hundreds of MB at 20,000 questions)
    # (blocks of near-equal size, at least 32 rows: BLAS then sums each row as it does for the whole matrix;
    # one matrix-vector product per column, as the whole matrix would be summed)
    rows = max(32, BOOTSTRAP_BLOCK_CELLS // k)
    p = np.full(k, 1.0 / k)
    columns = [np.ascontiguousarray(per_cluster[:, j], dtype=float) for j in range(per_cluster.shape[1])]
    blocks = []
    for part in np.array_split(np.arange(n_boot), max(1, n_boot // rows)):
        draws = rng.multinomial(k, p, size=len(part)).astype(float)
        totals = np.column_stack([draws @ column for column in columns])
        blocks.append(statistic(totals))
    replicates = np.concatenate(blocks)
    alpha = (1.0 - level) / 2.0
    out = []
    for column in replicates.T:
        kept = column[~np.isnan(column)]
        lo, hi = np.quantile(kept, [alpha, 1.0 - alpha]) if kept.size else (math.nan, math.nan)
        out.append((float(lo), float(hi)))
    return out
