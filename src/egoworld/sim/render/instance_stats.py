"""Per-frame instance statistics from an instance-id buffer: visible pixel counts and bounding boxes."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def pixel_counts(ids: NDArray, n: int) -> NDArray[np.int32]:
    """Visible pixels of every instance id ``0 … n-1`` (ids ≥ n are ignored)."""
    flat = ids.ravel()
    return np.bincount(flat[flat < n], minlength=n)[:n].astype(np.int32)


def bounding_boxes(ids: NDArray, wanted: NDArray) -> NDArray[np.int16]:
    """``(k, 4)`` boxes ``[x0, y0, x1, y1]`` (inclusive pixel indices) of instances ``wanted``; -1 if absent."""
    wanted = np.asarray(wanted, dtype=np.int64)
    out = np.full((len(wanted), 4), -1, dtype=np.int16)
    if len(wanted) == 0:
        return out
    lut = np.full(int(max(wanted.max(), ids.max())) + 1, -1, dtype=np.int64)
    lut[wanted] = np.arange(len(wanted))
    lab = lut[ids]
    rows, cols = np.nonzero(lab >= 0)
    if len(rows) == 0:
        return out
    k = lab[rows, cols]
    big = np.iinfo(np.int32).max
    x0 = np.full(len(wanted), big, np.int64)
    y0 = np.full(len(wanted), big, np.int64)
    x1 = np.full(len(wanted), -1, np.int64)
    y1 = np.full(len(wanted), -1, np.int64)
    np.minimum.at(x0, k, cols)
    np.minimum.at(y0, k, rows)
    np.maximum.at(x1, k, cols)
    np.maximum.at(y1, k, rows)
    seen = x1 >= 0
    out[seen] = np.stack([x0, y0, x1, y1], axis=-1)[seen]
    return out
