"""Place visits from a trajectory: the path cut into places at its corners, revisits joined.

Positions are projected onto their plane of motion (the two main axes), resampled every ``1/steps`` of
the path length, and a corner is where the direction of travel before and after (over ``window`` of the
path) turns by more than ``corner_deg``; corners closer than ``min_fraction`` of the path are merged.
A stretch that runs within ``revisit_fraction`` of the path length of an earlier place is that place
again. Scale-free, so it works on any trajectory; a straight passage from one place into the next is not
seen (a limit of geometry alone). Rows are what `egoworld.world.walk_source` reads:
contiguous ``{place, start_s, end_s}`` and places ``{id, kind, name}``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import write_jsonl
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.poses_write import perception_meta
from egoworld.perception.video.trajectory import Trajectory
from egoworld.world.episode_folder import load_episode, save_episode


@dataclass(frozen=True)
class PlaceSegmenter:
    corner_deg: float = 55.0
    window: float = 0.04
    min_fraction: float = 0.08
    revisit_fraction: float = 0.03
    steps: int = 400

    def labels(self, positions: NDArray) -> NDArray[np.int64]:
        """A place number per position (0, 1, … in order of first visit)."""
        p = np.asarray(positions, dtype=np.float64)
        centred = p - p.mean(0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        xy = centred @ vt[:2].T
        arc = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(xy, axis=0), axis=1))]
        length = arc[-1]
        if length <= 0:
            return np.zeros(len(p), np.int64)
        grid = np.linspace(0.0, length, self.steps + 1)
        path = np.stack([np.interp(grid, arc, xy[:, 0]), np.interp(grid, arc, xy[:, 1])], -1)
        w = max(1, round(self.window * self.steps))
        turn = np.zeros(len(grid))
        for i in range(w, len(grid) - w):
            a, b = path[i] - path[i - w], path[i + w] - path[i]
            cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12)
            turn[i] = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
        cuts: list[float] = []
        gap = self.min_fraction * length
        for i in np.argsort(-turn):
            if turn[i] < self.corner_deg:
                break
            if all(abs(grid[i] - c) >= gap for c in cuts) and gap <= grid[i] <= length - gap:
                cuts.append(float(grid[i]))
        segment = np.searchsorted(np.sort(cuts), arc, side="right")
        return self._join_revisits(xy, segment, self.revisit_fraction * length)

    @staticmethod
    def _join_revisits(xy: NDArray, segment: NDArray, radius: float) -> NDArray[np.int64]:
        place_of: dict[int, int] = {}
        members: list[NDArray] = []
        for s in np.unique(segment):
            pts = xy[segment == s]
            for k, earlier in enumerate(members):
                d = np.linalg.norm(pts[:, None] - earlier[None], axis=2).min(1)
                if np.median(d) < radius:
                    place_of[int(s)] = k
                    members[k] = np.concatenate([earlier, pts])
                    break
            else:
                place_of[int(s)] = len(members)
                members.append(pts)
        return np.array([place_of[int(s)] for s in segment], np.int64)


def visits_from_labels(times: NDArray, labels: NDArray, end_s: float) -> list[dict]:
    """Contiguous ``{place, start_s, end_s}`` rows; a change lies half-way between the two frames."""
    change = np.flatnonzero(np.diff(labels)) + 1
    starts, ends = np.r_[0, change], np.r_[change, len(labels)]
    rows = []
    for a, b in zip(starts, ends, strict=True):
        start = 0.0 if a == 0 else (times[a - 1] + times[a]) / 2
        end = end_s if b == len(labels) else (times[b - 1] + times[b]) / 2
        rows.append({"place": f"place_{int(labels[a]):03d}", "start_s": round(float(start), 3),
                     "end_s": round(float(end), 3)})  # fmt: skip
    return rows


def place_visits(
    trajectory: Trajectory, end_s: float | None = None, segmenter: PlaceSegmenter | None = None
) -> tuple[list[dict], list[dict], Provenance]:
    """Visits, places ``{id, kind, name}`` and the provenance, from ``trajectory`` (ends at ``end_s``)."""
    seg = segmenter or PlaceSegmenter()
    labels = seg.labels(trajectory.positions)
    end = float(trajectory.times_s[-1]) if end_s is None else float(end_s)
    visits = visits_from_labels(trajectory.times_s, labels, end)
    places = [{"id": f"place_{k:03d}", "kind": "place", "name": f"place {k + 1}"} for k in np.unique(labels)]
    return visits, places, Provenance("trajectory-corners", None, asdict(seg))


def write_places(folder: str | Path, visits: list[dict], places: list[dict], provenance: Provenance) -> None:
    """Write ``place_visits.jsonl`` and ``places.jsonl`` into an episode folder and list them."""
    folder = Path(folder)
    ep = load_episode(folder)
    write_jsonl(folder / "place_visits.jsonl", visits)
    write_jsonl(folder / "places.jsonl", places)
    media = ep.media.model_copy(
        update={"extra": ep.media.extra | {"place_visits": "place_visits.jsonl", "places": "places.jsonl"}}
    )
    meta = perception_meta(ep.meta, "place_visits", provenance.record() | {"places": len(places)})
    save_episode(ep.model_copy(update={"media": media, "meta": meta}), folder)
