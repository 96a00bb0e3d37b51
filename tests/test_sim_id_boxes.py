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


def test_simulated_boxes_at_the_frame_edges_stay_inside_and_never_have_negative_size() -> None:
    """Objects touching each edge of a 96 px frame, jittered by up to 2 px: every box is inside the frame
    with x1 >= x0 and y1 >= y0 (the reader of a detections file refuses anything else)."""
    import random

    import numpy as np

    from egoworld.sim.simulated_detections import DetectionModel, frame_detections

    boxes = np.array([[0, 10, 0, 30], [95, 10, 95, 30], [10, 0, 30, 0], [10, 95, 30, 95]] * 4)
    model = DetectionModel(min_pixels=1, full_pixels=1, miss_rate=0.0, false_positives_per_frame=0.0)
    ids = [f"o{i}" for i in range(len(boxes))]
    for seed in range(50):
        dets = frame_detections(random.Random(seed), ids, ["cup"] * len(ids), np.full(len(ids), 50),
                                boxes, (96, 96), model, ["cup"])  # fmt: skip
        for d in dets:
            x0, y0, x1, y1 = d["box"]
            assert 0 <= x0 <= x1 <= 95 and 0 <= y0 <= y1 <= 95, d["box"]
