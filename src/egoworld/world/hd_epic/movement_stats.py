"""How HD-EPIC kitchens move objects: movements per minute and how long a moved object rests before it
is moved again, from ``assoc_info.json`` (object movement tracks) and the video durations.

The sim kitchen story (`egoworld.sim.kitchen.tempo`) is driven by these figures; a test checks that its
constants are the ones this module derives from the real annotation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from egoworld.world.hd_epic.tracks import load_assoc_info, read_durations


@dataclass(frozen=True)
class MovementStats:
    videos: int
    minutes: float
    moves_per_min_median: float
    """median over videos of movements (tracks) per minute of video"""
    moved_objects_per_min_median: float
    rest_quantiles_s: dict[int, float]
    """percentile → seconds an object rests between the end of one movement and the start of its next"""
    rest_short_share: float
    """share of those rests that last 2–10 s (the horizon bucket "short")"""
    move_s_median: float


def movement_stats(assoc_info: str | Path, durations_csv: str | Path) -> MovementStats:
    """Figures over all videos of ``assoc_info`` (tracks sorted per object; overlapping tracks give no rest)."""
    durations = read_durations(durations_csv)
    objects, _ = load_assoc_info(assoc_info, durations)
    rates, obj_rates, rests, lengths = [], [], [], []
    for video, objs in objects.items():
        minutes = durations[video] / 60.0
        spans = [sorted((m.start_s, m.end_s) for m in o.movements) for o in objs]
        rates.append(sum(len(s) for s in spans) / minutes)
        obj_rates.append(sum(1 for s in spans if s) / minutes)
        for s in spans:
            lengths += [b - a for a, b in s]
            rests += [b0 - a1 for (_, a1), (b0, _) in zip(s, s[1:], strict=False) if b0 > a1]
    r = np.asarray(rests)
    return MovementStats(
        videos=len(objects),
        minutes=round(sum(durations[v] for v in objects) / 60.0, 1),
        moves_per_min_median=round(float(np.median(rates)), 2),
        moved_objects_per_min_median=round(float(np.median(obj_rates)), 2),
        rest_quantiles_s={q: round(float(np.percentile(r, q)), 1) for q in (10, 25, 50, 75, 90)},
        rest_short_share=round(float(np.mean((r >= 2) & (r <= 10))), 3),
        move_s_median=round(float(np.median(lengths)), 1),
    )
