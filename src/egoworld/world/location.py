"""Where an object is at time t — the HD-EPIC / Beyond3D rule.

* before its first movement: at the first movement's start location (position and fixture each fall
  back to the object's ``initial_position`` / ``initial_fixture`` when that movement lacks it, or when the
  object never moves);
* during a movement (``start_s ≤ t < end_s`` of any movement; annotations may overlap): ``in_motion``;
* afterwards: at the end location of the latest completed movement (largest ``end_s ≤ t``).

Positions or fixtures are None where the source does not annotate them (HD-EPIC's ``assoc_info.json``
has times only); the status and the times are still exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from egoworld.world.episode import EpisodeObject, Movement, Vec3


@dataclass(frozen=True)
class Location:
    """Result of `location_at`."""

    status: Literal["at", "in_motion"]
    position: Vec3 | None
    fixture: str | None
    since_s: float | None
    """end of the movement that put it there; None while at its first location (or in motion)"""
    movement: int | None
    """index of the movement in progress (in motion) or of the latest completed one; None before any"""

    @property
    def in_motion(self) -> bool:
        return self.status == "in_motion"


def last_completed(obj: EpisodeObject, t: float) -> int | None:
    """Index of the movement that ended last at or before ``t`` (ties → the later-listed one)."""
    best: int | None = None
    for i, m in enumerate(obj.movements):
        if m.end_s <= t and (best is None or m.end_s >= obj.movements[best].end_s):
            best = i
    return best


def moving_at(obj: EpisodeObject, t: float) -> int | None:
    """Index of the movement in progress at ``t`` (the latest-starting one if several overlap), else None."""
    active = [i for i, m in enumerate(obj.movements) if m.start_s <= t < m.end_s]
    return active[-1] if active else None


def location_at(obj: EpisodeObject, t: float) -> Location:
    """The object's location at time ``t`` under the rule in the module docstring."""
    active = moving_at(obj, t)
    if active is not None:
        return Location("in_motion", None, None, None, active)
    done = last_completed(obj, t)
    if done is not None:
        m: Movement = obj.movements[done]
        return Location("at", m.end_position, m.end_fixture, m.end_s, done)
    first = obj.movements[0] if obj.movements else None
    position = first.start_position if first is not None else None
    fixture = first.start_fixture if first is not None else None
    return Location(
        "at",
        position if position is not None else obj.initial_position,
        fixture if fixture is not None else obj.initial_fixture,
        None,
        None,
    )
