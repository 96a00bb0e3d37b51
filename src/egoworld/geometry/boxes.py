"""Oriented 3D boxes (fixtures, object extents): containment, corners, distances.

A `Box3D` is ``center`` (world, metres), full edge lengths ``size`` along the box's own axes, and
``rotation`` = world_from_box (3×3, columns are the box axes in the world). Axis-aligned boxes have the
identity rotation (`Box3D.from_min_max`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, ConfigDict, Field, field_validator

F64 = NDArray[np.float64]
Vec3 = tuple[float, float, float]
Mat3 = tuple[Vec3, Vec3, Vec3]
IDENTITY: Mat3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


class Box3D(BaseModel):
    """An oriented box; vectorised queries take points ``(..., 3)`` in the same (world) frame."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    center: Vec3
    size: Vec3 = Field(description="full edge lengths along the box axes (x, y, z), metres")
    rotation: Mat3 = Field(default=IDENTITY, description="world_from_box rotation (rows of a 3×3 matrix)")

    @field_validator("size")
    @classmethod
    def _size_ok(cls, v: Vec3) -> Vec3:
        if any(not np.isfinite(s) or s < 0 for s in v):
            raise ValueError(f"box sizes must be finite and ≥ 0, got {v}")
        return v

    @field_validator("rotation")
    @classmethod
    def _rotation_ok(cls, v: Mat3) -> Mat3:
        r = np.asarray(v, dtype=np.float64)
        if not (np.allclose(r.T @ r, np.eye(3), atol=1e-4) and abs(np.linalg.det(r) - 1) < 1e-4):
            raise ValueError("rotation must be a proper rotation matrix (orthonormal, determinant +1)")
        return v

    @classmethod
    def from_min_max(cls, lo: ArrayLike, hi: ArrayLike) -> Box3D:
        """An axis-aligned box from its minimum and maximum corners."""
        a = np.asarray(lo, dtype=np.float64)
        b = np.asarray(hi, dtype=np.float64)
        return cls(center=tuple(((a + b) / 2).tolist()), size=tuple((b - a).tolist()))

    @property
    def matrix(self) -> F64:
        """``rotation`` as a 3×3 array."""
        return np.asarray(self.rotation, dtype=np.float64)

    def to_local(self, points: ArrayLike) -> F64:
        """Points in box coordinates (origin at the centre, axes along the edges)."""
        p = np.asarray(points, dtype=np.float64) - np.asarray(self.center)
        return p @ self.matrix  # row-vector form of R^T p

    def contains(self, points: ArrayLike, margin: float = 0.0) -> NDArray[np.bool_]:
        """Whether points lie inside the box grown by ``margin`` metres on every side."""
        half = np.asarray(self.size) / 2 + margin
        return np.all(np.abs(self.to_local(points)) <= half, axis=-1)

    def distance(self, points: ArrayLike) -> F64:
        """Euclidean distance from points to the box (0 inside)."""
        half = np.asarray(self.size) / 2
        outside = np.maximum(np.abs(self.to_local(points)) - half, 0.0)
        return np.linalg.norm(outside, axis=-1)

    def corners(self) -> F64:
        """The 8 corners ``(8, 3)`` in the world frame (x fastest, then y, then z)."""
        signs = np.array(
            [[sx, sy, sz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)], dtype=np.float64
        )
        local = signs * np.asarray(self.size) / 2
        return local @ self.matrix.T + np.asarray(self.center)

    def bounds(self) -> tuple[F64, F64]:
        """The world-axis-aligned bounding box ``(min, max)`` of the (possibly rotated) box."""
        c = self.corners()
        return c.min(axis=0), c.max(axis=0)


def ray_box_entry(origins: ArrayLike, directions: ArrayLike, box: Box3D) -> F64:
    """Parameter ``s ≥ 0`` at which ``origin + s·direction`` enters ``box`` (0 if the origin is inside,
    inf if the ray misses): the slab method in the box's own frame, vectorised over rays ``(..., 3)``.
    With unit directions ``s`` is a distance in metres; with segments ``b - a`` it is a fraction."""
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
