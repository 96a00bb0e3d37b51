"""Rigid transforms, rotations and pose interpolation (numpy, vectorised).

Conventions used everywhere in egoworld:

* a pose is a 4×4 ``world_from_camera`` matrix ``T``: ``p_world = T @ [p_cam, 1]``;
* the camera frame has x right, y down, z forward (the upright image);
* rotations act on column vectors; quaternions are ``(x, y, z, w)`` (glTF / scipy order).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

F64 = NDArray[np.float64]


def make_transform(rotation: ArrayLike, translation: ArrayLike) -> F64:
    """A 4×4 rigid transform (or a stack ``(..., 4, 4)``) from rotations ``(..., 3, 3)`` and translations ``(..., 3)``."""
    r = np.asarray(rotation, dtype=np.float64)
    t = np.asarray(translation, dtype=np.float64)
    shape = np.broadcast_shapes(r.shape[:-2], t.shape[:-1])
    out = np.zeros((*shape, 4, 4))
    out[..., :3, :3] = r
    out[..., :3, 3] = t
    out[..., 3, 3] = 1.0
    return out


def invert_rigid(transform: ArrayLike) -> F64:
    """Inverse of rigid transforms ``(..., 4, 4)`` (rotation transposed, translation rotated back)."""
    t = np.asarray(transform, dtype=np.float64)
    r_inv = np.swapaxes(t[..., :3, :3], -1, -2)
    return make_transform(r_inv, -np.einsum("...ij,...j->...i", r_inv, t[..., :3, 3]))


def apply_transform(transform: ArrayLike, points: ArrayLike) -> F64:
    """Apply ``(4, 4)`` (or ``(..., 4, 4)`` broadcast against the points) to points ``(..., 3)``."""
    t = np.asarray(transform, dtype=np.float64)
    p = np.asarray(points, dtype=np.float64)
    return np.einsum("...ij,...j->...i", t[..., :3, :3], p) + t[..., :3, 3]


def world_to_camera(points_world: ArrayLike, world_from_camera: ArrayLike) -> F64:
    """Points ``(..., 3)`` in the world frame → camera frame (x right, y down, z forward)."""
    return apply_transform(invert_rigid(world_from_camera), points_world)


def camera_to_world(points_cam: ArrayLike, world_from_camera: ArrayLike) -> F64:
    """Points ``(..., 3)`` in the camera frame → world frame."""
    return apply_transform(world_from_camera, points_cam)


def rotation_about(axis: str, angle_deg: ArrayLike) -> F64:
    """Right-handed rotation matrices ``(..., 3, 3)`` about ``"x"``, ``"y"`` or ``"z"`` by ``angle_deg``."""
    a = np.radians(np.asarray(angle_deg, dtype=np.float64))
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    rows = {
        "x": ((o, z, z), (z, c, -s), (z, s, c)),
        "y": ((c, z, s), (z, o, z), (-s, z, c)),
        "z": ((c, -s, z), (s, c, z), (z, z, o)),
    }[axis]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def quat_to_matrix(quat_xyzw: ArrayLike) -> F64:
    """Unit quaternions ``(..., 4)`` in (x, y, z, w) order → rotation matrices ``(..., 3, 3)``."""
    q = np.asarray(quat_xyzw, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = np.moveaxis(q, -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        axis=-2,
    )


def matrix_to_quat(rotation: ArrayLike) -> F64:
    """Rotation matrices ``(..., 3, 3)`` → unit quaternions ``(..., 4)`` (x, y, z, w) with w ≥ 0."""
    r = np.asarray(rotation, dtype=np.float64)
    m00, m11, m22 = r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]
    # four candidate magnitudes; take the largest for numerical stability (Shepperd's method)
    cand = np.stack([1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22, 1 + m00 + m11 + m22], -1)
    k = np.argmax(cand, axis=-1)
    s = np.sqrt(np.maximum(np.take_along_axis(cand, k[..., None], -1)[..., 0], 1e-300)) * 2
    d = {
        "21": r[..., 2, 1] - r[..., 1, 2],
        "02": r[..., 0, 2] - r[..., 2, 0],
        "10": r[..., 1, 0] - r[..., 0, 1],
        "01": r[..., 0, 1] + r[..., 1, 0],
        "12": r[..., 1, 2] + r[..., 2, 1],
        "20": r[..., 2, 0] + r[..., 0, 2],
    }
    q = np.stack(
        [
            np.stack([s / 4, d["01"] / s, d["20"] / s, d["21"] / s], -1),
            np.stack([d["01"] / s, s / 4, d["12"] / s, d["02"] / s], -1),
            np.stack([d["20"] / s, d["12"] / s, s / 4, d["10"] / s], -1),
            np.stack([d["21"] / s, d["02"] / s, d["10"] / s, s / 4], -1),
        ],
        -2,
    )
    q = np.take_along_axis(q, k[..., None, None], -2)[..., 0, :]
    q = np.where(q[..., 3:4] < 0, -q, q)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def slerp(q0: ArrayLike, q1: ArrayLike, alpha: ArrayLike) -> F64:
    """Spherical linear interpolation of unit quaternions ``(..., 4)`` at ``alpha`` in [0, 1] (shortest arc)."""
    a = np.asarray(q0, dtype=np.float64)
    b = np.asarray(q1, dtype=np.float64)
    t = np.asarray(alpha, dtype=np.float64)[..., None]
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0, -b, b)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin = np.sin(theta)
    near = sin < 1e-9
    safe = np.where(near, 1.0, sin)
    w0 = np.where(near, 1 - t, np.sin((1 - t) * theta) / safe)
    w1 = np.where(near, t, np.sin(t * theta) / safe)
    q = w0 * a + w1 * b
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def interpolate_transforms(t0: ArrayLike, t1: ArrayLike, alpha: ArrayLike) -> F64:
    """Rigid transforms between ``t0`` and ``t1`` (``(..., 4, 4)``): linear translation, slerped rotation."""
    a = np.asarray(t0, dtype=np.float64)
    b = np.asarray(t1, dtype=np.float64)
    w = np.asarray(alpha, dtype=np.float64)
    q = slerp(matrix_to_quat(a[..., :3, :3]), matrix_to_quat(b[..., :3, :3]), w)
    trans = a[..., :3, 3] + w[..., None] * (b[..., :3, 3] - a[..., :3, 3])
    return make_transform(quat_to_matrix(q), trans)


def look_at(eye: ArrayLike, target: ArrayLike, up: ArrayLike = (0.0, 0.0, 1.0)) -> F64:
    """``world_from_camera`` of a camera at ``eye`` looking at ``target`` with image-up along ``up``.

    The camera's z axis points at the target, x to the right of the image and y down (so ``-y`` is as
    close to ``up`` as possible). The default ``up`` is world +z (HD-EPIC and the synthetic worlds are z-up).
    """
    e = np.asarray(eye, dtype=np.float64)
    z = np.asarray(target, dtype=np.float64) - e
    z = z / np.linalg.norm(z, axis=-1, keepdims=True)
    u = np.broadcast_to(np.asarray(up, dtype=np.float64), z.shape)
    x = np.cross(z, u)
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    if np.any(norm < 1e-9):
        raise ValueError("look_at: the viewing direction is parallel to 'up'; pass another 'up'")
    x = x / norm
    y = np.cross(z, x)
    return make_transform(np.stack([x, y, z], axis=-1), e)


def is_rigid(transform: ArrayLike, tol: float = 1e-4) -> bool:
    """True when ``transform`` (4×4 or a stack) has an orthonormal, right-handed rotation and last row 0 0 0 1."""
    t = np.asarray(transform, dtype=np.float64)
    if t.shape[-2:] != (4, 4) or not np.all(np.isfinite(t)):
        return False
    r = t[..., :3, :3]
    eye = np.einsum("...ji,...jk->...ik", r, r)
    return bool(
        np.allclose(eye, np.eye(3), atol=tol)
        and np.allclose(np.linalg.det(r), 1.0, atol=tol)
        and np.allclose(t[..., 3, :], [0, 0, 0, 1], atol=1e-9)
    )
