"""Fixture geometry: parts in the fixture's own frame, and the door / drawer mechanism that opens it.

A fixture's frame has its origin at the centre of its closed volume, x along its width, **+y out of its
front** (towards the room) and z up; ``yaw_deg`` turns it into the world. Parts are drawn:

* ``when="always"``, only ``"closed"`` (e.g. the solid body of a closed cupboard), or only ``"open"`` (the
  hollow carcass and shelves that show once the door moves), and
* ``moves=True`` when they follow the mechanism (door, handle, drawer front and tray).

`Mechanism` maps an open fraction in [0, 1] to a rigid motion: a hinge (left / right about z at the front
edge, or bottom about x, like an oven door) or a drawer slide along +y. A closed fixture is an opaque solid,
so whatever rests inside it is hidden exactly.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict

from egoworld.geometry.boxes import Box3D
from egoworld.geometry.transforms import make_transform, rotation_about
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder, PrimitiveSet

Vec3 = tuple[float, float, float]
OPEN_TIME_S = 0.6
"""seconds a door or drawer takes to open (and to close)"""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PartSpec(_Frozen):
    """One box / cylinder / ellipsoid in the fixture frame."""

    shape: Literal["box", "cylinder", "ellipsoid"] = "box"
    center: Vec3
    half: Vec3
    look: Look
    when: Literal["always", "closed", "open"] = "always"
    moves: bool = False


class Mechanism(_Frozen):
    """How the moving parts move: ``hinge_left|hinge_right|hinge_bottom`` by up to ``max_deg``, or
    ``drawer`` by up to ``travel`` metres."""

    kind: Literal["hinge_left", "hinge_right", "hinge_bottom", "drawer"]
    max_deg: float = 100.0
    travel: float = 0.0

    def local_motion(self, fraction: float, size: Vec3) -> NDArray[np.float64]:
        """4×4 motion of the moving parts (fixture frame) at open ``fraction``."""
        w, d, h = (s / 2 for s in size)
        f = float(np.clip(fraction, 0.0, 1.0))
        if self.kind == "drawer":
            return make_transform(np.eye(3), (0.0, f * self.travel, 0.0))
        if self.kind == "hinge_left":
            pivot, rot = np.array([-w, d, 0.0]), rotation_about("z", f * self.max_deg)
        elif self.kind == "hinge_right":
            pivot, rot = np.array([w, d, 0.0]), rotation_about("z", -f * self.max_deg)
        else:
            pivot, rot = np.array([0.0, d, -h]), rotation_about("x", -f * self.max_deg)
        return make_transform(rot, pivot - rot @ pivot)


class FixtureSpec(_Frozen):
    """Everything needed to draw one fixture at any open fraction."""

    id: str
    type: str
    label: str
    center: Vec3
    size: Vec3
    yaw_deg: float = 0.0
    parts: tuple[PartSpec, ...] = ()
    mechanism: Mechanism | None = None

    @property
    def openable(self) -> bool:
        return self.mechanism is not None

    def world_from_local(self) -> NDArray[np.float64]:
        return make_transform(rotation_about("z", self.yaw_deg), self.center)

    def box(self) -> Box3D:
        """The closed volume as a world `Box3D` (what the episode's `Fixture` stores)."""
        r = rotation_about("z", self.yaw_deg)
        return Box3D(center=self.center, size=self.size, rotation=tuple(map(tuple, np.round(r, 12).tolist())))

    def motion_world(self, fraction: float) -> NDArray[np.float64]:
        """World motion of the moving parts (identity when closed or not openable)."""
        if self.mechanism is None or fraction <= 0:
            return np.eye(4)
        wl = self.world_from_local()
        return wl @ self.mechanism.local_motion(fraction, self.size) @ np.linalg.inv(wl)

    def primitives(self, fraction: float, inst: int) -> PrimitiveSet:
        """World primitives at open ``fraction`` (0 = closed), all with instance id ``inst``."""
        is_open = self.mechanism is not None and fraction > 0
        still, moving = PartsBuilder(), PartsBuilder()
        for p in self.parts:
            if (p.when == "open" and not is_open) or (p.when == "closed" and is_open):
                continue
            (moving if p.moves and is_open else still).add(p.shape, p.center, p.half, p.look, inst=inst)
        wl = self.world_from_local()
        out = [still.build().transformed(wl)]
        if len(moving):
            motion = self.mechanism.local_motion(fraction, self.size)  # type: ignore[union-attr]
            out.append(moving.build().transformed(wl @ motion))
        return PrimitiveSet.concat(out)


def open_fraction(intervals: list[tuple[float, float]], t: float, ramp_s: float = OPEN_TIME_S) -> float:
    """How far a fixture is open at ``t`` given its open intervals (smooth ramps at both ends)."""
    for a, b in intervals:
        if a <= t <= b:
            r = min(ramp_s, (b - a) / 2) or 1e-9
            x = min((t - a) / r, (b - t) / r, 1.0)
            return float(x * x * (3 - 2 * x))
    return 0.0
