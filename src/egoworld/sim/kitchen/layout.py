"""A procedural kitchen: an L of counter runs with cupboards, drawers, sink, hob over oven, dishwasher and
fridge, wall cupboards, a microwave, an open shelf unit and a table, in a room of random size and style.

`make_kitchen(rng)` returns a `KitchenSpec`: the room, every `FixtureSpec` (parts + mechanism), the
surfaces objects can rest on (`SupportSpec`, world coordinates of the closed state), where the camera
wearer stands to use each fixture, and the floor rectangles that block walking. World frame: metres,
z up, floor at z = 0, the room spans ``[0, W] × [0, D]``.
"""

from __future__ import annotations

from random import Random

import numpy as np
from pydantic import BaseModel, ConfigDict

from egoworld.sim.kitchen.fixture_geometry import FixtureSpec, Mechanism, PartSpec
from egoworld.sim.render.looks import Look

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]
TH = 0.018  # panel thickness
PLINTH, CARCASS_TOP, TOP = 0.10, 0.86, 0.90
RUN_DEPTH, BODY_DEPTH = 0.62, 0.60
WALL_LOW, WALL_HIGH, WALL_DEPTH = 1.45, 2.15, 0.34
ROOM_HEIGHT = 2.6
STAND_GAP = 0.45


class SupportSpec(BaseModel):
    """A horizontal surface objects rest on: world height ``z``, rectangle ``lo``–``hi`` (x, y)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    fixture: str
    z: float
    lo: Vec2
    hi: Vec2
    clearance: float
    inside: bool = False
    """inside an openable fixture (hidden when it is closed)"""
    moves: bool = False
    """rides on the fixture's mechanism (a drawer tray)"""
    relation: str = "on"
    """how a resting object relates to the fixture: 'on' or 'in'"""
    blocked: tuple[tuple[Vec2, Vec2], ...] = ()


class KitchenSpec(BaseModel):
    """Static description of a kitchen (everything but time)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    room_lo: Vec3
    room_hi: Vec3
    floor: Look
    walls: Look
    ceiling: Look
    fixtures: tuple[FixtureSpec, ...]
    supports: tuple[SupportSpec, ...]
    stands: dict[str, tuple[Vec2, ...]]
    """fixture id → floor points where the wearer stands to use it"""
    obstacles: tuple[tuple[Vec2, Vec2], ...]
    """floor rectangles (lo, hi) taken by fixtures"""
    start: Vec2

    def fixture(self, fid: str) -> FixtureSpec:
        for f in self.fixtures:
            if f.id == fid:
                return f
        raise KeyError(fid)


_CABINET_COLOURS = [
    (245, 245, 240),
    (205, 175, 125),
    (125, 92, 62),
    (92, 112, 140),
    (112, 140, 104),
    (72, 72, 78),
]
_TOPS = [
    Look((60, 60, 62), (120, 120, 120), "speckle", 0.01),
    Look((230, 228, 220), (190, 188, 180), "speckle", 0.012),
    Look((170, 120, 70), (140, 95, 55), "vstripes", 0.03),
    Look((40, 40, 45)),
]
FLOORS = [
    Look((210, 205, 195), (170, 165, 155), "checker", 0.4),
    Look((150, 110, 75), (130, 95, 62), "vstripes", 0.18),
    Look((90, 90, 95), (120, 120, 125), "checker", 0.3),
    Look((230, 225, 215), (60, 60, 60), "checker", 0.35),
]
WALLS = [(236, 228, 210), (200, 220, 230), (225, 235, 215), (240, 240, 240), (235, 215, 205)]
STEEL = Look((190, 192, 196), (150, 152, 158), "frame", 0.02)
DARK = Look((30, 30, 34), (80, 80, 86), "frame", 0.025)


def _darker(c: tuple[int, int, int], f: float = 0.8) -> tuple[int, int, int]:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def _p(center: Vec3, half: Vec3, look: Look, **kw: object) -> PartSpec:
    return PartSpec(center=center, half=half, look=look, **kw)  # type: ignore[arg-type]


def cabinet_parts(
    size: Vec3, body: Look, door: Look, handle: Look, hinge: str, shelves: tuple[float, ...] = ()
) -> list[PartSpec]:
    """A cupboard-like box: solid when closed; hollow carcass + shelves (local z) when open; a moving door."""
    w, d, h = (s / 2 for s in size)
    inner = Look(_darker(body.color, 0.92))
    yc = -TH / 2
    parts = [
        _p((0, yc, 0), (w, d - TH / 2, h), body, when="closed"),
        _p((0, -d + TH / 2, 0), (w, TH / 2, h), inner, when="open"),
        _p((-w + TH / 2, yc, 0), (TH / 2, d - TH / 2, h), body, when="open"),
        _p((w - TH / 2, yc, 0), (TH / 2, d - TH / 2, h), body, when="open"),
        _p((0, yc, -h + TH / 2), (w - TH, d - TH / 2, TH / 2), inner, when="open"),
        _p((0, yc, h - TH / 2), (w - TH, d - TH / 2, TH / 2), body, when="open"),
    ]
    parts += [_p((0, yc - 0.01, z), (w - TH, d - TH / 2 - 0.01, TH / 2), inner, when="open") for z in shelves]
    parts.append(_p((0, d - TH / 2, 0), (w - 0.002, TH / 2, h - 0.002), door, moves=True))
    if hinge == "hinge_bottom":
        parts.append(_p((0, d + 0.015, h - 0.06), (min(0.2, w * 0.7), 0.012, 0.01), handle, moves=True))
    else:
        x = w - 0.05 if hinge == "hinge_left" else -w + 0.05
        z = h - 0.12 if h < 0.6 else (0.0 if h > 1.2 else -h + 0.12)
        parts.append(_p((x, d + 0.015, z), (0.01, 0.012, min(0.08, h * 0.3)), handle, moves=True))
    return parts


def _cabinet_supports(fx: FixtureSpec, shelves: tuple[float, ...], relation: str = "in") -> list[SupportSpec]:
    w, d, h = (s / 2 for s in fx.size)
    levels = [-h + TH] + [z + TH / 2 for z in shelves]
    tops = [z - TH / 2 for z in shelves] + [h - TH]
    out = []
    for k, (z, top) in enumerate(zip(levels, tops, strict=True)):
        lo, hi = _rect_world(fx, (-w + TH + 0.01, w - TH - 0.01), (-d + TH + 0.01, d - TH - 0.03))
        out.append(
            SupportSpec(
                id=f"{fx.id}/{k}",
                fixture=fx.id,
                z=float(fx.center[2] + z),
                lo=lo,
                hi=hi,
                clearance=float(top - z - 0.01),
                inside=True,
                relation=relation,
            )
        )
    return out


def _rect_world(fx: FixtureSpec, xs: tuple[float, float], ys: tuple[float, float]) -> tuple[Vec2, Vec2]:
    wl = fx.world_from_local()
    corners = np.array([[x, y, 0.0, 1.0] for x in xs for y in ys]) @ wl.T
    lo, hi = corners[:, :2].min(axis=0), corners[:, :2].max(axis=0)
    return (float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1]))


class Run:
    """A counter run along a wall: ``origin`` (floor point at the wall where the run starts), ``along``
    (unit, in the floor plane) and ``normal`` (out of the wall, into the room)."""

    def __init__(self, origin: Vec2, along: Vec2, normal: Vec2) -> None:
        self.origin = np.asarray(origin, float)
        self.along = np.asarray(along, float)
        self.normal = np.asarray(normal, float)
        self.yaw = float(np.degrees(np.arctan2(-self.normal[0], self.normal[1])))

    def point(self, u: float, depth: float) -> np.ndarray:
        return self.origin + u * self.along + depth * self.normal

    def center(self, u0: float, u1: float, depth: float, z: float) -> Vec3:
        p = self.point((u0 + u1) / 2, depth / 2)
        return (float(p[0]), float(p[1]), float(z))

    def stand(self, u: float, depth: float = RUN_DEPTH, gap: float = STAND_GAP) -> Vec2:
        p = self.point(u, depth + gap)
        return (float(p[0]), float(p[1]))

    def footprint(self, u0: float, u1: float, depth: float) -> tuple[Vec2, Vec2]:
        a, b = self.point(u0, 0.0), self.point(u1, depth)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return (float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1]))


class Builder:
    def __init__(self, rng: Random) -> None:
        self.rng = rng
        self.fixtures: list[FixtureSpec] = []
        self.supports: list[SupportSpec] = []
        self.stands: dict[str, tuple[Vec2, ...]] = {}
        self.obstacles: list[tuple[Vec2, Vec2]] = []
        self.counts: dict[str, int] = {}
        cab = rng.choice(_CABINET_COLOURS)
        self.body = Look(cab)
        self.door = Look(cab, _darker(cab, 0.86), "frame", 0.05)
        self.handle = Look((150, 150, 155)) if sum(cab) < 450 else Look((60, 60, 65))
        self.top = rng.choice(_TOPS)
        self.plinth = Look(_darker(cab, 0.5))

    def new_id(self, kind: str) -> str:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        return f"{kind}.{self.counts[kind]:03d}"

    def add(self, fx: FixtureSpec, stands: tuple[Vec2, ...]) -> FixtureSpec:
        self.fixtures.append(fx)
        self.stands[fx.id] = stands
        return fx

    def surface(
        self,
        fx: FixtureSpec,
        z_local: float,
        xs: tuple[float, float],
        ys: tuple[float, float],
        clearance: float,
        **kw: object,
    ) -> None:
        lo, hi = _rect_world(fx, xs, ys)
        self.supports.append(
            SupportSpec(
                id=f"{fx.id}/{sum(s.fixture == fx.id for s in self.supports)}",
                fixture=fx.id,
                z=float(fx.center[2] + z_local),
                lo=lo,
                hi=hi,
                clearance=clearance,
                **kw,  # type: ignore[arg-type]
            )
        )

    # ---- modules -------------------------------------------------------------------------------
    def cupboard(
        self,
        run: Run,
        u0: float,
        u1: float,
        z0: float,
        z1: float,
        depth: float,
        stand: Vec2,
        shelves_n: int = 1,
    ) -> None:
        size = (u1 - u0, depth, z1 - z0)
        hinge = self.rng.choice(["hinge_left", "hinge_right"])
        h = size[2] / 2
        shelves = tuple(-h + (k + 1) * size[2] / (shelves_n + 1) for k in range(shelves_n))
        fid = self.new_id("cupboard")
        fx = FixtureSpec(
            id=fid,
            type="cupboard",
            label=fid,
            center=run.center(u0, u1, depth, (z0 + z1) / 2),
            size=size,
            yaw_deg=run.yaw,
            parts=tuple(cabinet_parts(size, self.body, self.door, self.handle, hinge, shelves)),
            mechanism=Mechanism(kind=hinge, max_deg=100),  # type: ignore[arg-type]
        )
        self.add(fx, (stand,))
        self.supports += _cabinet_supports(fx, shelves)

    def drawers(self, run: Run, u0: float, u1: float, stand: Vec2, n: int = 3) -> None:
        height = (CARCASS_TOP - PLINTH) / n
        for k in range(n):
            z1 = CARCASS_TOP - k * height
            size = (u1 - u0, BODY_DEPTH, height)
            w, d, h = size[0] / 2, size[1] / 2, size[2] / 2
            travel = 0.7 * size[1]
            tray = Look(_darker(self.body.color, 0.9))
            yb0, yb1 = -d + 0.01, d - TH
            ym, yh = (yb0 + yb1) / 2, (yb1 - yb0) / 2
            wall_h = h - 0.04
            parts = [
                _p((0, d - TH / 2, 0), (w - 0.002, TH / 2, h - 0.003), self.door, moves=True),
                _p((0, d + 0.014, h * 0.45), (min(0.12, w * 0.6), 0.01, 0.008), self.handle, moves=True),
                _p((0, ym, -h + 0.02 + TH / 2), (w - 0.02, yh, TH / 2), tray, moves=True, when="open"),
                _p(
                    (-w + 0.02 + TH / 2, ym, -h + 0.02 + wall_h / 2),
                    (TH / 2, yh, wall_h / 2),
                    tray,
                    moves=True,
                    when="open",
                ),
                _p(
                    (w - 0.02 - TH / 2, ym, -h + 0.02 + wall_h / 2),
                    (TH / 2, yh, wall_h / 2),
                    tray,
                    moves=True,
                    when="open",
                ),
                _p(
                    (0, yb0 + TH / 2, -h + 0.02 + wall_h / 2),
                    (w - 0.02, TH / 2, wall_h / 2),
                    tray,
                    moves=True,
                    when="open",
                ),
            ]
            fid = self.new_id("drawer")
            fx = FixtureSpec(
                id=fid,
                type="drawer",
                label=fid,
                center=run.center(u0, u1, BODY_DEPTH, z1 - height / 2),
                size=size,
                yaw_deg=run.yaw,
                parts=tuple(parts),
                mechanism=Mechanism(kind="drawer", travel=travel),
            )
            self.add(fx, (stand,))
            self.surface(
                fx,
                -h + 0.02 + TH,
                (-w + 0.04, w - 0.04),
                (d - travel + 0.03, d - TH - 0.03),
                clearance=wall_h - 0.01,
                inside=True,
                moves=True,
                relation="in",
            )

    def appliance(self, kind: str, run: Run, u0: float, u1: float, stand: Vec2) -> None:
        """Oven or dishwasher: a door hinged at the bottom and racks inside."""
        size = (u1 - u0, BODY_DEPTH, CARCASS_TOP - PLINTH)
        h = size[2] / 2
        shelves = (-0.05,) if kind == "oven" else (-0.12, 0.12)
        body = Look((70, 70, 75)) if kind == "oven" else Look((200, 202, 206))
        door = DARK if kind == "oven" else STEEL
        fid = self.new_id(kind)
        fx = FixtureSpec(
            id=fid,
            type=kind,
            label=fid,
            center=run.center(u0, u1, BODY_DEPTH, (PLINTH + CARCASS_TOP) / 2),
            size=size,
            yaw_deg=run.yaw,
            parts=tuple(cabinet_parts(size, body, door, Look((210, 210, 215)), "hinge_bottom", shelves)),
            mechanism=Mechanism(kind="hinge_bottom", max_deg=85),
        )
        self.add(fx, (stand,))
        self.supports += _cabinet_supports(fx, shelves)
        del h

    def fridge(self, run: Run, u0: float, u1: float) -> None:
        size = (u1 - u0, 0.66, 1.95)
        hinge = "hinge_left" if self.rng.random() < 0.5 else "hinge_right"
        h = size[2] / 2
        shelves = (-h + 0.45, -h + 0.85, -h + 1.25, -h + 1.6)
        colour = self.rng.choice([(240, 240, 238), (185, 188, 192), (40, 40, 44)])
        door = Look(colour, _darker(colour, 0.85), "frame", 0.03)
        parts = cabinet_parts(size, Look(colour), door, Look((120, 120, 125)), hinge, shelves)
        fid = self.new_id("fridge")
        fx = FixtureSpec(
            id=fid,
            type="fridge",
            label=fid,
            center=run.center(u0, u1, size[1], size[2] / 2),
            size=size,
            yaw_deg=run.yaw,
            parts=tuple(parts),
            mechanism=Mechanism(kind=hinge, max_deg=105),  # type: ignore[arg-type]
        )
        self.add(fx, (run.stand((u0 + u1) / 2, size[1], 0.85),))
        self.supports += _cabinet_supports(fx, shelves)
        self.obstacles.append(run.footprint(u0, u1, size[1]))

    def sink(self, run: Run, u0: float, u1: float, stand: Vec2) -> None:
        w, d = (u1 - u0) / 2, RUN_DEPTH / 2
        z0, z1 = 0.68, TOP
        h = (z1 - z0) / 2
        bw, bd = min(0.25, w - 0.08), 0.19
        steel = Look((196, 198, 204))
        basin = Look((170, 173, 180), (150, 153, 160), "rings", 0.05)
        front = self.door
        parts = [
            _p((-(w + bw) / 2, 0, h - 0.02), ((w - bw) / 2, d, 0.02), self.top),
            _p(((w + bw) / 2, 0, h - 0.02), ((w - bw) / 2, d, 0.02), self.top),
            _p((0, -(d + bd) / 2, h - 0.02), (bw, (d - bd) / 2, 0.02), self.top),
            _p((0, (d + bd) / 2, h - 0.02), (bw, (d - bd) / 2, 0.02), self.top),
            _p((0, 0, -h + 0.0075), (bw, bd, 0.0075), basin),
            _p((-bw - 0.005, 0, 0), (0.005, bd, h), steel),
            _p((bw + 0.005, 0, 0), (0.005, bd, h), steel),
            _p((0, -bd - 0.005, 0), (bw, 0.005, h), steel),
            _p((0, bd + 0.005, 0), (bw, 0.005, h), steel),
            _p((0, -d + 0.07, h + 0.12), (0.014, 0.014, 0.12), steel, shape="cylinder"),
            _p((0, -d + 0.14, h + 0.23), (0.012, 0.08, 0.012), steel),
            # the cabinet under the sink (not openable) and its front apron
            _p((0, -0.01, -h - (z0 - PLINTH) / 2), (w, d - 0.03, (z0 - PLINTH) / 2), front),
            _p((0, d - 0.03, 0 - 0.02), (w, 0.01, h - 0.02), front),
            _p((0, -d + 0.01, 0 - 0.02), (w, 0.01, h - 0.02), Look(_darker(self.body.color, 0.9))),
        ]
        fid = self.new_id("sink")
        fx = FixtureSpec(
            id=fid,
            type="sink",
            label=fid,
            center=run.center(u0, u1, RUN_DEPTH, (z0 + z1) / 2),
            size=(2 * w, 2 * d, z1 - z0),
            yaw_deg=run.yaw,
            parts=tuple(parts),
        )
        self.add(fx, (stand,))
        self.surface(
            fx, -h + 0.015, (-bw + 0.02, bw - 0.02), (-bd + 0.02, bd - 0.02), clearance=0.4, relation="in"
        )

    def hob(self, run: Run, u0: float, u1: float, stand: Vec2) -> None:
        w, d = (u1 - u0) / 2, RUN_DEPTH / 2
        h = 0.023
        glass = Look((20, 20, 24))
        zone = Look((60, 25, 25), (140, 40, 30), "rings", 0.03)
        parts = [
            _p((0, 0, -0.003), (w, d, 0.02), self.top),
            _p((0, -0.01, 0.02), (w - 0.03, d - 0.06, 0.003), glass),
        ]
        for dx in (-0.14, 0.14):
            for dy in (-0.12, 0.12):
                parts.append(_p((dx * w / 0.3, dy, 0.0235), (0.085, 0.085, 0.0015), zone, shape="cylinder"))
        fid = self.new_id("hob")
        fx = FixtureSpec(
            id=fid,
            type="hob",
            label=fid,
            center=run.center(u0, u1, RUN_DEPTH, CARCASS_TOP + h),
            size=(2 * w, 2 * d, 2 * h),
            yaw_deg=run.yaw,
            parts=tuple(parts),
        )
        self.add(fx, (stand,))
        self.surface(fx, h, (-w + 0.05, w - 0.05), (-d + 0.08, d - 0.1), clearance=0.5)

    def counter(
        self, run: Run, u0: float, u1: float, drawer_spans: list[tuple[float, float]], stand: Vec2
    ) -> FixtureSpec:
        w, d = (u1 - u0) / 2, RUN_DEPTH / 2
        zc = (CARCASS_TOP + TOP) / 2
        h = (TOP - CARCASS_TOP) / 2
        mid = (u0 + u1) / 2
        parts = [_p((0, 0, 0), (w, d, h), self.top)]
        # plinth under the whole segment (local x runs opposite to the run's u when the frame is turned)
        parts.append(_p((0, -0.04, -zc + PLINTH / 2), (w, d - 0.06, PLINTH / 2), self.plinth))
        sign = self._local_x_sign(run)
        for a, b in drawer_spans:
            cx = sign * ((a + b) / 2 - mid)
            parts.append(
                _p(
                    (cx, -d + (BODY_DEPTH - TH) / 2, -zc + (PLINTH + CARCASS_TOP) / 2),
                    ((b - a) / 2, (BODY_DEPTH - TH) / 2, (CARCASS_TOP - PLINTH) / 2),
                    self.body,
                )
            )
        fid = self.new_id("counter")
        fx = FixtureSpec(
            id=fid,
            type="counter",
            label=fid,
            center=run.center(u0, u1, RUN_DEPTH, zc),
            size=(2 * w, 2 * d, 2 * h),
            yaw_deg=run.yaw,
            parts=tuple(parts),
        )
        self.add(fx, (stand,))
        self.surface(fx, h, (-w + 0.04, w - 0.04), (-d + 0.05, d - 0.05), clearance=0.5)
        return fx

    @staticmethod
    def _local_x_sign(run: Run) -> float:
        c, s = np.cos(np.radians(run.yaw)), np.sin(np.radians(run.yaw))
        local_x = np.array([c, s])
        return float(np.sign(local_x @ run.along))

    def microwave(self, counter: FixtureSpec, run: Run, u: float, stand: Vec2) -> None:
        size = (0.46, 0.34, 0.28)
        shelves: tuple[float, ...] = ()
        parts = cabinet_parts(size, Look((50, 50, 55)), DARK, Look((200, 200, 200)), "hinge_left", shelves)
        fid = self.new_id("microwave")
        c = run.point(u, 0.03 + size[1] / 2)
        fx = FixtureSpec(
            id=fid,
            type="microwave",
            label=fid,
            center=(float(c[0]), float(c[1]), TOP + size[2] / 2),
            size=size,
            yaw_deg=run.yaw,
            parts=tuple(parts),
            mechanism=Mechanism(kind="hinge_left", max_deg=95),
        )
        self.add(fx, (stand,))
        self.supports += _cabinet_supports(fx, shelves)
        lo, hi = _rect_world(
            fx, (-size[0] / 2 - 0.03, size[0] / 2 + 0.03), (-size[1] / 2 - 0.03, size[1] / 2 + 0.03)
        )
        idx = next(i for i, s in enumerate(self.supports) if s.fixture == counter.id)
        s = self.supports[idx]
        self.supports[idx] = s.model_copy(update={"blocked": (*s.blocked, (lo, hi))})

    def shelf_unit(self, center: Vec2, yaw: float, stand: Vec2) -> None:
        size = (0.9, 0.32, 1.8)
        w, d, h = (s / 2 for s in size)
        wood = Look(self.rng.choice([(180, 140, 95), (235, 235, 230), (60, 60, 64)]))
        boards = (-h + 0.02, -h + 0.45, -h + 0.9, -h + 1.35, h - 0.02)
        parts = [
            _p((-w + TH / 2, 0, 0), (TH / 2, d, h), wood),
            _p((w - TH / 2, 0, 0), (TH / 2, d, h), wood),
            _p((0, -d + 0.005, 0), (w - TH, 0.005, h), Look(_darker(wood.color, 0.85))),
        ] + [_p((0, 0, z), (w - TH, d, 0.02), wood) for z in boards]
        fid = self.new_id("shelf")
        fx = FixtureSpec(
            id=fid,
            type="shelf",
            label=fid,
            center=(center[0], center[1], h),
            size=size,
            yaw_deg=yaw,
            parts=tuple(parts),
        )
        self.add(fx, (stand,))
        for z, top in zip(boards[:-1], boards[1:], strict=True):
            self.surface(fx, z + 0.02, (-w + 0.03, w - 0.03), (-d + 0.03, d - 0.03), clearance=top - z - 0.05)
        lo, hi = _rect_world(fx, (-w, w), (-d, d))
        self.obstacles.append((lo, hi))

    def table(self, center: Vec2, along_x: bool) -> None:
        size = (1.2, 0.8, 0.75) if along_x else (0.8, 1.2, 0.75)
        w, d, h = (s / 2 for s in size)
        wood = Look(
            self.rng.choice([(150, 105, 65), (220, 200, 160), (245, 245, 245), (90, 60, 40)]), pattern="solid"
        )
        parts = [_p((0, 0, h - 0.02), (w, d, 0.02), wood)]
        for sx in (-1, 1):
            for sy in (-1, 1):
                parts.append(
                    _p(
                        (sx * (w - 0.05), sy * (d - 0.05), -0.02),
                        (0.025, 0.025, h - 0.02),
                        Look(_darker(wood.color, 0.7)),
                    )
                )
        fid = self.new_id("table")
        fx = FixtureSpec(
            id=fid, type="table", label=fid, center=(center[0], center[1], h), size=size, parts=tuple(parts)
        )
        stands = (
            (center[0], center[1] - d - STAND_GAP),
            (center[0], center[1] + d + STAND_GAP),
            (center[0] - w - STAND_GAP, center[1]),
            (center[0] + w + STAND_GAP, center[1]),
        )
        self.add(fx, stands)
        self.surface(fx, h, (-w + 0.05, w - 0.05), (-d + 0.05, d - 0.05), clearance=0.6)
        self.obstacles.append(((center[0] - w, center[1] - d), (center[0] + w, center[1] + d)))


def _fill(rng: Random, required: list[tuple[str, float]], length: float) -> list[tuple[str, float]]:
    mods = list(required)
    used = sum(w for _, w in mods)
    while used + 0.5 <= length:
        kind = rng.choice(["cupboard", "drawers", "cupboard"])
        w = rng.choice([0.5, 0.6]) if used + 0.6 <= length else 0.5
        mods.append((kind, w))
        used += w
    rng.shuffle(mods)
    # the dishwasher sits next to the sink
    if any(k == "dishwasher" for k, _ in mods) and any(k == "sink" for k, _ in mods):
        dw = next(m for m in mods if m[0] == "dishwasher")
        mods.remove(dw)
        i = next(i for i, m in enumerate(mods) if m[0] == "sink")
        mods.insert(i + 1, dw)
    return mods


def make_kitchen(rng: Random) -> KitchenSpec:
    """A random kitchen with all eleven fixture types (see the module docstring)."""
    width = round(rng.uniform(4.8, 6.0), 2)
    depth = round(rng.uniform(4.0, 5.0), 2)
    b = Builder(rng)
    run_a = Run((width, depth), (-1.0, 0.0), (0.0, -1.0))  # back wall, from the right corner leftwards
    run_b = Run((0.0, 0.3), (0.0, 1.0), (1.0, 0.0))  # left wall, from the front
    corner = 0.66
    len_a = width - corner - 0.05
    mods_a = _fill(
        rng, [("sink", 0.8), ("dishwasher", 0.6), ("hob", 0.6), ("drawers", 0.6), ("cupboard", 0.6)], len_a
    )
    len_b = depth - 0.3 - RUN_DEPTH - 0.72
    mods_b = _fill(rng, [("drawers", 0.5), ("cupboard", 0.6)], len_b)
    build_run(b, run_a, mods_a, 0.0, wall_cupboards=4)
    b.fridge(run_b, 0.0, 0.7)
    build_run(b, run_b, mods_b, 0.7 + 0.02, wall_cupboards=1)
    # the blind corner of run A: plain worktop and plinth (part of the nearest counter's look, no fixture)
    # open shelves on the right wall, table in the middle
    sy = round(rng.uniform(1.0, depth - RUN_DEPTH - 1.2), 2)
    b.shelf_unit((width - 0.16, sy), 90.0, (width - 0.32 - STAND_GAP, sy))
    free_lo = (RUN_DEPTH + 1.1, 1.05)
    free_hi = (width - 0.32 - 1.1, depth - RUN_DEPTH - 1.05)
    tx = round(rng.uniform(free_lo[0], max(free_lo[0], free_hi[0])), 2)
    ty = round(rng.uniform(free_lo[1], max(free_lo[1], free_hi[1])), 2)
    b.table((tx, ty), along_x=rng.random() < 0.6)
    blind = run_a.footprint(len_a, width, RUN_DEPTH)
    corner_parts = FixtureSpec(
        id="counter.corner",
        type="counter",
        label="counter.corner",
        center=((blind[0][0] + blind[1][0]) / 2, (blind[0][1] + blind[1][1]) / 2, (CARCASS_TOP + TOP) / 2),
        size=(blind[1][0] - blind[0][0], blind[1][1] - blind[0][1], TOP - CARCASS_TOP),
        parts=(
            _p(
                (0, 0, 0),
                ((blind[1][0] - blind[0][0]) / 2, (blind[1][1] - blind[0][1]) / 2, (TOP - CARCASS_TOP) / 2),
                b.top,
            ),
            _p(
                (0, 0, -(CARCASS_TOP + TOP) / 2 + CARCASS_TOP / 2),
                ((blind[1][0] - blind[0][0]) / 2, (blind[1][1] - blind[0][1]) / 2, CARCASS_TOP / 2 - 0.001),
                b.body,
            ),
        ),
    )
    b.fixtures.append(corner_parts)
    b.obstacles.append(blind)
    wall = rng.choice(WALLS)
    return KitchenSpec(
        room_lo=(0.0, 0.0, 0.0),
        room_hi=(width, depth, ROOM_HEIGHT),
        floor=rng.choice(FLOORS),
        walls=Look(wall),
        ceiling=Look((248, 248, 246)),
        fixtures=tuple(b.fixtures),
        supports=tuple(b.supports),
        stands=b.stands,
        obstacles=tuple(b.obstacles),
        start=(round(width / 2, 2), 0.7),
    )


def build_run(b: Builder, run: Run, mods: list[tuple[str, float]], start: float, wall_cupboards: int) -> None:
    u = start
    segment: list[tuple[str, float, float]] = []
    spans: list[tuple[str, float, float]] = []

    def flush() -> None:
        if not segment:
            return
        a, z = segment[0][1], segment[-1][2]
        drawers = [(s, e) for k, s, e in segment if k == "drawers"]
        fx = b.counter(run, a, z, drawers, run.stand((a + z) / 2))
        if z - a >= 1.0 and not any(f.type == "microwave" for f in b.fixtures):
            b.microwave(fx, run, a + 0.3, run.stand(a + 0.3))
        segment.clear()

    for kind, w in mods:
        u0, u1 = u, u + w
        stand = run.stand((u0 + u1) / 2)
        if kind == "cupboard":
            b.cupboard(run, u0, u1, PLINTH, CARCASS_TOP, BODY_DEPTH, stand)
        elif kind == "drawers":
            b.drawers(run, u0, u1, stand)
        elif kind == "dishwasher":
            b.appliance("dishwasher", run, u0, u1, stand)
        if kind in ("cupboard", "drawers", "dishwasher"):
            segment.append((kind, u0, u1))
        elif kind == "sink":
            flush()
            b.sink(run, u0, u1, stand)
        elif kind == "hob":
            flush()
            b.appliance("oven", run, u0, u1, stand)
            b.hob(run, u0, u1, stand)
        spans.append((kind, u0, u1))
        u = u1
    flush()
    b.obstacles.append(run.footprint(start, u, RUN_DEPTH))
    # wall cupboards over some modules (never over the hob)
    candidates = [(u0, u1) for k, u0, u1 in spans if k != "hob"]
    b.rng.shuffle(candidates)
    for u0, u1 in sorted(candidates[:wall_cupboards]):
        b.cupboard(run, u0, u1, WALL_LOW, WALL_HIGH, WALL_DEPTH, run.stand((u0 + u1) / 2), shelves_n=1)
