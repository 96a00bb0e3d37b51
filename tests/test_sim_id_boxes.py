"""`egoworld.sim.simulated_detections.id_boxes` finds boxes for the ids an image shows only: the same counts and boxes
as `scipy.ndimage.find_objects` over every id of the world."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import find_objects

from egoworld.sim.simulated_detections import id_boxes


def _reference(ids: np.ndarray, n_ids: int) -> tuple[np.ndarray, np.ndarray]:
    pixels = np.bincount(ids.ravel(), minlength=n_ids + 1)[1 : n_ids + 1]
    boxes = np.zeros((n_ids, 4), np.int32)
    for j, sl in enumerate(find_objects(ids, max_label=n_ids)):
        if sl is not None:
            boxes[j] = (sl[1].start, sl[0].start, sl[1].stop - 1, sl[0].stop - 1)
    return pixels, boxes


def test_id_boxes_match_find_objects_over_every_id() -> None:
    rng = np.random.default_rng(5)
    for n_ids, shown in ((2000, 30), (50, 50), (7, 1)):
        ids = np.zeros((48, 64), np.int32)
        for j in rng.choice(np.arange(1, n_ids + 1), size=shown, replace=False):
            y, x = rng.integers(0, 40), rng.integers(0, 56)
            ids[y : y + rng.integers(1, 9), x : x + rng.integers(1, 9)] = j
        pixels, boxes = id_boxes(ids, n_ids)
        ref_pixels, ref_boxes = _reference(ids, n_ids)
        assert np.array_equal(pixels, ref_pixels) and np.array_equal(boxes, ref_boxes)
        assert boxes.dtype == np.int32 and (pixels > 0).sum() >= 1
    empty = id_boxes(np.zeros((4, 4), np.int32), 3)
    assert not empty[0].any() and not empty[1].any()
