"""What surrounds the scene: the inside of a room, or the ground plane and the sky.

A background gives the rasteriser its surfaces as primitives with instance id 0 (`parts`: a room's floor,
walls and ceiling slabs; a ground slab around the camera) and its lights (`lighting`); rays that meet
none of them see the sky (`color` with distance ``inf``). `distance` and `color` also describe the
background analytically, per ray (the reference ray caster in ``bench/`` uses them).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from egoworld.sim.render.looks import Look, pattern_mask
from egoworld.sim.render.primitives import PartsBuilder, PrimitiveSet

F32 = NDArray[np.float32]


class Background(Protocol):
    def distance(self, origin: NDArray, dirs: F32) -> F32:
        """Distances ``(M,)`` to the background along unit rays ``dirs (M, 3)`` from ``origin``."""
        ...

    def color(self, origin: NDArray, dirs: F32, t: F32) -> F32:
        """Shaded RGB in [0, 1] ``(M, 3)`` where those rays meet it (at distances ``t``)."""
        ...

    def parts(self, origin: NDArray, far: float) -> PrimitiveSet:
        """The background's surfaces as primitives (instance id 0) for a camera at ``origin``."""
        ...

    def lighting(self) -> Lighting:
        """The scene's lamp and haze."""
        ...


@dataclass(frozen=True)
class Lighting:
    """Lights beyond the fixed sky, key and fill lights: a point lamp and distance haze (0 = off)."""

    lamp: tuple[float, float, float] = (0.0, 0.0, 2.5)
    lamp_power: float = 0.0
    haze_m: float = 0.0
    haze_color: tuple[float, float, float] = (0.78, 0.86, 0.94)


def _paint(look: Look, p: F32, shade: float | F32) -> F32:
    if look.pattern == "solid":
        rgb = np.broadcast_to(np.asarray(look.color, np.float32) / 255, (len(p), 3))
        return rgb * np.asarray(shade, np.float32).reshape(-1, 1)
    code = np.full(len(p), look.code, np.int8)
    scale = np.full(len(p), look.scale, np.float32)
    m = pattern_mask(code, scale, p, np.full_like(p, 1e6))
    c1 = np.asarray(look.color, np.float32) / 255
    c2 = np.asarray(look.color2, np.float32) / 255
    rgb = np.where(m[:, None], c2, c1)
    return rgb * np.asarray(shade, np.float32).reshape(-1, 1)


@dataclass(frozen=True)
class RoomBackground:
    """The inside of an axis-aligned room ``lo``–``hi`` (z up): floor, four walls and a ceiling."""

    lo: tuple[float, float, float]
    hi: tuple[float, float, float]
    floor: Look
    walls: Look
    ceiling: Look

    def _t_axis(self, origin: NDArray, dirs: F32) -> list[F32]:
        """Distance to the wall each ray meets along x, y and z (inf when parallel)."""
        out = []
        for k in range(3):
            d = np.ascontiguousarray(dirs[:, k])
            lo, hi, o = np.float32(self.lo[k]), np.float32(self.hi[k]), np.float32(origin[k])
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(d > 0, hi - o, lo - o) / d
            out.append(np.where(d == 0, np.float32(np.inf), t))
        return out

    def parts(self, origin: NDArray, far: float) -> PrimitiveSet:
        """Slabs 10 cm thick just outside the room (overlapping at the corners, so no ray escapes)."""
        return _room_slabs(self)

    def _slabs(self) -> PrimitiveSet:
        lo, hi, d = np.asarray(self.lo), np.asarray(self.hi), 0.1
        b = PartsBuilder()
        b.box_min_max(lo - d, (hi[0] + d, hi[1] + d, lo[2]), self.floor)
        b.box_min_max((lo[0] - d, lo[1] - d, hi[2]), hi + d, self.ceiling)
        b.box_min_max(lo - d, (lo[0], hi[1] + d, hi[2] + d), self.walls)
        b.box_min_max((hi[0], lo[1] - d, lo[2] - d), hi + d, self.walls)
        b.box_min_max(lo - d, (hi[0] + d, lo[1], hi[2] + d), self.walls)
        b.box_min_max((lo[0] - d, hi[1], lo[2] - d), hi + d, self.walls)
        return b.build()

    def lighting(self) -> Lighting:
        """A ceiling lamp over the middle of the room."""
        c = (np.asarray(self.lo) + np.asarray(self.hi)) / 2
        return Lighting(lamp=(float(c[0]), float(c[1]), float(self.hi[2]) - 0.3), lamp_power=0.55)

    def distance(self, origin: NDArray, dirs: F32) -> F32:
        tx, ty, tz = self._t_axis(origin, dirs)
        return np.minimum(np.minimum(tx, ty), tz).astype(np.float32)

    def color(self, origin: NDArray, dirs: F32, t: F32) -> F32:
        lo = np.asarray(self.lo, np.float32)
        size = np.asarray(self.hi, np.float32) - lo
        p = (np.asarray(origin, np.float32) - lo) + t[:, None] * dirs  # room coordinates
        eps = np.float32(1e-3)
        floor = np.flatnonzero(p[:, 2] <= eps)
        ceil = np.flatnonzero(p[:, 2] >= size[2] - eps)
        wall = np.flatnonzero((p[:, 2] > eps) & (p[:, 2] < size[2] - eps))
        rgb = np.empty_like(dirs)
        rgb[floor] = _paint(self.floor, p[floor], 0.85)
        rgb[ceil] = _paint(self.ceiling, p[ceil], 0.95)
        pw = p[wall]
        on_x = (pw[:, 0] <= eps) | (pw[:, 0] >= size[0] - eps)
        rgb[wall] = _paint(self.walls, pw, np.where(on_x, np.float32(0.8), np.float32(0.7)))
        return rgb


@functools.lru_cache(maxsize=64)
def _room_slabs(room: RoomBackground) -> PrimitiveSet:
    return room._slabs()


@dataclass(frozen=True)
class SkyBackground:
    """A ground plane at ``ground_z`` (look in world coordinates, fading into haze) under a sky gradient."""

    ground: Look
    ground_z: float = -0.05
    sky_top: tuple[int, int, int] = (90, 140, 215)
    sky_horizon: tuple[int, int, int] = (200, 220, 240)
    haze_m: float = 120.0

    def parts(self, origin: NDArray, far: float) -> PrimitiveSet:
        """A ground slab reaching ``far`` beyond the camera (its centre on a 64 m grid, so the ground's
        pattern stays put while the camera moves)."""
        grid = 64.0
        c = np.floor(np.asarray(origin[:2], float) / grid) * grid
        half = far + grid
        return (
            PartsBuilder()
            .add("box", (c[0], c[1], self.ground_z - 0.5), (half, half, 0.5), self.ground)
            .build()
        )

    def lighting(self) -> Lighting:
        """Daylight haze towards the horizon colour."""
        return Lighting(haze_m=self.haze_m, haze_color=tuple(c / 255 for c in self.sky_horizon))  # type: ignore[arg-type]

    def distance(self, origin: NDArray, dirs: F32) -> F32:
        down = dirs[:, 2] < -1e-6
        t = np.full(len(dirs), np.inf, np.float32)
        t[down] = (np.float32(self.ground_z) - np.float32(origin[2])) / dirs[down, 2]
        return t

    def color(self, origin: NDArray, dirs: F32, t: F32) -> F32:
        o = np.asarray(origin, np.float32)
        down = np.isfinite(t)
        top = np.asarray(self.sky_top, np.float32) / 255
        hor = np.asarray(self.sky_horizon, np.float32) / 255
        w = np.clip(dirs[:, 2:3], 0, 1) ** 0.6
        rgb = hor * (1 - w) + top * w
        if down.any():
            p = o + t[down, None] * dirs[down]
            ground = _paint(self.ground, p, 0.9)
            fog = np.clip(t[down] / self.haze_m, 0, 1)[:, None]
            rgb[down] = ground * (1 - fog) + hor * fog
        return rgb.astype(np.float32)
