"""Simulated object detections written from the instance buffer, with a seeded miss / false-positive model.

File ``detections.jsonl``: one line per rendered frame, in frame order::

    {"frame": 12, "t": 6.0, "detections": [
        {"category": "mug", "object": "obj_007", "box": [x0, y0, x1, y1], "score": 0.91, "pixels": 412},
        {"category": "bowl", "object": null, "box": [...], "score": 0.42, "pixels": 0}     # false positive
    ]}

``box`` is in pixels of the video frame (inclusive, x right, y down), taken from the object's visible
pixels (jittered by up to ``box_jitter_px``). A visible object (≥ ``min_pixels`` pixels) is reported with
probability ``(1 - miss_rate) · min(1, pixels / full_pixels)``; each frame adds false positives
(``object: null``) with Poisson mean ``false_positives_per_frame``, labelled with a category of the episode.
Every choice comes from ``seeded_rng(seed, episode, "detections", frame)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.hashing import seeded_rng


@dataclass(frozen=True)
class DetectionModel:
    """Parameters of the simulated detector."""

    min_pixels: int = 30
    full_pixels: int = 300
    miss_rate: float = 0.1
    false_positives_per_frame: float = 0.15
    box_jitter_px: int = 2

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def id_boxes(ids: NDArray, n_ids: int) -> tuple[NDArray, NDArray]:
    """Pixel counts ``(n_ids,)`` and inclusive boxes ``(n_ids, 4)`` (x0, y0, x1, y1; zeros where absent)
    of every id ``1 … n_ids`` in an instance-id image (0: background). Boxes are found for the ids present
    only (relabelled ``1 … k``), so the cost follows what the image shows, not how many ids the world has."""
    from scipy.ndimage import find_objects

    pixels = np.bincount(ids.ravel(), minlength=n_ids + 1)[1 : n_ids + 1]
    boxes = np.zeros((n_ids, 4), np.int32)
    seen = np.flatnonzero(pixels)
    if len(seen) == 0:
        return pixels, boxes
    lut = np.zeros(max(int(ids.max()), n_ids) + 1, np.int32)
    lut[seen + 1] = np.arange(1, len(seen) + 1)
    for j, sl in zip(seen, find_objects(lut[ids], max_label=len(seen)), strict=True):
        boxes[j] = (sl[1].start, sl[0].start, sl[1].stop - 1, sl[0].stop - 1)
    return pixels, boxes


def _poisson(rng: Any, mean: float) -> int:
    # Knuth's method: fine for small means
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def simulate_detections(
    *,
    seed: int,
    episode_id: str,
    times: NDArray,
    object_ids: Sequence[str],
    categories: Sequence[str],
    pixels: NDArray,
    boxes: NDArray,
    size: tuple[int, int],
    model: DetectionModel,
) -> Iterator[dict[str, Any]]:
    """Yield one detections row per frame (see the module docstring)."""
    vocab = sorted(set(categories))
    for f in range(len(times)):
        rng = seeded_rng(seed, episode_id, "detections", f)
        dets = frame_detections(rng, object_ids, categories, pixels[f], boxes[f], size, model, vocab)
        yield {"frame": f, "t": round(float(times[f]), 6), "detections": dets}


def frame_detections(
    rng: Any,
    object_ids: Sequence[str],
    categories: Sequence[str],
    pixels: NDArray,
    boxes: NDArray,
    size: tuple[int, int],
    model: DetectionModel,
    vocab: Sequence[str],
) -> list[dict[str, Any]]:
    """One frame's detections of the objects ``object_ids`` (their ``pixels`` and ``boxes`` in this frame)
    and the false positives (labels from ``vocab``), every draw from ``rng``."""
    width, height = size
    dets: list[dict[str, Any]] = []
    for j in np.flatnonzero(pixels >= model.min_pixels):
        p_det = (1 - model.miss_rate) * min(1.0, pixels[j] / model.full_pixels)
        if rng.random() >= p_det:
            continue
        jit = [rng.randint(-model.box_jitter_px, model.box_jitter_px) for _ in range(4)]
        x0, y0, x1, y1 = (int(v) for v in boxes[j])
        # inside the frame and never of negative size (an object at the frame's edge gives a flat box)
        left = min(width - 1, max(0, x0 + jit[0]))
        top = min(height - 1, max(0, y0 + jit[1]))
        box = [left, top, min(width - 1, max(left, x1 + jit[2])), min(height - 1, max(top, y1 + jit[3]))]
        dets.append(
            {
                "category": categories[j],
                "object": object_ids[j],
                "box": box,
                "score": round(rng.uniform(0.5, 1.0), 3),
                "pixels": int(pixels[j]),
            }
        )
    for _ in range(_poisson(rng, model.false_positives_per_frame)):
        w, h = rng.randint(8, max(9, width // 6)), rng.randint(8, max(9, height // 6))
        x, y = rng.randint(0, width - w), rng.randint(0, height - h)
        dets.append(
            {
                "category": vocab[rng.randrange(len(vocab))],
                "object": None,
                "box": [x, y, x + w - 1, y + h - 1],
                "score": round(rng.uniform(0.3, 0.7), 3),
                "pixels": 0,
            }
        )
    return dets
