"""Per-frame detections: the visual-confirmation stage of the visibility tracks.

File format (JSON Lines, one row per tested frame; a frame with no row is untested)::

    {"time_s": 12.0, "detections": [{"object": "o3", "label": "red mug", "bbox": [x0, y0, x1, y1], "score": 0.91}]}

``object`` (an episode object id) is optional (or null); without it a detection confirms the object whose
display name, name or category equals ``label`` (case-insensitive). As in the paper, a detection confirms
the object when its box, enlarged by ``margin_px`` pixels, contains the object's projected centre.
The simulator's spelling is accepted too (`egoworld.sim.simulated_detections`): ``t`` for ``time_s`` (or ``frame``,
a frame number at the episode's fps), ``box`` for ``bbox``, ``category`` for ``label``.

`synthesize_detections` writes such rows from exact visibility (a perfect detector, or one with a miss
and false-positive rate) for synthetic worlds and tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError, iter_jsonl
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.numbers import check_number

DEFAULT_MARGIN_PX = 20.0


def _finite(value: object) -> bool:
    try:
        check_number(value, ge=0)
    except ValueError:
        return False
    return True


@dataclass
class DetectionTable:
    """Detections by frame time; ``where`` names the source for errors."""

    times: NDArray[np.float64]
    rows: list[list[dict]]
    where: str = "detections"
    tolerance_s: float = 0.5
    _index: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | Path, fps: float) -> DetectionTable:
        path = Path(path)
        times, rows = [], []
        for lineno, row in iter_jsonl(path):
            where = f"{path}, line {lineno}"
            if not isinstance(row, dict):
                raise InputFileError(f"{where}: expected an object with time_s and detections")
            key = "time_s" if "time_s" in row else "t" if "t" in row else "frame" if "frame" in row else None
            if key is None:
                raise InputFileError(f"{where}: field 'time_s' (or 'frame') is missing")
            try:
                t = float(check_number(row[key], kind="int" if key == "frame" else "float", ge=0))
            except ValueError as exc:
                raise InputFileError(f"{where}, field '{key}': {exc}") from None
            t = t / fps if key == "frame" else t
            dets = row.get("detections", [])
            if not isinstance(dets, list):
                raise InputFileError(f"{where}: field 'detections' must be a list")
            for j, d in enumerate(dets):
                box = d.get("bbox", d.get("box")) if isinstance(d, dict) else None
                if not (isinstance(box, list) and len(box) == 4):
                    raise InputFileError(f"{where}: detections[{j}].bbox must be [x0, y0, x1, y1]")
                try:
                    for v in box:
                        check_number(v)
                    if "score" in d:
                        check_number(d["score"], ge=0)
                except ValueError as exc:
                    name = "score" if "score" in d and not _finite(d["score"]) else "bbox"
                    raise InputFileError(f"{where}, field 'detections[{j}].{name}': {exc}") from None
                if "bbox" not in d:
                    d["bbox"] = box
                if "label" not in d and "category" in d:
                    d["label"] = d["category"]
            times.append(t)
            rows.append(dets)
        order = np.argsort(times, kind="stable")
        return cls(np.asarray(times, dtype=np.float64)[order], [rows[i] for i in order], str(path))

    def row_at(self, t: float) -> list[dict] | None:
        """The detections of the frame nearest ``t`` (None when no frame lies within the tolerance)."""
        if not len(self.times):
            return None
        i = int(np.searchsorted(self.times, t))
        best = None
        for j in (i - 1, i):
            if 0 <= j < len(self.times) and (
                best is None or abs(self.times[j] - t) < abs(self.times[best] - t)
            ):
                best = j
        if best is None or abs(self.times[best] - t) > self.tolerance_s:
            return None
        return self.rows[best]

    def confirms(
        self,
        t: float,
        object_id: str,
        names: Iterable[str],
        uv: NDArray[np.float64],
        margin_px: float = DEFAULT_MARGIN_PX,
    ) -> float:
        """1.0 when a detection confirms the object at ``t``, 0.0 when the frame was tested without one,
        NaN when no frame was tested near ``t``."""
        row = self.row_at(t)
        if row is None:
            return float("nan")
        if not np.all(np.isfinite(uv)):
            return 0.0
        wanted = {n.lower() for n in names}
        for d in row:
            oid = d.get("object")
            if oid is not None:
                if oid != object_id:
                    continue
            elif str(d.get("label", "")).lower() not in wanted:
                continue
            x0, y0, x1, y1 = (float(v) for v in d["bbox"])
            if x0 - margin_px <= uv[0] <= x1 + margin_px and y0 - margin_px <= uv[1] <= y1 + margin_px:
                return 1.0
        return 0.0


def synthesize_detections(
    times: Sequence[float],
    object_ids: Sequence[str],
    labels: Sequence[str],
    boxes: NDArray[np.float64],
    truly_visible: NDArray[np.bool_],
    centres_uv: NDArray[np.float64],
    *,
    miss_rate: float = 0.0,
    false_positive_rate: float = 0.0,
    seed: int = 0,
    episode: str = "",
) -> list[dict]:
    """Detection rows from exact visibility: each truly visible object is detected with probability
    ``1 − miss_rate`` (box = its pixel box ``boxes[o, t]``); each object that is not visible but projects
    into the image gets a false detection at its projected centre with probability ``false_positive_rate``.
    Draws come from ``seeded_rng(seed, episode, object, time)``."""
    rows = []
    for k, t in enumerate(times):
        dets = []
        for o, oid in enumerate(object_ids):
            rng = seeded_rng(seed, episode, oid, round(float(t), 6))
            draw = rng.random()
            if truly_visible[o, k]:
                if draw >= miss_rate and np.all(np.isfinite(boxes[o, k])):
                    dets.append(
                        {
                            "object": oid,
                            "label": labels[o],
                            "bbox": [round(float(v), 3) for v in boxes[o, k]],
                            "score": 0.9,
                        }
                    )
            elif draw < false_positive_rate and np.all(np.isfinite(centres_uv[o, k])):
                u, v = (float(x) for x in centres_uv[o, k])
                dets.append(
                    {
                        "object": oid,
                        "label": labels[o],
                        "bbox": [round(u - 8, 3), round(v - 8, 3), round(u + 8, 3), round(v + 8, 3)],
                        "score": 0.5,
                    }
                )
        rows.append({"time_s": round(float(t), 6), "detections": dets})
    return rows
