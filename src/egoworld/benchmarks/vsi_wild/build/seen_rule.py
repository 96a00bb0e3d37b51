"""The visibility rule: which instances count as seen in a view video — the same rule for a truth world and a
perceived one, so VOC counts, VOO events and the compared appearances mean the same on both sides.

An appearance counts when a careful annotator watching the view video at its own size could see it:

* its largest visible size is at least ``min_visible_px`` pixels of area at the view video's size (a
  synthetic walk records the rendered pixels of the instance, ``max_pixels``; a perceived world its largest
  tracked box, ``max_pixels`` = width × height — a box holds at least the object's pixels), and
* it is visible for at least ``min_visible_s`` seconds: the sum over its intervals of ``end − start`` plus
  one frame of the view video each (a single-frame glimpse lasts one frame).

A row that records no size (an older perceived world, a hand-made appearances file) cannot be measured
against ``min_visible_px``: it is kept and counted as ``unmeasured``, which the build and the comparison say.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from egoworld.benchmarks.vsi_wild.build.config import VisibilityRules
from egoworld.world.walk_source import Appearance, WalkSource


def visible_s(a: Appearance, frame_s: float) -> float:
    """How long ``a`` is visible: Σ (end − start + one frame) over its intervals."""
    return float(sum(b - s + frame_s for s, b in a.intervals))


def frame_step(src: WalkSource, view: str) -> float:
    """The view video's frame spacing (seconds; 0 for a one-frame video)."""
    t = src.views[view].times
    return float(np.median(np.diff(t))) if len(t) > 1 else 0.0


def apply(src: WalkSource, rules: VisibilityRules) -> tuple[WalkSource, dict[str, int]]:
    """``src`` with only the appearances the rule counts, and how many it left out (``small``, ``short``)
    or could not measure (``unmeasured``: no size recorded)."""
    tally = {"small": 0, "short": 0, "unmeasured": 0}
    if rules.min_visible_px <= 0 and rules.min_visible_s <= 0:
        return src, tally
    kept: dict[str, list[Appearance]] = {}
    for view, apps in src.appearances.items():
        step = frame_step(src, view) if view in src.views else 0.0
        kept[view] = []
        for a in apps:
            if rules.min_visible_px > 0 and a.max_pixels is None:
                tally["unmeasured"] += 1
            elif (
                rules.min_visible_px > 0 and a.max_pixels is not None and a.max_pixels < rules.min_visible_px
            ):
                tally["small"] += 1
                continue
            if visible_s(a, step) < rules.min_visible_s - 1e-9:
                tally["short"] += 1
                continue
            kept[view].append(a)
    return replace(src, appearances=kept), tally


def note(tallies: list[dict[str, int]], rules: VisibilityRules) -> str | None:
    """One report line for the build (None when the rule left nothing out and measured everything)."""
    total = {k: sum(t[k] for t in tallies) for k in ("small", "short", "unmeasured")}
    if not any(total.values()):
        return None
    line = (
        f"visibility rule (≥ {rules.min_visible_px:g} px², ≥ {rules.min_visible_s:g} s): left out "
        f"{total['small']} appearance(s) too small, {total['short']} too brief"
    )
    if total["unmeasured"]:
        line += (
            f"; WARNING: {total['unmeasured']} appearance(s) record no size (max_pixels) and were kept "
            "unmeasured — perceive the world again to record sizes"
        )
    return line
