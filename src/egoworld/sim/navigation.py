"""Walking in a room: an occupancy grid, shortest paths (A*), smoothing and a human speed profile.

`NavGrid` marks cells blocked by floor-standing fixtures (grown by the walker's body radius). `find_path`
returns a smoothed polyline between two free points; `walk_timing` turns a polyline into times with a
trapezoidal speed profile (accelerate, cruise at ``speed``, decelerate), so positions are smooth.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Point = tuple[float, float]


class NavGrid:
    """Free / blocked cells over the rectangle ``lo``–``hi`` (metres) with cells of ``cell`` metres."""

    def __init__(self, lo: Point, hi: Point, cell: float = 0.05) -> None:
        self.lo = np.asarray(lo, float)
        self.cell = cell
        self.shape = (int(math.ceil((hi[1] - lo[1]) / cell)), int(math.ceil((hi[0] - lo[0]) / cell)))
        self.blocked = np.zeros(self.shape, dtype=bool)

    def block_rect(self, lo: Point, hi: Point, margin: float) -> None:
        """Block the axis-aligned rectangle grown by ``margin``."""
        r0, c0 = self.cell_of((lo[0] - margin, lo[1] - margin))
        r1, c1 = self.cell_of((hi[0] + margin, hi[1] + margin))
        self.blocked[max(r0, 0) : r1 + 1, max(c0, 0) : c1 + 1] = True

    def block_border(self, margin: float) -> None:
        k = int(math.ceil(margin / self.cell))
        self.blocked[:k, :] = self.blocked[-k:, :] = True
        self.blocked[:, :k] = self.blocked[:, -k:] = True

    def cell_of(self, p: Sequence[float]) -> tuple[int, int]:
        return int((p[1] - self.lo[1]) // self.cell), int((p[0] - self.lo[0]) // self.cell)

    def center_of(self, rc: tuple[int, int]) -> Point:
        return (self.lo[0] + (rc[1] + 0.5) * self.cell, self.lo[1] + (rc[0] + 0.5) * self.cell)

    def inside(self, rc: tuple[int, int]) -> bool:
        return 0 <= rc[0] < self.shape[0] and 0 <= rc[1] < self.shape[1]

    def is_free(self, p: Sequence[float]) -> bool:
        rc = self.cell_of(p)
        return self.inside(rc) and not self.blocked[rc]

    def nearest_free(self, p: Sequence[float]) -> Point:
        """The centre of the free cell closest to ``p``."""
        free = np.argwhere(~self.blocked)
        if len(free) == 0:
            raise ValueError("the room has no free floor")
        r, c = self.cell_of(p)
        k = int(np.argmin((free[:, 0] - r) ** 2 + (free[:, 1] - c) ** 2))
        return self.center_of((int(free[k, 0]), int(free[k, 1])))

    def line_free(self, a: Sequence[float], b: Sequence[float]) -> bool:
        n = max(2, int(math.hypot(b[0] - a[0], b[1] - a[1]) / (self.cell / 2)) + 1)
        for s in np.linspace(0, 1, n):
            if not self.is_free((a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]))):
                return False
        return True


_STEPS = [(-1, 0, 1.0), (1, 0, 1.0), (0, -1, 1.0), (0, 1, 1.0)] + [
    (dr, dc, math.sqrt(2)) for dr in (-1, 1) for dc in (-1, 1)
]


def _astar(grid: NavGrid, start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[int, int]]:
    def h(rc: tuple[int, int]) -> float:
        return math.hypot(rc[0] - goal[0], rc[1] - goal[1])

    heap: list[tuple[float, int, tuple[int, int]]] = [(h(start), 0, start)]
    g = {start: 0.0}
    parent: dict[tuple[int, int], tuple[int, int]] = {}
    counter = 0
    while heap:
        _, _, cur = heapq.heappop(heap)
        if cur == goal:
            path = [cur]
            while cur in parent:
                cur = parent[cur]
                path.append(cur)
            return path[::-1]
        for dr, dc, cost in _STEPS:
            nxt = (cur[0] + dr, cur[1] + dc)
            if not grid.inside(nxt) or grid.blocked[nxt]:
                continue
            ng = g[cur] + cost
            if ng < g.get(nxt, math.inf) - 1e-12:
                g[nxt] = ng
                parent[nxt] = cur
                counter += 1
                heapq.heappush(heap, (ng + h(nxt), counter, nxt))
    raise ValueError(f"no path between cells {start} and {goal}")


def find_path(grid: NavGrid, a: Point, b: Point) -> list[Point]:
    """A smoothed walkable polyline from ``a`` to ``b`` (both snapped to free cells)."""
    a, b = grid.nearest_free(a), grid.nearest_free(b)
    cells = _astar(grid, grid.cell_of(a), grid.cell_of(b))
    pts = [a] + [grid.center_of(c) for c in cells[1:-1]] + [b]
    # string pulling: keep a point only when the straight line past it is blocked
    out = [pts[0]]
    i = 0
    while i < len(pts) - 1:
        j = len(pts) - 1
        while j > i + 1 and not grid.line_free(pts[i], pts[j]):
            j -= 1
        out.append(pts[j])
        i = j
    return _chaikin(out, 2)


def _chaikin(pts: list[Point], rounds: int) -> list[Point]:
    for _ in range(rounds):
        if len(pts) < 3:
            return pts
        new = [pts[0]]
        for p, q in zip(pts[:-1], pts[1:], strict=True):
            new.append((0.75 * p[0] + 0.25 * q[0], 0.75 * p[1] + 0.25 * q[1]))
            new.append((0.25 * p[0] + 0.75 * q[0], 0.25 * p[1] + 0.75 * q[1]))
        new.append(pts[-1])
        pts = [new[0]] + new[2:-2] + [new[-1]] if len(new) > 4 else new
    return pts


def walk_timing(path: Sequence[Point], speed: float, accel: float = 0.8) -> tuple[NDArray, float]:
    """Cumulative distance of each path point and the total walking time (trapezoidal speed profile)."""
    p = np.asarray(path, float)
    seg = np.linalg.norm(np.diff(p, axis=0), axis=1) if len(p) > 1 else np.zeros(0)
    dist = np.concatenate([[0.0], np.cumsum(seg)])
    total = float(dist[-1])
    t_acc = speed / accel
    d_acc = 0.5 * accel * t_acc**2
    if total >= 2 * d_acc:
        return dist, 2 * t_acc + (total - 2 * d_acc) / speed
    return dist, 2 * math.sqrt(total / accel)


def distance_at(elapsed: NDArray, total: float, duration: float, speed: float, accel: float = 0.8) -> NDArray:
    """Distance walked after ``elapsed`` seconds of a walk of ``total`` metres lasting ``duration``."""
    t = np.clip(elapsed, 0.0, duration)
    t_acc = speed / accel
    if total >= speed * t_acc:  # reaches cruise speed
        d_acc = 0.5 * accel * t_acc**2
        cruise_end = duration - t_acc
        out = np.where(
            t < t_acc,
            0.5 * accel * t**2,
            np.where(
                t < cruise_end,
                d_acc + speed * (t - t_acc),
                total - 0.5 * accel * (duration - t) ** 2,
            ),
        )
    else:
        half = duration / 2
        out = np.where(t < half, 0.5 * accel * t**2, total - 0.5 * accel * (duration - t) ** 2)
    return np.clip(out, 0.0, total)


def point_at(path: Sequence[Point], dist: NDArray, d: NDArray) -> NDArray:
    """Points ``(N, 2)`` at distances ``d`` along the polyline (``dist`` from `walk_timing`)."""
    p = np.asarray(path, float)
    if len(p) == 1:
        return np.repeat(p, len(np.atleast_1d(d)), axis=0)
    return np.stack([np.interp(d, dist, p[:, 0]), np.interp(d, dist, p[:, 1])], axis=-1)
