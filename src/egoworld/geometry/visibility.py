"""Frustum, behind-camera and depth-buffer occlusion tests for points in the camera frame.

Depth maps are ``(H, W)`` arrays in metres of the same camera's image. ``depth_kind="range"`` (the
default, and what a ray caster gives for every camera model) stores the distance from the camera centre
along each pixel's ray; ``"z"`` stores the distance along the optical axis (a pinhole z-buffer).
Non-finite or non-positive depth means "nothing there" and never occludes.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera

Camera = PinholeCamera | FisheyeCamera | EquirectCamera
DepthKind = Literal["range", "z"]

OUT_OF_VIEW, OCCLUDED, VISIBLE = 0, 1, 2
"""Codes returned by `visibility_codes`."""


def behind_camera(points_cam: ArrayLike) -> NDArray[np.bool_]:
    """Points with z ≤ 0 (at or behind the camera plane)."""
    return np.asarray(points_cam, dtype=np.float64)[..., 2] <= 0


def in_view(camera: Camera, points_cam: ArrayLike) -> NDArray[np.bool_]:
    """Frustum test: the point projects inside the image (and inside a fisheye's valid circle)."""
    return camera.visible(points_cam)


def point_depth(points_cam: ArrayLike, depth_kind: DepthKind = "range") -> NDArray[np.float64]:
    """The depth a depth map would store for these points: range (‖p‖) or z."""
    p = np.asarray(points_cam, dtype=np.float64)
    return np.linalg.norm(p, axis=-1) if depth_kind == "range" else p[..., 2]


def sample_depth(depth: ArrayLike, uv: ArrayLike) -> NDArray[np.float64]:
    """Depth at the nearest pixel of each ``uv`` (NaN outside the image or where ``uv`` is NaN)."""
    d = np.asarray(depth, dtype=np.float64)
    q = np.asarray(uv, dtype=np.float64)
    finite = np.all(np.isfinite(q), axis=-1)
    col = np.rint(np.where(finite, q[..., 0], -1)).astype(np.int64)
    row = np.rint(np.where(finite, q[..., 1], -1)).astype(np.int64)
    inside = finite & (col >= 0) & (col < d.shape[1]) & (row >= 0) & (row < d.shape[0])
    out = np.full(q.shape[:-1], np.nan)
    out[inside] = d[row[inside], col[inside]]
    return out


def occluded(
    camera: Camera,
    points_cam: ArrayLike,
    depth: ArrayLike,
    *,
    tolerance_m: float = 0.05,
    depth_kind: DepthKind = "range",
) -> NDArray[np.bool_]:
    """Depth-buffer occlusion test: in view, and the depth map holds a surface more than ``tolerance_m``
    in front of the point. Points out of view are never "occluded" (they are out of view)."""
    p = np.asarray(points_cam, dtype=np.float64)
    d = np.asarray(depth)
    if d.shape[:2] != (camera.height, camera.width):
        raise ValueError(f"depth map is {d.shape[:2]}, the camera image is {(camera.height, camera.width)}")
    uv, ok = camera.project(p)
    view = ok & camera.in_image(uv)
    surface = sample_depth(d, uv)
    with np.errstate(invalid="ignore"):
        blocked = np.isfinite(surface) & (surface > 0) & (surface < point_depth(p, depth_kind) - tolerance_m)
    return view & blocked


def visibility_codes(
    camera: Camera,
    points_cam: ArrayLike,
    depth: ArrayLike | None = None,
    *,
    tolerance_m: float = 0.05,
    depth_kind: DepthKind = "range",
) -> NDArray[np.int8]:
    """Per point: `OUT_OF_VIEW` (0), `OCCLUDED` (1) or `VISIBLE` (2); without a depth map nothing is occluded."""
    view = in_view(camera, points_cam)
    codes = np.where(view, VISIBLE, OUT_OF_VIEW).astype(np.int8)
    if depth is not None:
        codes[occluded(camera, points_cam, depth, tolerance_m=tolerance_m, depth_kind=depth_kind)] = OCCLUDED
    return codes
