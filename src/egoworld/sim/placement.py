"""Where objects rest: free spots on support surfaces (no overlaps, inside the surface, room above)."""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

import numpy as np

from egoworld.sim.kitchen.layout import SupportSpec

GAP = 0.01
STEP = 0.04


@dataclass
class Placements:
    """Which object rests where: object id → (support id, x, y); plus object footprints."""

    radius: dict[str, float]
    height: dict[str, float]
    where: dict[str, tuple[str, float, float]] = field(default_factory=dict)

    def on_support(self, support_id: str) -> list[tuple[str, float, float]]:
        return [(o, x, y) for o, (s, x, y) in self.where.items() if s == support_id]

    def free_spot(
        self,
        support: SupportSpec,
        obj: str,
        rng: Random,
        near: tuple[float, float] | None = None,
        reach_m: float = 0.0,
    ) -> tuple[float, float] | None:
        """A random free (x, y) for ``obj`` on ``support``, or None when it does not fit (with ``near``, a
        floor point: among the free spots within ``reach_m`` of it only)."""
        r, h = self.radius[obj], self.height[obj]
        if h > support.clearance:
            return None
        lo, hi = np.asarray(support.lo), np.asarray(support.hi)
        half = (hi - lo) / 2
        inset = np.minimum(r, np.maximum(half - 0.005, 0.0))
        a, b = lo + inset, hi - inset
        xs = np.arange(a[0], b[0] + 1e-9, STEP) if b[0] > a[0] else np.array([(a[0] + b[0]) / 2])
        ys = np.arange(a[1], b[1] + 1e-9, STEP) if b[1] > a[1] else np.array([(a[1] + b[1]) / 2])
        gx, gy = np.meshgrid(xs, ys)
        cand = np.stack([gx.ravel(), gy.ravel()], -1)
        ok = np.ones(len(cand), bool)
        for other, x, y in self.on_support(support.id):
            if other == obj:
                continue
            ok &= np.hypot(cand[:, 0] - x, cand[:, 1] - y) >= r + self.radius[other] + GAP
        for blo, bhi in support.blocked:
            inside = (
                (cand[:, 0] > blo[0] - r)
                & (cand[:, 0] < bhi[0] + r)
                & (cand[:, 1] > blo[1] - r)
                & (cand[:, 1] < bhi[1] + r)
            )
            ok &= ~inside
        if near is not None:
            ok &= np.hypot(cand[:, 0] - near[0], cand[:, 1] - near[1]) <= reach_m
        idx = np.flatnonzero(ok)
        if len(idx) == 0:
            return None
        k = int(idx[rng.randrange(len(idx))])
        return round(float(cand[k, 0]), 4), round(float(cand[k, 1]), 4)
