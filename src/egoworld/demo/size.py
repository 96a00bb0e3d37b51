"""How big the demo is: the full demo (the default) or ``--small``, the smallest that still takes every
benchmark through every stage (a check that the installation works, in a few minutes)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DemoSize:
    """Questions, worlds and their lengths of each demo part."""

    official_per_task: int = 250  # VSI-Super-Wild official questions per task
    kitchens: int = 6  # Beyond3D: rendered kitchens ...
    kitchen_minutes: float = 4.0  # ... of this many minutes
    anchors: int = 80  # Beyond3D text benchmark: anchors and controls
    video_anchors: int = 20  # Beyond3D video benchmark: anchors and controls
    walks: int = 5  # VSI-Super-Wild synthetic: the first N walks of `egoworld.demo.vsi_wild.WALKS`
    walk_per_task: int = 40  # ... questions per task
    explore_scenes: int = 24  # EXPLORE-Bench synthetic action scenes


FULL = DemoSize()
SMALL = DemoSize(
    official_per_task=5,
    kitchens=2,
    kitchen_minutes=2.0,
    anchors=12,
    video_anchors=4,
    walks=1,
    walk_per_task=8,
    explore_scenes=6,
)
