"""Object locations over a time grid — the rule of `egoworld.world.location.location_at`, vectorised.

For one object and times ``(T,)``: whether it is in motion, which stationary *segment* it occupies
(-1 = its first location, ``i`` = the end of movement ``i``), its position and fixture there, and how many
movements it has completed. Segments are what visibility tracks attach a footprint to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from egoworld.world.episode import EpisodeObject

IN_MOTION_SEGMENT = -2
FIRST_SEGMENT = -1
_INSTANCE = re.compile(r"\s*\d+$")


@dataclass(frozen=True)
class Timeline:
    """Per time step: ``in_motion``, ``segment``, ``position`` (NaN where unknown), ``fixture`` (None
    where unknown), ``moves_done`` (movements with ``end_s ≤ t``)."""

    in_motion: NDArray[np.bool_]
    segment: NDArray[np.int64]
    position: NDArray[np.float64]
    fixture: list[str | None]
    moves_done: NDArray[np.int64]


def segment_location(
    obj: EpisodeObject, segment: int
) -> tuple[tuple[float, float, float] | None, str | None]:
    """Position and fixture of a stationary segment (the `location_at` fallbacks included)."""
    if segment >= 0:
        m = obj.movements[segment]
        return m.end_position, m.end_fixture
    first = obj.movements[0] if obj.movements else None
    pos = (
        first.start_position
        if first is not None and first.start_position is not None
        else obj.initial_position
    )
    fix = (
        first.start_fixture if first is not None and first.start_fixture is not None else obj.initial_fixture
    )
    return pos, fix


def segment_start(obj: EpisodeObject, segment: int) -> float:
    """When a segment begins: the end of its movement, or 0 for the first location."""
    return obj.movements[segment].end_s if segment >= 0 else 0.0


def timeline(obj: EpisodeObject, times: NDArray[np.float64]) -> Timeline:
    """The object's timeline on ``times`` (seconds)."""
    t = np.asarray(times, dtype=np.float64)
    starts = np.array([m.start_s for m in obj.movements], dtype=np.float64)
    ends = np.array([m.end_s for m in obj.movements], dtype=np.float64)
    if len(starts):
        active = (starts[:, None] <= t[None, :]) & (t[None, :] < ends[:, None])
        in_motion = active.any(axis=0)
        done = ends[:, None] <= t[None, :]
        moves_done = done.sum(axis=0).astype(np.int64)
        # latest completed: largest end_s ≤ t, ties → the later-listed movement
        key = np.where(done, ends[:, None] * 1.0, -np.inf)
        rev = key[::-1]
        best = len(ends) - 1 - np.argmax(rev == rev.max(axis=0, keepdims=True), axis=0)
        segment = np.where(done.any(axis=0), best, FIRST_SEGMENT).astype(np.int64)
    else:
        in_motion = np.zeros(len(t), dtype=bool)
        moves_done = np.zeros(len(t), dtype=np.int64)
        segment = np.full(len(t), FIRST_SEGMENT, dtype=np.int64)
    segment = np.where(in_motion, IN_MOTION_SEGMENT, segment)
    position = np.full((len(t), 3), np.nan)
    fixture: list[str | None] = [None] * len(t)
    for seg in np.unique(segment):
        if seg == IN_MOTION_SEGMENT:
            continue
        pos, fix = segment_location(obj, int(seg))
        idx = np.nonzero(segment == seg)[0]
        if pos is not None:
            position[idx] = pos
        for i in idx:
            fixture[i] = fix
    return Timeline(in_motion, segment, position, fixture, moves_done)


def display_name(obj: EpisodeObject) -> str:
    """How questions name the object: ``meta["display_name"]``, else its name without an instance number
    (``plate2`` → ``plate``)."""
    name = obj.meta.get("display_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return _INSTANCE.sub("", obj.name.strip()) or obj.name.strip()


def groundable(obj: EpisodeObject) -> bool:
    """Whether the object has a name a viewer can ground (not an unnamed HD-EPIC ``Track N``, not marked
    ``meta["groundable"] = false``)."""
    if obj.meta.get("unnamed") or obj.meta.get("groundable") is False:
        return False
    return bool(display_name(obj)) and obj.category != "unknown"


def unique_names(objects: list[EpisodeObject]) -> set[str]:
    """Ids of the objects whose display name (case-insensitive) no other object of the episode shares."""
    counts: dict[str, int] = {}
    for o in objects:
        key = display_name(o).lower()
        counts[key] = counts.get(key, 0) + 1
    return {o.id for o in objects if counts[display_name(o).lower()] == 1}
