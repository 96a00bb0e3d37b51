"""Rays and segments against oriented boxes (fixtures, object extents), and a small box renderer.

* `ray_box_entry`: distance along rays to where they enter a `Box3D` (0 when they start inside, inf when
  they miss) — the slab method in the box's own frame, vectorised over rays.
* `first_hits`: nearest entry over several boxes (index and distance).
* `render_boxes`: per-pixel id and range-depth image of a set of boxes seen by a camera; used for the
  geometric depth of a world without depth media and for exact instance visibility in synthetic worlds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.boxes import Box3D
from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera

F64 = NDArray[np.float64]
Camera = PinholeCamera | FisheyeCamera | EquirectCamera


def ray_box_entry(origins: F64, directions: F64, box: Box3D) -> F64:
    """Parameter ``s ≥ 0`` at which ``origin + s·direction`` enters ``box`` (0 if the origin is inside,
    inf if the ray misses). With unit directions ``s`` is a distance in metres."""
    rot = box.matrix
    o = (np.asarray(origins, dtype=np.float64) - np.asarray(box.center)) @ rot
    d = np.asarray(directions, dtype=np.float64) @ rot
    half = np.asarray(box.size) / 2
    parallel = d == 0
    safe = np.where(parallel, 1.0, d)
    t1 = (-half - o) / safe
    t2 = (half - o) / safe
    lo = np.minimum(t1, t2)
    hi = np.maximum(t1, t2)
    inside_slab = np.abs(o) <= half
    lo = np.where(parallel, np.where(inside_slab, -np.inf, np.inf), lo)
    hi = np.where(parallel, np.where(inside_slab, np.inf, -np.inf), hi)
    t_in = lo.max(axis=-1)
    t_out = hi.min(axis=-1)
    entry = np.maximum(t_in, 0.0)
    return np.where(t_out >= entry, entry, np.inf)


def first_hits(origins: F64, directions: F64, boxes: Sequence[Box3D]) -> tuple[NDArray[np.int64], F64]:
    """Index of the first box each ray enters (-1 when none) and the entry parameter (inf when none)."""
    shape = np.asarray(origins).shape[:-1]
    best = np.full(shape, np.inf)
    which = np.full(shape, -1, dtype=np.int64)
    for k, box in enumerate(boxes):
        s = ray_box_entry(origins, directions, box)
        closer = s < best
        best = np.where(closer, s, best)
        which = np.where(closer, k, which)
    return which, best


def pixel_rays(camera: Camera) -> tuple[F64, NDArray[np.bool_]]:
    """Unit rays ``(H, W, 3)`` of every pixel centre in the camera frame, and which pixels are valid
    (inside the image and, for a fisheye, its valid circle)."""
    u, v = np.meshgrid(np.arange(camera.width, dtype=np.float64), np.arange(camera.height, dtype=np.float64))
    uv = np.stack([u, v], axis=-1)
    rays = camera.unproject(uv)
    valid = camera.in_image(uv) & np.all(np.isfinite(rays), axis=-1)
    return rays, valid


def render_boxes(
    camera: Camera,
    world_from_camera: F64,
    boxes: Sequence[Box3D],
    rays: tuple[F64, NDArray[np.bool_]] | None = None,
) -> tuple[NDArray[np.int64], F64]:
    """Render ``boxes`` seen from ``world_from_camera``: per pixel the index of the visible box (-1: none)
    and its range depth in metres (NaN where nothing is hit or outside the valid image)."""
    cam_rays, valid = rays if rays is not None else pixel_rays(camera)
    pose = np.asarray(world_from_camera, dtype=np.float64)
    dirs = cam_rays @ pose[:3, :3].T
    origins = np.broadcast_to(pose[:3, 3], dirs.shape)
    which, dist = first_hits(origins, dirs, boxes)
    which = np.where(valid & np.isfinite(dist), which, -1)
    depth = np.where(which >= 0, dist, np.nan)
    return which, depth
