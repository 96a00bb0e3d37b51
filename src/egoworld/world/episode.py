"""The episode data model (DESIGN.md §2): one recording, real or synthetic.

Times are seconds from the start of the video; positions are metres in the episode's world frame (z up
for HD-EPIC and the synthetic worlds); poses are ``world_from_camera`` with the camera frame x right,
y down, z forward.

* `Episode`: ``id``, ``duration_s``, ``fps``, ``camera`` (a `egoworld.geometry.CameraModel`), ``poses``
  (`PoseTrack`), ``fixtures``, ``objects``, ``actions``, ``scene_graphs``, ``media``, ``source``, ``meta``.
* `Fixture`: a labelled `Box3D` with a ``type``, an ``openable`` flag and the intervals it is open.
* `EpisodeObject`: ``category``, ``name`` (instance name such as ``plate2``), optional initial position,
  and its `Movement` list (start_s, end_s, start/end position and fixture), sorted by (start_s, end_s).
  Movements may overlap (real annotations do); see `egoworld.world.location` for the location rule.
* `Action`: an atomic action ``(start_s, end_s, text)``, optional verb / noun.
* `SceneGraph`: objects with category, description, relations and an optional ``key_state``.
* `EpisodeMedia`: video / depth / instance-mask paths relative to the episode folder.

Constructing an `Episode` checks it whole (unique ids, known fixtures, times inside the video); the
folder format and its loader live in `egoworld.world.episode_folder`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from egoworld.core.folders.confine import check_name, check_root
from egoworld.core.numbers import Finite, PositiveFloat, Seconds
from egoworld.geometry.boxes import Box3D
from egoworld.geometry.cameras import CameraModel
from egoworld.world.poses import PoseTrack

Vec3 = tuple[Finite, Finite, Finite]
TIME_TOLERANCE_S = 1e-6


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _finite(v: Vec3 | None) -> Vec3 | None:
    if v is not None and not all(np.isfinite(v)):
        raise ValueError(f"positions must be finite, got {v}")
    return v


class Interval(_Strict):
    """A time interval in seconds, ``start_s ≤ end_s``."""

    start_s: Seconds
    end_s: Seconds

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.end_s < self.start_s:
            raise ValueError(f"end_s ({self.end_s}) is before start_s ({self.start_s})")
        return self


class Fixture(_Strict):
    """A fixed part of the scene (counter, cupboard, fridge …) as a labelled 3D box in the world."""

    id: str = Field(min_length=1, description="e.g. 'P01_cupboard.009'")
    label: str = Field(description="human-readable name, e.g. 'cupboard.009'")
    type: str = Field(description="fixture type, e.g. 'cupboard'")
    box: Box3D
    openable: bool = False
    open_intervals: tuple[Interval, ...] = Field(default=(), description="times the fixture stands open")
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _open_only_if_openable(self) -> Fixture:
        if self.open_intervals and not self.openable:
            raise ValueError("field 'open_intervals': a fixture that is not openable cannot be open")
        return self

    def is_open(self, t: float) -> bool:
        """Whether the fixture is open at time ``t`` (intervals include both ends)."""
        return any(iv.start_s <= t <= iv.end_s for iv in self.open_intervals)


class Movement(Interval):
    """One pick-up → put-down of an object; positions / fixtures are None when not annotated."""

    id: str | None = Field(default=None, description="source id (HD-EPIC track_id)")
    start_position: Vec3 | None = None
    end_position: Vec3 | None = None
    start_fixture: str | None = None
    end_fixture: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("start_position", "end_position")
    @classmethod
    def _positions_finite(cls, v: Vec3 | None) -> Vec3 | None:
        return _finite(v)


class EpisodeObject(_Strict):
    """A movable object instance and its movements (sorted by start, then end)."""

    id: str = Field(min_length=1)
    category: str = Field(description="object class, e.g. 'plate'")
    name: str = Field(description="instance name as annotated, e.g. 'plate2'")
    initial_position: Vec3 | None = Field(default=None, description="where it is before any movement")
    initial_fixture: str | None = None
    movements: tuple[Movement, ...] = ()
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("initial_position")
    @classmethod
    def _position_finite(cls, v: Vec3 | None) -> Vec3 | None:
        return _finite(v)

    @field_validator("movements")
    @classmethod
    def _sorted(cls, v: tuple[Movement, ...]) -> tuple[Movement, ...]:
        keys = [(m.start_s, m.end_s) for m in v]
        if keys != sorted(keys):
            raise ValueError("movements must be sorted by (start_s, end_s)")
        return v


class Action(Interval):
    """An atomic action, e.g. 'take plate' or 'C opens the fridge'."""

    id: str | None = None
    text: str = Field(min_length=1)
    verb: str | None = None
    noun: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class SceneObject(_Strict):
    """An object of a scene graph (EXPLORE ``{category, description, relation, key_state?}``)."""

    id: str | None = None
    category: str = Field(min_length=1)
    description: str = ""
    relations: tuple[str, ...] = ()
    key_state: str | None = None
    attributes: dict[str, str] = Field(default_factory=dict, description="e.g. colour, material, size, state")


class SceneGraph(_Strict):
    """The state of a scene at one time (None = unspecified); ``image`` is a media path of that moment."""

    label: str | None = Field(default=None, description="e.g. 'initial' or 'final'")
    time_s: Seconds | None = None
    image: str | None = None
    objects: tuple[SceneObject, ...] = ()


class EpisodeMedia(_Strict):
    """Media files of the episode; relative paths are relative to the episode folder."""

    video: str | None = None
    depth: str | None = Field(default=None, description="depth frames (file or folder)")
    depth_kind: Literal["range", "z"] = Field(default="range", description="see egoworld.geometry.visibility")
    depth_scale_m: PositiveFloat = Field(default=1.0, description="stored value × scale = metres")
    instances: str | None = Field(default=None, description="per-pixel instance ids (file or folder)")
    images: dict[str, str] = Field(default_factory=dict, description="named still images, e.g. 'initial'")
    extra: dict[str, str] = Field(
        default_factory=dict, description="other named media, e.g. perspective views"
    )
    roots: tuple[str, ...] = Field(
        default=(),
        description="absolute folders outside the episode folder its media may name (an importer's "
        "--videos); anything else must lie inside the episode folder (egoworld.core.folders.confine)",
    )

    @field_validator("roots")
    @classmethod
    def _roots_absolute(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for r in v:
            check_root(r)
            if not r.startswith("/"):
                raise ValueError(f"media root {r!r} must be an absolute folder")
        return v

    def paths(self) -> list[tuple[str, str]]:
        """Every media path with its field name (``video``, ``images.initial``, ``extra.front`` …)."""
        out = [(k, getattr(self, k)) for k in ("video", "depth", "instances") if getattr(self, k)]
        out += [(f"images.{k}", v) for k, v in self.images.items()]
        return out + [(f"extra.{k}", v) for k, v in self.extra.items()]


def plain_name(episode_id: str) -> str:
    """An episode id names its folder and files: one plain path component (`egoworld.core.folders.confine`)."""
    try:
        return check_name(episode_id, where="episode", field="id")
    except ValueError as exc:
        raise ValueError(str(exc).removeprefix("episode: field 'id': ")) from None


class Episode(BaseModel):
    """One recording. Construct it with keyword arguments; it is validated as a whole."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, validate_assignment=True)

    id: str = Field(min_length=1)
    duration_s: PositiveFloat
    fps: PositiveFloat
    camera: CameraModel | None = None
    poses: PoseTrack | None = None
    fixtures: tuple[Fixture, ...] = ()
    objects: tuple[EpisodeObject, ...] = ()
    actions: tuple[Action, ...] = ()
    scene_graphs: tuple[SceneGraph, ...] = ()
    media: EpisodeMedia = EpisodeMedia()
    source: dict[str, Any] = Field(default_factory=dict, description="loader, source files and their sha256")
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_is_a_name(cls, v: str) -> str:
        return plain_name(v)

    @model_validator(mode="after")
    def _consistent(self) -> Episode:
        problems = episode_problems(self)
        if problems:
            where, field, reason = problems[0]
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            raise ValueError(f"{where}: field '{field}': {reason}{more}")
        return self

    def fixture(self, fixture_id: str) -> Fixture:
        for f in self.fixtures:
            if f.id == fixture_id:
                return f
        raise KeyError(f"episode {self.id} has no fixture {fixture_id!r}")

    def object(self, object_id: str) -> EpisodeObject:
        for o in self.objects:
            if o.id == object_id:
                return o
        raise KeyError(f"episode {self.id} has no object {object_id!r}")

    def pose_at(
        self, t: float | np.ndarray, mode: Literal["nearest", "interpolate"] = "nearest"
    ) -> np.ndarray:
        """world_from_camera at ``t``: nearest uses frame ``round(t·fps)`` (the HD-EPIC rule)."""
        if self.poses is None:
            raise ValueError(f"episode {self.id} has no camera poses")
        return self.poses.nearest(t, fps=self.fps) if mode == "nearest" else self.poses.interpolate(t)


def episode_problems(ep: Episode) -> list[tuple[str, str, str]]:
    """Cross-item problems as ``(item, field, reason)``; items are ``objects[3]``-style references."""
    problems: list[tuple[str, str, str]] = []
    end = ep.duration_s + TIME_TOLERANCE_S
    fixture_ids = [f.id for f in ep.fixtures]
    known = set(fixture_ids)
    for kind, ids in (("fixtures", fixture_ids), ("objects", [o.id for o in ep.objects])):
        seen: set[str] = set()
        for i, item_id in enumerate(ids):
            if item_id in seen:
                problems.append((f"{kind}[{i}]", "id", f"id {item_id!r} appears twice; ids must be unique"))
            seen.add(item_id)
    for i, f in enumerate(ep.fixtures):
        for j, iv in enumerate(f.open_intervals):
            if iv.end_s > end:
                problems.append((f"fixtures[{i}]", f"open_intervals.{j}.end_s", _past_end(iv.end_s, ep)))
    for i, o in enumerate(ep.objects):
        if o.initial_fixture is not None and o.initial_fixture not in known:
            problems.append((f"objects[{i}]", "initial_fixture", _unknown_fixture(o.initial_fixture)))
        for j, m in enumerate(o.movements):
            if m.end_s > end:
                problems.append((f"objects[{i}]", f"movements.{j}.end_s", _past_end(m.end_s, ep)))
            for name in ("start_fixture", "end_fixture"):
                fx = getattr(m, name)
                if fx is not None and fx not in known:
                    problems.append((f"objects[{i}]", f"movements.{j}.{name}", _unknown_fixture(fx)))
    for i, a in enumerate(ep.actions):
        if a.end_s > end:
            problems.append((f"actions[{i}]", "end_s", _past_end(a.end_s, ep)))
    keys = [(a.start_s, a.end_s) for a in ep.actions]
    if keys != sorted(keys):
        k = next(i for i in range(1, len(keys)) if keys[i] < keys[i - 1])
        problems.append((f"actions[{k}]", "start_s", "actions must be sorted by (start_s, end_s)"))
    for i, g in enumerate(ep.scene_graphs):
        if g.time_s is not None and g.time_s > end:
            problems.append((f"scene_graphs[{i}]", "time_s", _past_end(g.time_s, ep)))
    return problems


def _past_end(t: float, ep: Episode) -> str:
    return f"{t} s is after the end of the video ({ep.duration_s} s)"


def _unknown_fixture(fixture_id: str) -> str:
    return f"fixture {fixture_id!r} is not among the episode's fixtures"
