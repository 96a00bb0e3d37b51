"""Place visits from what the video shows: the walk cut where its look changes, revisits joined by look.

Each sampled frame (about one per ``sample_s``) gets a look: OpenCV HSV histograms (``bins`` of hue,
saturation, value) of its top, middle and bottom thirds (sky / façades / ground on a panorama or a
forward-looking view), each normalised, averaged into one distribution. The change at a frame is the total
variation distance (0 same … 1 disjoint) between the mean look over the ``window_s`` before it and the
``window_s`` after it; cuts are taken at the largest changes of at least ``cut``, no two closer than
``min_place_s``. A stretch whose mean look lies within ``revisit`` of an earlier place's is that place
again. Appearance tells a street from a park where geometry sees no corner (a straight passage from one
place into the next); trajectory corners (`egoworld.perception.video.place_visits`) remain for a trajectory
without its video. Rows as `place_visits` writes them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.media.index import VideoIndex, probe
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.place_visits import visits_from_labels
from egoworld.perception.video.trajectory import sampled_frames


@dataclass(frozen=True)
class LookSegmenter:
    sample_s: float = 1.0
    window_s: float = 8.0
    cut: float = 0.35
    min_place_s: float = 20.0
    revisit: float = 0.1
    bins: tuple[int, int, int] = (12, 4, 4)
    size: tuple[int, int] = (128, 64)  # the frame is shrunk to this (width, height) first

    def look(self, rgb: NDArray[np.uint8]) -> NDArray[np.float64]:
        """One frame's look: the mean of its three bands' normalised HSV histograms."""
        import cv2

        small = cv2.resize(rgb, self.size, interpolation=cv2.INTER_AREA)
        hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV)
        h = hsv.shape[0]
        out = []
        for band in (hsv[: h // 3], hsv[h // 3 : 2 * h // 3], hsv[2 * h // 3 :]):
            hist = cv2.calcHist([band], [0, 1, 2], None, list(self.bins), [0, 180, 0, 256, 0, 256]).ravel()
            out.append(hist.astype(np.float64) / max(float(hist.sum()), 1.0))
        return np.mean(out, axis=0)

    def stride(self, index: VideoIndex) -> int:
        """Every how many frames a look is taken (about one per ``sample_s``)."""
        return max(1, round((index.avg_fps or 1.0) * self.sample_s))

    def looks(self, video: str | Path) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Times and looks of about one frame per ``sample_s`` of ``video`` (decoded here)."""
        collect = LookCollector(self, probe(video))
        for t, rgb in sampled_frames(video, collect.every):
            collect.times.append(t)
            collect.looks.append(self.look(rgb))
        return collect.arrays()

    def labels(self, times: NDArray, looks: NDArray) -> NDArray[np.int64]:
        """A place number per sampled frame (0, 1, … in order of first visit)."""
        n = len(times)
        if n < 2:
            return np.zeros(n, np.int64)
        dt = float(np.median(np.diff(times)))
        w = max(1, round(self.window_s / dt))
        change = np.zeros(n)
        for i in range(w, n - w + 1):
            change[i] = _distance(looks[i - w : i].mean(0), looks[i : i + w].mean(0))
        cuts: list[int] = []
        for i in np.argsort(-change, kind="stable"):
            if change[i] < self.cut:
                break
            if all(abs(times[i] - times[c]) >= self.min_place_s for c in cuts):
                cuts.append(int(i))
        segment = np.zeros(n, np.int64)
        for c in cuts:
            segment[c:] += 1
        return self._join(looks, segment)

    def _join(self, looks: NDArray, segment: NDArray[np.int64]) -> NDArray[np.int64]:
        place_of: dict[int, int] = {}
        means: list[NDArray] = []
        for s in np.unique(segment):
            mean = looks[segment == s].mean(0)
            near = [k for k, m in enumerate(means) if _distance(mean, m) < self.revisit]
            place_of[int(s)] = near[0] if near else len(means)
            if not near:
                means.append(mean)
        return np.array([place_of[int(s)] for s in segment], np.int64)


class LookCollector:
    """Looks of frames decoded elsewhere (`egoworld.world.panorama_views.cut_views`'s ``on_frame``): ``add``
    takes frame ``i`` when ``i`` is a multiple of the segmenter's stride, as `LookSegmenter.looks` would."""

    def __init__(self, segmenter: LookSegmenter, index: VideoIndex):
        self.segmenter, self.index = segmenter, index
        self.every = segmenter.stride(index)
        self.times: list[float] = []
        self.looks: list[NDArray[np.float64]] = []

    def add(self, i: int, rgb: NDArray[np.uint8]) -> None:
        if i % self.every == 0:
            self.times.append(self.index.time_of(i))
            self.looks.append(self.segmenter.look(rgb))

    def arrays(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return np.array(self.times), np.array(self.looks)


def _distance(a: NDArray, b: NDArray) -> float:
    """Total variation distance of two looks (0 … 1)."""
    return 0.5 * float(np.abs(a - b).sum())


def look_visits(
    video: str | Path, end_s: float, segmenter: LookSegmenter | None = None
) -> tuple[list[dict], list[dict], Provenance]:
    """Visits, places ``{id, kind, name}`` and the provenance from the looks of ``video`` (ends at ``end_s``)."""
    seg = segmenter or LookSegmenter()
    return visits_from_looks(*seg.looks(video), end_s, seg)


def visits_from_looks(
    times: NDArray, looks: NDArray, end_s: float, seg: LookSegmenter
) -> tuple[list[dict], list[dict], Provenance]:
    """`look_visits` from looks already taken (a `LookCollector`'s ``arrays()``)."""
    labels = seg.labels(times, looks)
    visits = visits_from_labels(times, labels, float(end_s))
    places = [{"id": f"place_{k:03d}", "kind": "place", "name": f"place {k + 1}"} for k in np.unique(labels)]
    return visits, places, Provenance("look-changes", "opencv-python-headless", asdict(seg))
