"""A panoramic walk as the builder reads it: episode + poses, the four view videos, per-view appearances,
the place timeline.

An episode folder qualifies when it holds (a synthetic walk from `egoworld.sim.walk.synth` does; a user's own
360° recording needs the same files):

* ``episode.json`` with camera poses (``poses.jsonl``) and ``media.video`` = the equirectangular video;
* the view videos ``media.extra["front" | "right" | "back" | "left"]`` (make them with
  ``egoworld vsi-wild views PANO.mp4 --out DIR``); their yaw / FOV from ``meta["views"]`` when present,
  else `FOUR_VIEWS` and 90°. A perspective walk (``episode.camera`` pinhole or fisheye: a phone's video,
  `egoworld.perception.video.perspective_walk`) has only the views ``meta["views"]`` lists (one, ``front``)
  and no panorama (`WalkSource.panoramic` False: VPO, which re-renders the panorama, is not built);
* ``media.extra["appearances"]``: rows ``{view, object, category, first_s, last_s, intervals}`` (optional
  ``frames``, ``score``: mean detection score, ``max_pixels``: largest visible size, read for doubt and the
  visibility rule);
* ``media.extra["place_visits"]``: contiguous rows ``{place, start_s, end_s}`` (VPO), optional
  ``media.extra["places"]`` with ``{id, kind, name}``.

Frame times come from the videos themselves (`egoworld.media.index.probe`, demux only).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, model_validator

from egoworld.core.folders.files import InputFileError, check_input_file, iter_jsonl, validate_row
from egoworld.core.numbers import Seconds
from egoworld.geometry.equirect import FOUR_VIEWS
from egoworld.media.index import VideoIndex, probe
from egoworld.media.policies import sampled_indices
from egoworld.world.episode import Episode
from egoworld.world.episode_folder import load_episode
from egoworld.world.panorama_views import VIEW_ORDER


class _Row(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class AppearanceRow(_Row):
    """A row of ``appearances.jsonl``: one instance in one view and its visible intervals."""

    view: str
    object: str
    category: str
    intervals: tuple[tuple[Seconds, Seconds], ...] = Field(min_length=1)
    frames: int | None = Field(default=None, ge=0)  # frames that saw it
    score: float | None = Field(default=None, ge=0.0, le=1.0)  # mean detection score (perceived)
    max_pixels: float | None = Field(default=None, ge=0.0)  # largest visible size, px² at the view size

    @model_validator(mode="after")
    def _ordered(self) -> AppearanceRow:
        for k, (a, b) in enumerate(self.intervals):
            if b < a:
                raise ValueError(f"field 'intervals.{k}': end {b} is before start {a}")
        return self


class VisitRow(_Row):
    """A row of the place timeline: ``{place, start_s, end_s}``."""

    place: str
    start_s: Seconds
    end_s: Seconds

    @model_validator(mode="after")
    def _ordered(self) -> VisitRow:
        if self.end_s < self.start_s:
            raise ValueError(f"field 'end_s': {self.end_s} is before start_s {self.start_s}")
        return self


class PlaceRow(_Row):
    id: str


def _rows(path: Path, model: type[_Row]) -> list:
    return [validate_row(model, row, path, lineno) for lineno, row in iter_jsonl(path)]


@dataclass(frozen=True)
class Appearance:
    """One instance in one view: its visible intervals ``[[start_s, end_s], …]`` (frame times), and where
    the row gives them, the frames that saw it, its mean detection score and its largest visible size."""

    object: str
    category: str
    intervals: tuple[tuple[float, float], ...]
    frames: int | None = None
    score: float | None = None
    max_pixels: float | None = None

    @property
    def first_s(self) -> float:
        return self.intervals[0][0]

    @property
    def last_s(self) -> float:
        return self.intervals[-1][1]

    def visible_at(self, times: NDArray) -> NDArray[np.bool_]:
        """Which of ``times`` fall inside one of the intervals (closed, 1 µs tolerance)."""
        out = np.zeros(len(times), bool)
        for a, b in self.intervals:
            out |= (times >= a - 1e-6) & (times <= b + 1e-6)
        return out


@dataclass(frozen=True)
class Visit:
    place: str
    start_s: float
    end_s: float


@dataclass
class ViewVideo:
    """One view video of a walk."""

    name: str
    path: Path
    yaw_deg: float
    fov_deg: float
    size: int
    index: VideoIndex
    duration_s: float

    @cached_property
    def times(self) -> NDArray[np.float64]:
        return np.array([self.index.time_of(i) for i in range(self.index.count)])

    def sampled_times(self, n: int) -> NDArray[np.float64]:
        """Times of the frames a ``uniform`` n-frame sample of this video shows."""
        return self.times[sampled_indices(self.index.count, n)]


@dataclass
class WalkSource:
    """Everything the builder needs from one episode folder."""

    folder: Path
    episode: Episode
    pano: Path
    views: dict[str, ViewVideo]
    appearances: dict[str, list[Appearance]]
    visits: list[Visit]
    places: dict[str, dict] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.episode.id

    def video_id(self, view: str) -> str:
        """The id of a view video (sample ``episode``): ``<episode>_<view>``, as the official file names them."""
        return f"{self.episode.id}_{view}"

    @property
    def panoramic(self) -> bool:
        """Whether ``media.video`` is a 360° panorama (False: a perspective walk of fewer views)."""
        return self.episode.camera is None or self.episode.camera.kind == "equirect"

    @cached_property
    def pano_index(self) -> VideoIndex:
        return probe(self.pano)


def _extra(ep: Episode, folder: Path, key: str, fix: str) -> Path:
    name = ep.media.extra.get(key)
    path = folder / name if name else None
    if path is not None and path.exists():
        return check_input_file(path, f"{key} file (media.extra['{key}'])")
    if path is None or not path.is_file():
        raise InputFileError(f"{folder}: episode {ep.id} has no {key!r} file (media.extra['{key}']); {fix}")
    return path


def load_source(folder: str | Path) -> WalkSource:
    """Load and check one walk episode folder (see the module docstring)."""
    folder = Path(folder)
    ep = load_episode(folder)
    if ep.poses is None or len(ep.poses) < 2:
        raise InputFileError(f"{folder}: episode {ep.id} needs camera poses (poses.jsonl) for VMR")
    if not ep.media.video or not (folder / ep.media.video).is_file():
        raise InputFileError(f"{folder}: episode {ep.id} has no panorama video (media.video)")
    views_meta = ep.meta.get("views", {})
    views: dict[str, ViewVideo] = {}
    names: tuple[str, ...] = VIEW_ORDER
    if ep.camera is not None and ep.camera.kind != "equirect":
        names = tuple(v for v in VIEW_ORDER if v in views_meta)
        if not names:
            raise InputFileError(f"{folder}: episode {ep.id} is a perspective walk ({ep.camera.kind} camera) whose "
                                 "meta.views lists none of front, right, back, left; perceive it again with "
                                 "`egoworld world perceive VIDEO --kind walk`")  # fmt: skip
    for v in names:
        path = _extra(ep, folder, v, "cut the panorama with `egoworld vsi-wild views PANO --out DIR`")
        meta = views_meta.get(v, {})
        index = probe(path)
        size = int(meta.get("width", index.width))
        step = 1.0 / index.avg_fps if index.avg_fps else 0.0
        duration = float(meta.get("duration_s", index.duration_s + step))
        yaw, fov = float(meta.get("yaw_deg", FOUR_VIEWS[v])), float(meta.get("fov_deg", 90.0))
        views[v] = ViewVideo(v, path, yaw, fov, size, index, duration)
    fix = "a synthetic walk writes it; for a recording, annotate per-view appearance intervals"
    apps: dict[str, list[Appearance]] = defaultdict(list)
    for row in _rows(_extra(ep, folder, "appearances", fix), AppearanceRow):
        if row.view in views:
            apps[row.view].append(
                Appearance(row.object, row.category, row.intervals, row.frames, row.score, row.max_pixels)
            )
    visits = [
        Visit(r.place, r.start_s, r.end_s)
        for r in _rows(
            _extra(ep, folder, "place_visits", "list the place timeline {place, start_s, end_s}"), VisitRow
        )
    ]
    places_file = ep.media.extra.get("places")
    places = {}
    for lineno, row in iter_jsonl(folder / places_file) if places_file else ():
        places[validate_row(PlaceRow, row, folder / places_file, lineno).id] = row
    return WalkSource(folder, ep, folder / ep.media.video, views, dict(apps), visits, places)
