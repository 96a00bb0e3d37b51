"""The paper-size world sets: what `egoworld world paper-sets` makes and `bench/sim_render.py` times.

* ``walks`` — VSI-Super-Wild: one walk per duration group of the paper (``WALK_GROUPS``: 8, 20, 45, 90 and
  125 minutes, groups 0–10 … 120+), a 512×256 panorama and four 384×384 views at 1 frame/s
  (`egoworld.sim.walk.synth`); episodes ``walk_000`` … ``walk_004`` in that order.
* ``kitchens`` — Beyond3D: ``KITCHEN_MINUTES``-minute kitchens seen by the Aria-like 448 px fisheye at
  1 frame/s (`egoworld.sim.kitchen.synth`), as many as 1,000 out-of-sight anchors need at a yield of
  ``anchors_per_minute`` (`kitchens_needed`; `bench/build_beyond3d.py` measures the yield, and
  `bench/sim_render.py` adds kitchens when the Beyond3D builder falls short).

``scale`` (0 < scale ≤ 1) makes a proportional smaller set for a quick measurement: walks ``scale`` × as
long, ``scale`` × as many kitchens (at least one; kitchens keep their length, so their anchor yield holds).
Every episode is seeded by ``(seed, episode id)``, so a set is resumable and byte-identical on a rerun
(`egoworld.sim.worldset.run_jobs`).
"""

from __future__ import annotations

import math

from egoworld.sim.kitchen.synth import KitchenConfig
from egoworld.sim.walk.synth import WalkConfig
from egoworld.sim.worldset import Job

#: (minutes, duration group) of the VSI-Super-Wild walks, one per group of the paper
WALK_GROUPS = ((8.0, "0-10"), (20.0, "10-30"), (45.0, "30-60"), (90.0, "60-120"), (125.0, "120+"))
KITCHEN_MINUTES = 10.0
KITCHEN_SIZE = 448
#: out-of-sight anchors + visible controls of the paper's Beyond3D
ANCHORS = 1000
CONTROLS = 1000
#: out-of-sight anchors per rendered kitchen minute that fit the balance quotas (838 from 16 × 10 min,
#: tests/test_beyond3d_fullscale.py's world); bench/build_beyond3d.py prints the current figure
ANCHORS_PER_MINUTE = 5.2
SETS = ("walks", "kitchens")


def _check_scale(scale: float) -> None:
    if not 0.0 < scale <= 1.0:
        raise ValueError(f"a paper set's scale is in (0, 1], got {scale}")


def walk_jobs(seed: int = 0, scale: float = 1.0, fps: float = 1.0) -> list[Job]:
    """The VSI-Super-Wild walks, ``walk_000`` (8 min) … ``walk_004`` (125 min), ``scale`` × as long."""
    _check_scale(scale)
    return [
        Job("walk", f"walk_{i:03d}", seed, WalkConfig(minutes=round(m * scale, 6), fps=fps))
        for i, (m, _) in enumerate(WALK_GROUPS)
    ]


def kitchens_needed(anchors: int = ANCHORS, anchors_per_minute: float = ANCHORS_PER_MINUTE) -> int:
    """Kitchens of ``KITCHEN_MINUTES`` that hold ``anchors`` out-of-sight anchors at that yield."""
    if anchors_per_minute <= 0:
        raise ValueError(f"an anchor yield per minute must be > 0, got {anchors_per_minute}")
    return max(1, math.ceil(anchors / (anchors_per_minute * KITCHEN_MINUTES)))


def kitchen_jobs(kitchens: int, seed: int = 0, scale: float = 1.0, start: int = 0) -> list[Job]:
    """``scale`` × ``kitchens`` Beyond3D kitchens (at least one), ids from ``kitchen_<start>`` on."""
    _check_scale(scale)
    n = max(1, math.ceil(kitchens * scale - 1e-9))
    cfg = KitchenConfig(minutes=KITCHEN_MINUTES, fps=1.0, size=KITCHEN_SIZE)
    return [Job("kitchen", f"kitchen_{i:03d}", seed, cfg) for i in range(start, start + n)]


def set_jobs(name: str, seed: int = 0, scale: float = 1.0, kitchens: int | None = None) -> list[Job]:
    """The jobs of the paper set ``name`` (``walks`` or ``kitchens``), longest first."""
    if name == "walks":
        return sorted(walk_jobs(seed, scale), key=job_minutes, reverse=True)
    if name == "kitchens":
        return kitchen_jobs(kitchens_needed() if kitchens is None else kitchens, seed, scale)
    raise ValueError(f"unknown paper set {name!r}; choose {' or '.join(SETS)}")


def job_minutes(job: Job) -> float:
    """The episode's length in minutes."""
    return float(job.config.minutes)
