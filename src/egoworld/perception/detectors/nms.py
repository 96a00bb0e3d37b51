"""Per-label non-maximum suppression of detections (boxes of one label overlapping above a threshold)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from egoworld.perception.detectors.detector import Detection


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box of ``a`` (N, 4) with every box of ``b`` (M, 4), xyxy."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def per_label_nms(dets: Sequence[Detection], iou: float) -> list[Detection]:
    """The highest-scoring detection of each cluster of same-label boxes overlapping by more than ``iou``;
    ties keep the input order (deterministic)."""
    order = sorted(range(len(dets)), key=lambda i: -dets[i].score)
    kept: list[int] = []
    for i in order:
        box = np.array([dets[i].bbox])
        same = [k for k in kept if dets[k].label == dets[i].label]
        if same and iou_matrix(box, np.array([dets[k].bbox for k in same])).max() > iou:
            continue
        kept.append(i)
    return [dets[i] for i in sorted(kept)]
