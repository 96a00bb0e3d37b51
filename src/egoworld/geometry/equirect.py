"""Equirectangular panorama → perspective views, vectorised over whole frames and videos.

A view is a pinhole camera (`PinholeCamera.from_fov`) rotated inside the panorama's camera frame by
``yaw`` (+ turns right), ``pitch`` (+ looks up) and ``roll`` (+ turns the view clockwise as seen by the
viewer): ``pano_from_view = R_y(yaw) · R_x(pitch) · R_z(roll)`` in the camera convention (x right, y down,
z forward). Same angles as py360convert's ``e2p(u_deg=yaw, v_deg=pitch)``.

`PerspectiveSampler` precomputes where each output pixel samples the panorama (bilinear or nearest,
wrapping around in longitude and across the poles) so one sampler converts any number of frames:
``sampler(frames)`` accepts ``(H, W)``, ``(H, W, C)`` or ``(T, H, W, C)`` arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from egoworld.geometry.cameras import EquirectCamera, PinholeCamera
from egoworld.geometry.transforms import rotation_about

FOUR_VIEWS: dict[str, float] = {"front": 0.0, "right": 90.0, "back": 180.0, "left": -90.0}
"""Yaw of the four VSI-Super-Wild perspective views."""


def view_rotation(yaw_deg: float, pitch_deg: float = 0.0, roll_deg: float = 0.0) -> NDArray[np.float64]:
    """``pano_from_view`` rotation (3×3) of a perspective view inside the panorama camera frame."""
    return rotation_about("y", yaw_deg) @ rotation_about("x", pitch_deg) @ rotation_about("z", roll_deg)


def view_camera(out_hw: tuple[int, int], fov_deg: float | tuple[float, float]) -> PinholeCamera:
    """The pinhole camera of a view ``out_hw = (height, width)`` with FOV (horizontal, vertical) degrees."""
    h_fov, v_fov = (fov_deg, fov_deg) if np.isscalar(fov_deg) else fov_deg
    return PinholeCamera.from_fov(out_hw[1], out_hw[0], float(h_fov), float(v_fov))


@dataclass(frozen=True)
class PerspectiveSampler:
    """Precomputed sampling of one panorama size into one perspective view."""

    pano_hw: tuple[int, int]
    rows: NDArray[np.int64]  # (k, h, w): k = 4 taps (bilinear) or 1 (nearest)
    cols: NDArray[np.int64]
    weights: NDArray[np.float32]

    def __call__(self, frames: ArrayLike) -> NDArray:
        """Sample ``(H, W)``, ``(H, W, C)`` or ``(T, H, W, C)`` panoramas; keeps the dtype (ints are rounded)."""
        f = np.asarray(frames)
        squeeze_c = f.ndim == 2
        if squeeze_c:
            f = f[..., None]
        if f.shape[-3:-1] != self.pano_hw:
            raise ValueError(f"panorama is {f.shape[-3:-1]}, the sampler was built for {self.pano_hw}")
        flat = f.reshape(*f.shape[:-3], -1, f.shape[-1])  # gather from one pixel axis: 4× faster than 2-D
        index, weights = self._flat
        acc = np.take(flat, index[0], axis=-2).astype(np.float32)
        acc *= weights[0]
        for k in range(1, len(index)):
            tap = np.take(flat, index[k], axis=-2).astype(np.float32)
            tap *= weights[k]
            acc += tap
        if np.issubdtype(f.dtype, np.integer):
            info = np.iinfo(f.dtype)
            np.rint(acc, out=acc)
            np.clip(acc, info.min, info.max, out=acc)
        out = acc.astype(f.dtype).reshape(*f.shape[:-3], *self.rows.shape[1:], f.shape[-1])
        return out[..., 0] if squeeze_c else out

    @cached_property
    def _flat(self) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
        """Per tap: the flat panorama pixel index of each output pixel, and its weight (k, h·w, 1)."""
        k = self.rows.shape[0]
        index = (self.rows * self.pano_hw[1] + self.cols).reshape(k, -1).astype(np.intp)
        return index, self.weights.reshape(k, -1)[..., None]


def _wrap(rows: NDArray[np.int64], cols: NDArray[np.int64], h: int, w: int) -> tuple[NDArray, NDArray]:
    """Rows past a pole continue down the other side (longitude + 180°); columns wrap around."""
    over_top = rows < 0
    over_bottom = rows >= h
    rows = np.where(over_top, -1 - rows, np.where(over_bottom, 2 * h - 1 - rows, rows))
    cols = np.where(over_top | over_bottom, cols + w // 2, cols)
    return np.clip(rows, 0, h - 1), np.mod(cols, w)


def perspective_sampler(
    pano_hw: tuple[int, int],
    out_hw: tuple[int, int],
    *,
    yaw_deg: float,
    pitch_deg: float = 0.0,
    fov_deg: float | tuple[float, float] = 90.0,
    roll_deg: float = 0.0,
    mode: Literal["bilinear", "nearest"] = "bilinear",
) -> PerspectiveSampler:
    """Build the sampler for a view at ``yaw/pitch/roll`` with ``fov_deg`` (h, v) and size ``out_hw``."""
    h, w = pano_hw
    view = view_camera(out_hw, fov_deg)
    jj, ii = np.meshgrid(np.arange(out_hw[1], dtype=np.float64), np.arange(out_hw[0], dtype=np.float64))
    rays = view.unproject(np.stack([jj, ii], axis=-1)) @ view_rotation(yaw_deg, pitch_deg, roll_deg).T
    uv, _ = EquirectCamera(width=2 * h, height=h).project(rays)
    u = uv[..., 0] * (w / (2 * h))  # allow panoramas that are not exactly 2:1
    v = uv[..., 1]
    if mode == "nearest":
        r, c = _wrap(np.rint(v).astype(np.int64), np.rint(u).astype(np.int64), h, w)
        return PerspectiveSampler(pano_hw, r[None], c[None], np.ones((1, *out_hw), np.float32))
    u0, v0 = np.floor(u), np.floor(v)
    fu, fv = u - u0, v - v0
    rows, cols, weights = [], [], []
    for dr, dc, wt in (
        (0, 0, (1 - fv) * (1 - fu)),
        (0, 1, (1 - fv) * fu),
        (1, 0, fv * (1 - fu)),
        (1, 1, fv * fu),
    ):
        r, c = _wrap(v0.astype(np.int64) + dr, u0.astype(np.int64) + dc, h, w)
        rows.append(r)
        cols.append(c)
        weights.append(wt.astype(np.float32))
    return PerspectiveSampler(pano_hw, np.stack(rows), np.stack(cols), np.stack(weights))


def equirect_to_perspective(
    pano: ArrayLike,
    *,
    yaw_deg: float,
    pitch_deg: float = 0.0,
    fov_deg: float | tuple[float, float] = 90.0,
    out_hw: tuple[int, int] = (512, 512),
    roll_deg: float = 0.0,
    mode: Literal["bilinear", "nearest"] = "bilinear",
) -> NDArray:
    """One perspective view of a panorama ``(H, W[, C])`` or of every frame of ``(T, H, W, C)``."""
    p = np.asarray(pano)
    hw = p.shape[:2] if p.ndim <= 3 else p.shape[1:3]
    sampler = perspective_sampler(
        (int(hw[0]), int(hw[1])),
        out_hw,
        yaw_deg=yaw_deg,
        pitch_deg=pitch_deg,
        fov_deg=fov_deg,
        roll_deg=roll_deg,
        mode=mode,
    )
    return sampler(p)
