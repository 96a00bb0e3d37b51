"""Camera-relative directions and distances (the Beyond3D conventions, DESIGN.md §3).

All inputs are points in the camera frame (x right, y down, z forward), e.g. from
`egoworld.geometry.transforms.world_to_camera` with the query-time pose; arrays broadcast over ``(..., 3)``.

* `quadrant`: object–camera direction from the signs of x and z — ``FL``, ``FR``, ``BL``, ``BR``
  (front if z > 0, left if x < 0); `quadrant_is_clear` applies the skip rule (|x| or |z| < 0.05 m, or within
  5° of straight left/right in the x–z plane).
* `clock_angle_deg`: angle of ``target − reference`` seen from the camera, ``atan2(v_x, v_z) mod 360``
  (v_y ignored; 0 = straight ahead, 90 = right); `clock_range` bins it into [0, 135), [135, 225),
  [225, 360); `clock_hour` gives the nearest hour (12 = ahead, 3 = right).
* `distance`, `camera_distance`: Euclidean distances; `distance_bin` with the Beyond3D edges (1, 1.5 m).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

QUADRANTS = ("FL", "FR", "BL", "BR")
QUADRANT_NAMES = {"FL": "Front-left", "FR": "Front-right", "BL": "Back-left", "BR": "Back-right"}
CLOCK_RANGE_EDGES_DEG = (0.0, 135.0, 225.0, 360.0)
CLOCK_RANGE_LABELS = ("12 to 4:30 o'clock", "4:30 to 7:30 o'clock", "7:30 to 12 o'clock")
DISTANCE_EDGES_M = (1.0, 1.5)
DISTANCE_LABELS = ("under 1 m", "1 to under 1.5 m", "1.5 m or more")


def _xz(points: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p = np.asarray(points, dtype=np.float64)
    return p[..., 0], p[..., 2]


def quadrant(points_cam: ArrayLike) -> NDArray[np.str_]:
    """``FL`` / ``FR`` / ``BL`` / ``BR`` per point: front when z > 0, left when x < 0."""
    x, z = _xz(points_cam)
    front = np.where(z > 0, "F", "B")
    side = np.where(x < 0, "L", "R")
    return np.char.add(front, side)


def quadrant_is_clear(
    points_cam: ArrayLike, *, min_abs_m: float = 0.05, min_side_angle_deg: float = 5.0
) -> NDArray[np.bool_]:
    """False where the quadrant is ambiguous: |x| < ``min_abs_m``, |z| < ``min_abs_m``, or the direction in
    the x–z plane is within ``min_side_angle_deg`` of straight left/right."""
    x, z = _xz(points_cam)
    side_angle = np.degrees(np.arctan2(np.abs(z), np.abs(x)))
    return (np.abs(x) >= min_abs_m) & (np.abs(z) >= min_abs_m) & (side_angle >= min_side_angle_deg)


def clock_angle_deg(target_cam: ArrayLike, reference_cam: ArrayLike) -> NDArray[np.float64]:
    """Clock angle of the target around the reference seen from the camera: ``atan2(v_x, v_z) mod 360``."""
    v = np.asarray(target_cam, dtype=np.float64) - np.asarray(reference_cam, dtype=np.float64)
    return np.mod(np.degrees(np.arctan2(v[..., 0], v[..., 2])), 360.0)


def clock_range(angle_deg: ArrayLike) -> NDArray[np.int64]:
    """0 for [0, 135), 1 for [135, 225), 2 for [225, 360) (angles taken mod 360)."""
    a = np.mod(np.asarray(angle_deg, dtype=np.float64), 360.0)
    return np.digitize(a, CLOCK_RANGE_EDGES_DEG[1:3]).astype(np.int64)


def clock_radius_m(target_cam: ArrayLike, reference_cam: ArrayLike) -> NDArray[np.float64]:
    """Length of ``target − reference`` in the camera's x–z plane (the clock's radius)."""
    v = np.asarray(target_cam, dtype=np.float64) - np.asarray(reference_cam, dtype=np.float64)
    return np.hypot(v[..., 0], v[..., 2])


def clock_hour(angle_deg: ArrayLike) -> NDArray[np.int64]:
    """Nearest clock hour 1–12 of a clock angle (12 ahead, 3 right, 6 behind, 9 left)."""
    h = np.rint(np.mod(np.asarray(angle_deg, dtype=np.float64), 360.0) / 30.0).astype(np.int64) % 12
    return np.where(h == 0, 12, h)


def distance(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Euclidean distance between points ``(..., 3)``."""
    return np.linalg.norm(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64), axis=-1)


def camera_distance(points_cam: ArrayLike) -> NDArray[np.float64]:
    """Distance of camera-frame points from the camera centre."""
    return np.linalg.norm(np.asarray(points_cam, dtype=np.float64), axis=-1)


def distance_bin(d: ArrayLike, edges: tuple[float, ...] = DISTANCE_EDGES_M) -> NDArray[np.int64]:
    """Bin index of distances: with the default edges 0 = under 1 m, 1 = 1 to under 1.5 m, 2 = 1.5 m or more."""
    return np.digitize(np.asarray(d, dtype=np.float64), edges).astype(np.int64)
