"""Beyond3D direction and distance conventions (DESIGN.md §3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from egoworld.geometry.directions import (
    QUADRANT_NAMES,
    camera_distance,
    clock_angle_deg,
    clock_hour,
    clock_radius_m,
    clock_range,
    distance,
    distance_bin,
    quadrant,
    quadrant_is_clear,
)
from egoworld.geometry.transforms import look_at, world_to_camera


def test_quadrants_from_signs_of_x_and_z() -> None:
    pts = [[-1, 0, 1], [1, 0, 1], [-1, 0, -1], [1, 0, -1], [1, 5, -1]]
    assert quadrant(pts).tolist() == ["FL", "FR", "BL", "BR", "BR"]  # y (up/down) does not matter
    assert QUADRANT_NAMES["BL"] == "Back-left"


def test_quadrant_skip_rule() -> None:
    s4, c4 = math.sin(math.radians(4)), math.cos(math.radians(4))
    s6, c6 = math.sin(math.radians(6)), math.cos(math.radians(6))
    pts = [[0.04, 0, 1], [1, 0, 0.04], [-c4, 0, s4], [-c6, 0, s6], [0.5, 0, -0.5], [0.06, 0, 0.06]]
    assert quadrant_is_clear(pts).tolist() == [False, False, False, True, True, True]


def test_object_camera_direction_uses_the_tilted_camera_frame() -> None:
    # a camera looking down at 45° along +x: a point on the floor far ahead is in front, one below-behind the
    # camera's feet is behind in the camera frame even though it is ahead of the wearer horizontally
    pose = look_at([0, 0, 1.5], [1.5, 0, 0])
    cam = world_to_camera([[3.0, 0.5, 0.0], [0.2, 0.5, 0.0]], pose)
    assert quadrant(cam).tolist() == ["FL", "FL"]
    cam = world_to_camera([[-0.5, -0.5, 2.5]], pose)
    assert quadrant(cam).tolist() == ["BR"]


def test_clock_angle_and_ranges() -> None:
    ref = np.array([0.0, 0.0, 2.0])
    targets = ref + np.array([[0, 0, 1], [1, 0, 0], [0, 0, -1], [-1, 0, 0], [1, 3, 1]])
    np.testing.assert_allclose(clock_angle_deg(targets, ref), [0, 90, 180, 270, 45])  # v_y ignored
    assert clock_range([0, 134.999, 135, 224.999, 225, 359.999, 360, -1]).tolist() == [0, 0, 1, 1, 2, 2, 0, 2]
    assert clock_hour([0, 30, 90, 180, 270, 344, 346]).tolist() == [12, 1, 3, 6, 9, 11, 12]
    assert clock_radius_m(ref + [0.03, 1.0, 0.04], ref) == pytest.approx(0.05)


def test_distances_and_bins() -> None:
    assert distance([0, 0, 0], [3, 4, 0]) == 5.0
    assert camera_distance([[0, 0, 2], [1, 2, 2]]).tolist() == [2.0, 3.0]
    assert distance_bin([0.999, 1.0, 1.499, 1.5, 7]).tolist() == [0, 1, 1, 2, 2]
