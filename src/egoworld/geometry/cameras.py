"""Camera models: pinhole, fisheye (equidistant, optionally with Aria radial terms) and equirectangular.

Every model is a frozen pydantic object (so an episode can save it in JSON, tagged by ``kind``) with the
same vectorised interface over points ``(..., 3)`` in the camera frame (x right, y down, z forward):

* ``project(points) -> (uv, ok)``: pixel coordinates ``(..., 2)`` and whether the point lies in the model's
  domain (pinhole: in front of the camera; fisheye: within ``max_angle_deg`` of the optical axis;
  equirectangular: anywhere but the centre). ``uv`` is NaN where ``ok`` is False.
* ``in_image(uv)``: inside the image (and, for a fisheye, inside the valid circle).
* ``visible(points)``: ``ok & in_image(uv)`` — the frustum test.
* ``unproject(uv, distance=None)``: unit rays ``(..., 3)``; with ``distance`` (metres along the ray,
  i.e. range) the 3D points.
* ``scaled(factor)``: the same camera for an image resized by ``factor``.

Pixel convention (OpenCV / Project Aria): integer coordinates are pixel centres; the image spans
``[-0.5, width - 0.5] × [-0.5, height - 0.5]``; ``u`` grows to the right, ``v`` downwards.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, ConfigDict, Field, model_validator

from egoworld.core.numbers import Finite, PositiveCount, PositiveFloat

F64 = NDArray[np.float64]
BoolArr = NDArray[np.bool_]


class _Camera(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    width: PositiveCount = Field(description="image width in pixels")
    height: PositiveCount = Field(description="image height in pixels")

    def project(self, points: ArrayLike) -> tuple[F64, BoolArr]:  # pragma: no cover - abstract
        raise NotImplementedError

    def unproject(self, uv: ArrayLike, distance: ArrayLike | None = None) -> F64:  # pragma: no cover
        raise NotImplementedError

    def in_image(self, uv: ArrayLike) -> BoolArr:
        """Whether pixel coordinates ``(..., 2)`` fall inside the image rectangle."""
        p = np.asarray(uv, dtype=np.float64)
        u, v = p[..., 0], p[..., 1]
        with np.errstate(invalid="ignore"):
            return (u >= -0.5) & (u <= self.width - 0.5) & (v >= -0.5) & (v <= self.height - 0.5)

    def visible(self, points: ArrayLike) -> BoolArr:
        """Frustum test: the point projects (in front / within the field of view) inside the image."""
        uv, ok = self.project(points)
        return ok & self.in_image(uv)


def _rays_with_distance(rays: F64, distance: ArrayLike | None) -> F64:
    if distance is None:
        return rays
    return rays * np.asarray(distance, dtype=np.float64)[..., None]


class PinholeCamera(_Camera):
    """Ideal pinhole camera (no distortion): ``u = fx·x/z + cx``, ``v = fy·y/z + cy``."""

    kind: Literal["pinhole"] = "pinhole"
    fx: PositiveFloat
    fy: PositiveFloat
    cx: Finite
    cy: Finite
    near: float = Field(default=1e-6, gt=0, description="points with z below this are not projected")

    @classmethod
    def from_fov(
        cls, width: int, height: int, hfov_deg: float, vfov_deg: float | None = None
    ) -> PinholeCamera:
        """A centred camera whose image spans ``hfov_deg`` (and ``vfov_deg``, default: square pixels)."""
        fx = width / 2 / math.tan(math.radians(hfov_deg) / 2)
        fy = fx if vfov_deg is None else height / 2 / math.tan(math.radians(vfov_deg) / 2)
        return cls(width=width, height=height, fx=fx, fy=fy, cx=(width - 1) / 2, cy=(height - 1) / 2)

    def project(self, points: ArrayLike) -> tuple[F64, BoolArr]:
        p = np.asarray(points, dtype=np.float64)
        z = p[..., 2]
        ok = z >= self.near
        zs = np.where(ok, z, np.nan)
        uv = np.stack([self.fx * p[..., 0] / zs + self.cx, self.fy * p[..., 1] / zs + self.cy], axis=-1)
        return uv, ok

    def unproject(self, uv: ArrayLike, distance: ArrayLike | None = None) -> F64:
        q = np.asarray(uv, dtype=np.float64)
        d = np.stack(
            [(q[..., 0] - self.cx) / self.fx, (q[..., 1] - self.cy) / self.fy, np.ones(q.shape[:-1])], -1
        )
        return _rays_with_distance(d / np.linalg.norm(d, axis=-1, keepdims=True), distance)

    def unproject_z(self, uv: ArrayLike, z: ArrayLike) -> F64:
        """Points at depth ``z`` (distance along the optical axis, as in a z-buffer) behind pixels ``uv``."""
        q = np.asarray(uv, dtype=np.float64)
        zz = np.asarray(z, dtype=np.float64)
        return np.stack(
            [(q[..., 0] - self.cx) / self.fx * zz, (q[..., 1] - self.cy) / self.fy * zz, zz + 0 * q[..., 0]],
            -1,
        )

    def scaled(self, factor: float) -> PinholeCamera:
        w, h = round(self.width * factor), round(self.height * factor)
        return self.model_copy(
            update=dict(
                width=w,
                height=h,
                fx=self.fx * factor,
                fy=self.fy * factor,
                cx=(self.cx + 0.5) * factor - 0.5,
                cy=(self.cy + 0.5) * factor - 0.5,
            )
        )


class FisheyeCamera(_Camera):
    """Fisheye camera: equidistant projection ``r = f·θ`` with optional odd radial terms and a valid circle.

    ``θ`` is the angle from the optical axis; the image radius is ``r = f·(θ + k0·θ³ + k1·θ⁵ + …)`` — with
    ``radial=()`` the pure equidistant model. With six radial terms, ``tangential = (p0, p1)`` and
    ``thin_prism = (s0, s1, s2, s3)`` it is Project Aria's full FISHEYE624 model: on the radially
    distorted normalised point ``u`` (``|u| = θ_d``, ``r² = |u|²``) it adds ``2(u·p)·u + r²·p`` and
    ``(s0·r² + s1·r⁴, s2·r² + s3·r⁴)`` before the focal length and principal point. Pixels farther than
    ``valid_radius`` from ``valid_center`` (default: the image centre) lie outside the lens' circle.
    """

    kind: Literal["fisheye"] = "fisheye"
    fx: PositiveFloat
    fy: PositiveFloat
    cx: Finite
    cy: Finite
    radial: tuple[Finite, ...] = Field(default=(), max_length=6)
    tangential: tuple[Finite, Finite] = (0.0, 0.0)
    thin_prism: tuple[Finite, Finite, Finite, Finite] = (0.0, 0.0, 0.0, 0.0)
    valid_radius: PositiveFloat | None = Field(default=None, description="radius of the image circle, px")
    valid_center: tuple[Finite, Finite] | None = Field(default=None, description="default: image centre")
    max_angle_deg: float = Field(default=90.0, gt=0, le=180, description="largest θ that projects")

    @classmethod
    def equidistant(
        cls, size: int, fov_deg: float, *, circle: bool = True, max_angle_deg: float | None = None
    ) -> FisheyeCamera:
        """A square, centred equidistant fisheye whose image circle (diameter ``size``) spans ``fov_deg``."""
        half = math.radians(fov_deg) / 2
        f = (size / 2) / half
        return cls(
            width=size,
            height=size,
            fx=f,
            fy=f,
            cx=(size - 1) / 2,
            cy=(size - 1) / 2,
            valid_radius=size / 2 if circle else None,
            max_angle_deg=max_angle_deg if max_angle_deg is not None else min(fov_deg / 2, 180.0),
        )

    def _distort(self, theta: F64) -> F64:
        out = theta.copy()
        t2 = theta * theta
        power = theta * t2
        for k in self.radial:
            out = out + k * power
            power = power * t2
        return out

    def _distort_derivative(self, theta: F64) -> F64:
        out = np.ones_like(theta)
        t2 = theta * theta
        power = t2
        for i, k in enumerate(self.radial):
            out = out + (2 * i + 3) * k * power
            power = power * t2
        return out

    def project(self, points: ArrayLike) -> tuple[F64, BoolArr]:
        p = np.asarray(points, dtype=np.float64)
        x, y, z = p[..., 0], p[..., 1], p[..., 2]
        rho = np.hypot(x, y)
        theta = np.arctan2(rho, z)
        ok = (theta <= math.radians(self.max_angle_deg)) & ((rho > 0) | (z > 0))
        r = self._distort(theta)
        safe = np.where(rho > 0, rho, 1.0)
        mx, my = self._tangential_prism(
            r * np.where(rho > 0, x / safe, 0.0), r * np.where(rho > 0, y / safe, 0.0)
        )
        uv = np.stack([self.fx * mx + self.cx, self.fy * my + self.cy], axis=-1)
        return np.where(ok[..., None], uv, np.nan), ok

    @property
    def _has_tangential_prism(self) -> bool:
        return any(self.tangential) or any(self.thin_prism)

    def _tangential_prism(self, ux: F64, uy: F64) -> tuple[F64, F64]:
        """FISHEYE624's tangential and thin-prism terms on radially distorted normalised coordinates."""
        if not self._has_tangential_prism:
            return ux, uy
        p0, p1 = self.tangential
        s0, s1, s2, s3 = self.thin_prism
        r2 = ux * ux + uy * uy
        t = 2.0 * (ux * p0 + uy * p1)
        return ux + t * ux + r2 * p0 + s0 * r2 + s1 * r2 * r2, uy + t * uy + r2 * p1 + s2 * r2 + s3 * r2 * r2

    def _undo_tangential_prism(self, mx: F64, my: F64) -> tuple[F64, F64]:
        """Invert `_tangential_prism` by fixed-point iteration (the terms are small: it contracts fast)."""
        if not self._has_tangential_prism:
            return mx, my
        ux, uy = mx.copy(), my.copy()
        for _ in range(30):
            dx, dy = self._tangential_prism(ux, uy)
            ux, uy = ux - (dx - mx), uy - (dy - my)
        return ux, uy

    def in_image(self, uv: ArrayLike) -> BoolArr:
        inside = super().in_image(uv)
        if self.valid_radius is None:
            return inside
        q = np.asarray(uv, dtype=np.float64)
        c = self.valid_center or ((self.width - 1) / 2, (self.height - 1) / 2)
        with np.errstate(invalid="ignore"):
            return inside & (np.hypot(q[..., 0] - c[0], q[..., 1] - c[1]) <= self.valid_radius)

    def unproject(self, uv: ArrayLike, distance: ArrayLike | None = None) -> F64:
        q = np.asarray(uv, dtype=np.float64)
        mx, my = self._undo_tangential_prism((q[..., 0] - self.cx) / self.fx, (q[..., 1] - self.cy) / self.fy)
        rd = np.hypot(mx, my)
        theta = rd.copy()
        if self.radial:  # Newton's method on r(θ) = rd, started from the equidistant solution
            for _ in range(20):
                theta = theta - (self._distort(theta) - rd) / self._distort_derivative(theta)
                theta = np.clip(theta, 0.0, math.pi)
        safe = np.where(rd > 0, rd, 1.0)
        s = np.sin(theta)
        rays = np.stack(
            [np.where(rd > 0, s * mx / safe, 0.0), np.where(rd > 0, s * my / safe, 0.0), np.cos(theta)], -1
        )
        return _rays_with_distance(rays, distance)

    def scaled(self, factor: float) -> FisheyeCamera:
        c = self.valid_center
        return self.model_copy(
            update=dict(
                width=round(self.width * factor),
                height=round(self.height * factor),
                fx=self.fx * factor,
                fy=self.fy * factor,
                cx=(self.cx + 0.5) * factor - 0.5,
                cy=(self.cy + 0.5) * factor - 0.5,
                valid_radius=None if self.valid_radius is None else self.valid_radius * factor,
                valid_center=None
                if c is None
                else ((c[0] + 0.5) * factor - 0.5, (c[1] + 0.5) * factor - 0.5),
            )
        )


class EquirectCamera(_Camera):
    """Equirectangular (360°) camera: longitude ``atan2(x, z)`` (0 ahead, + to the right) across the width,
    latitude ``atan2(-y, √(x²+z²))`` (+ up) down the height; ``u = (lon/2π + ½)·W − ½``,
    ``v = (½ − lat/π)·H − ½`` (the py360convert convention)."""

    kind: Literal["equirect"] = "equirect"

    @model_validator(mode="after")
    def _two_to_one(self) -> EquirectCamera:
        if self.width != 2 * self.height:
            raise ValueError(
                f"an equirectangular image is twice as wide as high, got {self.width}×{self.height}"
            )
        return self

    def project(self, points: ArrayLike) -> tuple[F64, BoolArr]:
        p = np.asarray(points, dtype=np.float64)
        x, y, z = p[..., 0], p[..., 1], p[..., 2]
        lon = np.arctan2(x, z)
        lat = np.arctan2(-y, np.hypot(x, z))
        ok = (x != 0) | (y != 0) | (z != 0)
        uv = np.stack(
            [(lon / (2 * np.pi) + 0.5) * self.width - 0.5, (0.5 - lat / np.pi) * self.height - 0.5], -1
        )
        return np.where(ok[..., None], uv, np.nan), ok

    def unproject(self, uv: ArrayLike, distance: ArrayLike | None = None) -> F64:
        q = np.asarray(uv, dtype=np.float64)
        lon = ((q[..., 0] + 0.5) / self.width - 0.5) * 2 * np.pi
        lat = (0.5 - (q[..., 1] + 0.5) / self.height) * np.pi
        rays = np.stack([np.cos(lat) * np.sin(lon), -np.sin(lat), np.cos(lat) * np.cos(lon)], -1)
        return _rays_with_distance(rays, distance)

    def scaled(self, factor: float) -> EquirectCamera:
        h = round(self.height * factor)
        return self.model_copy(update=dict(width=2 * h, height=h))


CameraModel = Annotated[PinholeCamera | FisheyeCamera | EquirectCamera, Field(discriminator="kind")]
"""Any camera model; in JSON tagged by ``"kind": "pinhole" | "fisheye" | "equirect"``."""
