"""Static dressing of a synthetic kitchen: tiled splashbacks behind worktops, a rail of hanging utensils,
skirting boards, a wall clock and a ceiling lamp. All of it carries instance id 0 (part of the room), never
touches the space where objects rest or the wearer walks, and is drawn from ``seeded_rng(episode id)``.
"""

from __future__ import annotations

import numpy as np

from egoworld.core.folders.hashing import seeded_rng
from egoworld.sim.kitchen.layout import KitchenSpec
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder, PrimitiveSet

WORKTOPS = ("counter", "sink", "hob")
TILES = (
    Look((235, 235, 230), (200, 200, 196), "checker", 0.075),
    Look((120, 160, 170), (100, 140, 150), "checker", 0.1),
    Look((210, 190, 160), (185, 165, 135), "checker", 0.05),
    Look((60, 62, 70), (90, 92, 100), "checker", 0.08),
)
UTENSILS = (Look((190, 192, 196)), Look((60, 60, 64)), Look((170, 120, 70)), Look((200, 60, 50)))


def _against_wall(spec: KitchenSpec, lo: np.ndarray, hi: np.ndarray) -> tuple[int, int] | None:
    """(axis, side) of the room wall the box stands against (side 0: the low wall), or None."""
    room_lo, room_hi = np.asarray(spec.room_lo), np.asarray(spec.room_hi)
    best = None
    for axis in (0, 1):
        for side, gap in ((0, lo[axis] - room_lo[axis]), (1, room_hi[axis] - hi[axis])):
            if gap < 0.12 and (best is None or gap < best[0]):
                best = (gap, axis, side)
    return None if best is None else (best[1], best[2])


def dressing(spec: KitchenSpec, episode_id: str) -> PrimitiveSet:
    """The dressing parts of kitchen ``spec`` (world frame, instance id 0)."""
    rng = seeded_rng(0, episode_id, "dressing")
    tiles = TILES[rng.randrange(len(TILES))]
    room_lo, room_hi = np.asarray(spec.room_lo), np.asarray(spec.room_hi)
    b = PartsBuilder()
    rail_done = False
    for f in spec.fixtures:
        if f.type not in WORKTOPS:
            continue
        corners = f.box().corners()
        lo, hi = corners.min(0), corners.max(0)
        wall = _against_wall(spec, lo, hi)
        if wall is None:
            continue
        axis, side = wall
        other = 1 - axis
        plane = room_lo[axis] if side == 0 else room_hi[axis]
        sign = 1.0 if side == 0 else -1.0
        top = hi[2]
        centre = np.zeros(3)
        centre[axis] = plane + sign * 0.006
        centre[other] = (lo[other] + hi[other]) / 2
        centre[2] = top + 0.25
        h = np.zeros(3)
        h[axis], h[other], h[2] = 0.006, (hi[other] - lo[other]) / 2, 0.25
        b.add("box", centre, h, tiles)
        if not rail_done and f.type == "counter" and rng.random() < 0.8:
            rail_done = True
            rc = centre.copy()
            rc[axis] = plane + sign * 0.03
            rc[2] = top + 0.42
            rh = np.zeros(3)
            rh[axis], rh[other], rh[2] = 0.008, min(h[other], 0.4), 0.008
            b.add("box", rc, rh, Look((180, 182, 186)))
            n = rng.randint(3, 5)
            for k in range(n):
                uc = rc.copy()
                uc[other] += (k - (n - 1) / 2) * (2 * rh[other] / max(n, 2))
                length = rng.uniform(0.12, 0.22)
                uc[2] -= length / 2 + 0.01
                uc[axis] += sign * 0.012
                b.add("cylinder", uc, (0.006, 0.006, length / 2), UTENSILS[rng.randrange(len(UTENSILS))])
                head = uc.copy()
                head[2] -= length / 2 + 0.025
                b.add(
                    "ellipsoid",
                    head,
                    (0.03, 0.012, 0.03) if axis == 1 else (0.012, 0.03, 0.03),
                    UTENSILS[rng.randrange(len(UTENSILS))],
                )
    skirting = Look((90, 84, 78))
    for axis in (0, 1):
        other = 1 - axis
        for plane, sign in ((room_lo[axis], 1.0), (room_hi[axis], -1.0)):
            centre, h = np.zeros(3), np.zeros(3)
            centre[axis], centre[other], centre[2] = (
                plane + sign * 0.008,
                (room_lo[other] + room_hi[other]) / 2,
                0.05,
            )
            h[axis], h[other], h[2] = 0.008, (room_hi[other] - room_lo[other]) / 2, 0.05
            b.add("box", centre, h, skirting)
    clock_wall = rng.randrange(4)
    axis, side = clock_wall % 2, clock_wall // 2
    other = 1 - axis
    centre = np.zeros(3)
    centre[axis] = (room_lo[axis] + 0.02) if side == 0 else (room_hi[axis] - 0.02)
    centre[other] = rng.uniform(room_lo[other] + 0.6, room_hi[other] - 0.6)
    centre[2] = min(room_hi[2] - 0.35, 2.15)
    face = np.eye(3)[:, [other, 2, axis]]  # the clock's axis (part z) along the wall's normal
    if np.linalg.det(face) < 0:
        face[:, 0] *= -1
    b.add("cylinder", centre, (0.15, 0.15, 0.02), Look((245, 245, 240), (30, 30, 30), "rings", 0.1), rot=face)
    mid = (room_lo + room_hi) / 2
    b.add("cylinder", (mid[0], mid[1], room_hi[2] - 0.05), (0.2, 0.2, 0.05), Look((250, 248, 235)))
    return b.build()
