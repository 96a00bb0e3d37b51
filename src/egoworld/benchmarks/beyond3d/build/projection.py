"""Cross-view projection (paper Fig. 3): an object's image footprint in one view is back-projected to its
last known depth and reprojected into another view with the relative pose.

* `footprint_uv`: the nine support points of a pixel box (centre, four corners, four edge midpoints).
* `back_project`: pixels → world points at a known depth (``"z"``: along the optical axis, i.e. on a
  plane parallel to the image plane; ``"range"``: along each ray).
* `reproject`: world points → pixels of a view, with the frustum test (`CameraModel.visible`).
* `transfer`: both steps, view A → view B.
* `square_footprint`: the nine points of a square of half-size ``r`` around a 3D centre, parallel to a
  view's image plane — the footprint when no pixel box is annotated.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from egoworld.geometry.transforms import apply_transform, invert_rigid
from egoworld.geometry.visibility import Camera

F64 = NDArray[np.float64]
#: offsets of the nine support points in units of the half-size: centre, corners, edge midpoints
NINE = np.array(
    [[0, 0], [-1, -1], [1, -1], [-1, 1], [1, 1], [0, -1], [0, 1], [-1, 0], [1, 0]], dtype=np.float64
)


def footprint_uv(bbox: ArrayLike) -> F64:
    """The nine support points ``(9, 2)`` of a pixel box ``(x0, y0, x1, y1)``."""
    x0, y0, x1, y1 = (float(v) for v in np.asarray(bbox, dtype=np.float64))
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    half = np.array([(x1 - x0) / 2, (y1 - y0) / 2])
    return centre + NINE * half


def back_project(
    camera: Camera, world_from_camera: ArrayLike, uv: ArrayLike, depth: ArrayLike, kind: str = "z"
) -> F64:
    """World points behind pixels ``uv`` at ``depth`` metres (``kind`` ``"z"`` or ``"range"``); NaN where
    a ray cannot reach that depth (a fisheye ray at or beyond 90° with ``"z"``)."""
    rays = camera.unproject(np.asarray(uv, dtype=np.float64))
    d = np.asarray(depth, dtype=np.float64)
    if kind == "z":
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(rays[..., 2] > 1e-9, d / rays[..., 2], np.nan)
    elif kind == "range":
        scale = d + 0 * rays[..., 2]
    else:
        raise ValueError(f"depth kind {kind!r}: expected 'z' or 'range'")
    return apply_transform(world_from_camera, rays * scale[..., None])


def reproject(
    camera: Camera, world_from_camera: ArrayLike, points_world: ArrayLike
) -> tuple[F64, NDArray[np.bool_]]:
    """Pixels of world points in a view and whether each lies in front, inside the image (and circle)."""
    cam = apply_transform(invert_rigid(world_from_camera), points_world)
    uv, ok = camera.project(cam)
    return uv, ok & camera.in_image(uv)


def transfer(
    camera_a: Camera,
    pose_a: ArrayLike,
    uv_a: ArrayLike,
    depth_a: ArrayLike,
    pose_b: ArrayLike,
    camera_b: Camera | None = None,
    kind: str = "z",
) -> tuple[F64, NDArray[np.bool_]]:
    """Pixels ``uv_a`` of view A at ``depth_a`` → pixels in view B (and their validity)."""
    world = back_project(camera_a, pose_a, uv_a, depth_a, kind)
    return reproject(camera_b or camera_a, pose_b, world)


def depth_of(world_from_camera: ArrayLike, point_world: ArrayLike, kind: str = "z") -> F64:
    """Depth of world points in a view: z (along the optical axis) or range."""
    cam = apply_transform(invert_rigid(world_from_camera), point_world)
    return cam[..., 2] if kind == "z" else np.linalg.norm(cam, axis=-1)


def footprint_from_bbox(
    camera: Camera, world_from_camera: ArrayLike, bbox: ArrayLike, centre_world: ArrayLike
) -> F64:
    """World footprint ``(9, 3)`` of an annotated pixel box: its support points back-projected onto the
    plane through the object's 3D centre parallel to the image plane."""
    z = depth_of(world_from_camera, centre_world, "z")
    return back_project(camera, world_from_camera, footprint_uv(bbox), np.full(9, float(z)), "z")


def square_footprint(centre_world: ArrayLike, half_size_m: float, world_from_camera: ArrayLike) -> F64:
    """Nine points ``(9, 3)`` of a square of half-size ``half_size_m`` around a centre, parallel to the
    view's image plane (x right, y down)."""
    rot = np.asarray(world_from_camera, dtype=np.float64)[:3, :3]
    offsets = NINE * half_size_m
    return (
        np.asarray(centre_world, dtype=np.float64) + offsets[:, :1] * rot[:, 0] + offsets[:, 1:] * rot[:, 1]
    )
