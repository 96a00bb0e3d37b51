"""One open-vocabulary detector interface: frames + a vocabulary → per-frame boxes with label and score.

Backends (one module each): `owlv2` and `grounding_dino` (Hugging Face ``transformers``, weights from a
local folder), `vlm_boxes` (an OpenAI-compatible VLM asked for JSON boxes) and `from_file` (a detections
JSONL made by any other tool, its boxes checked: finite, no negative size, inside the frame). Every backend has a `Provenance`.

The output is the detections JSONL that Beyond3D's detection check reads
(`egoworld.world.detections`), one row per tested frame::

    {"time_s": 2.5, "frame": 5, "detections": [{"label": "mug", "bbox": [x0, y0, x1, y1], "score": 0.8}]}

Boxes are pixels of the frame as given (x right, y down). A tracked file adds ``"object"`` (the perceived
instance id) to each detection that belongs to an instance (`egoworld.perception.video.instance_tracks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError, check_input_file, write_jsonl
from egoworld.perception.provenance import Provenance


@dataclass(frozen=True)
class Detection:
    label: str
    bbox: tuple[float, float, float, float]
    score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "bbox": [round(float(v), 2) for v in self.bbox],
            "score": round(self.score, 4),
        }


@dataclass(frozen=True)
class Frame:
    """One RGB frame ``(H, W, 3)`` uint8 at ``time_s`` (``index``: its frame number in the video)."""

    time_s: float
    image: NDArray[np.uint8]
    index: int | None = None


@dataclass(frozen=True)
class FrameDetections:
    time_s: float
    detections: tuple[Detection, ...]
    frame: int | None = None

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "time_s": round(self.time_s, 6),
            "detections": [d.to_json() for d in self.detections],
        }
        if self.frame is not None:
            row["frame"] = self.frame
        return row


class Detector(Protocol):
    """``detect`` returns one list of detections per frame, labels taken from ``vocabulary``."""

    name: str

    def provenance(self) -> Provenance: ...

    def detect(self, frames: Sequence[Frame], vocabulary: Sequence[str]) -> list[list[Detection]]: ...


def check_vocabulary(vocabulary: Sequence[str]) -> list[str]:
    """The vocabulary as distinct, stripped, non-empty labels (order kept); an empty one is refused."""
    words = list(dict.fromkeys(w.strip() for w in vocabulary if w and w.strip()))
    if not words:
        raise ValueError(
            "the detector needs a vocabulary: give --vocabulary 'mug,chair,…' or a vocabulary file"
        )
    return words


def clip_box(box: Sequence[float], width: int, height: int) -> tuple[float, float, float, float] | None:
    """``box`` clipped to the image; None when it is empty or not finite."""
    x0, y0, x1, y1 = (float(v) for v in box)
    if not np.all(np.isfinite([x0, y0, x1, y1])):
        return None
    x0, x1 = sorted((min(max(x0, 0.0), width - 1.0), min(max(x1, 0.0), width - 1.0)))
    y0, y1 = sorted((min(max(y0, 0.0), height - 1.0), min(max(y1, 0.0), height - 1.0)))
    if x1 - x0 < 1.0 or y1 - y0 < 1.0:
        return None
    return (x0, y0, x1, y1)


def run_detector(
    detector: Detector, frames: Iterable[Frame], vocabulary: Sequence[str], batch: int = 4
) -> Iterator[FrameDetections]:
    """Detections of every frame, ``batch`` frames per call, in frame order."""
    words = check_vocabulary(vocabulary)
    chunk: list[Frame] = []

    def flush() -> Iterator[FrameDetections]:
        for f, dets in zip(chunk, detector.detect(chunk, words), strict=True):
            yield FrameDetections(float(f.time_s), tuple(dets), f.index)
        chunk.clear()

    for frame in frames:
        chunk.append(frame)
        if len(chunk) >= batch:
            yield from flush()
    if chunk:
        yield from flush()


def write_detections(path: str | Path, rows: Iterable[FrameDetections]) -> int:
    """Write the detections JSONL (see the module docstring); returns the number of frames."""
    return write_jsonl(path, (r.to_json() for r in rows))


def read_detections(path: str | Path, fps: float | None = None) -> list[FrameDetections]:
    """A detections JSONL in either spelling (Beyond3D's or the simulator's), by time. Instance ids in it
    (``object``) are dropped: perception makes its own. ``fps`` converts ``frame``-only rows to times."""
    from egoworld.world.detections import DetectionTable

    path = check_input_file(path, "detections JSONL (one row per frame)")
    table = DetectionTable.load(path, fps or float("nan"))
    out = []
    for t, dets in zip(table.times, table.rows, strict=True):
        if not np.isfinite(t):
            raise InputFileError(f"{path}: a row has only 'frame' and no frame rate was given; pass fps")
        parsed = []
        for j, d in enumerate(dets):
            try:
                box = tuple(float(v) for v in d["bbox"])
                parsed.append(Detection(str(d["label"]), box, float(d.get("score", 1.0))))  # type: ignore[arg-type]
            except (KeyError, TypeError, ValueError) as exc:
                raise InputFileError(
                    f"{path}, time {t:g} s, detections[{j}]: needs label (or category), bbox and score ({exc})"
                ) from exc
            problem = box_problem(parsed[-1].bbox)
            if problem:
                raise InputFileError(f"{path}, time {t:g} s, detections[{j}]: bbox {list(box)} {problem}; "
                                     "boxes are [x0, y0, x1, y1] in pixels of the frame")  # fmt: skip
        out.append(FrameDetections(float(t), tuple(parsed)))
    return out


def box_problem(box: Sequence[float], width: int | None = None, height: int | None = None) -> str | None:
    """What is wrong with a file's box (None: nothing): four finite values, no negative size (a box clipped
    flat at the frame's edge is kept), inside the ``width`` × ``height`` frame when it is known (edges at 0
    and ``width``, ``height``)."""
    if len(box) != 4 or not np.all(np.isfinite(box)):
        return "needs four finite numbers"
    x0, y0, x1, y1 = box
    if x1 < x0 or y1 < y0:
        return "has a negative size (x1 must not be below x0, nor y1 below y0)"
    if x0 < 0 or y0 < 0 or (width is not None and x1 > width) or (height is not None and y1 > height):
        where = f"the {width}x{height} frame" if width is not None else "the frame (negative coordinates)"
        return f"lies outside {where}"
    return None
