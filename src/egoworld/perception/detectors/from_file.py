"""A detections JSONL from any other tool as a `Detector` (Beyond3D's or the simulator's spelling): each
frame gets the row nearest its time (within ``tolerance_s``), keeping labels of the vocabulary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from egoworld.core.folders.files import InputFileError
from egoworld.perception.detectors.detector import (
    Detection,
    Frame,
    FrameDetections,
    box_problem,
    read_detections,
)
from egoworld.perception.provenance import Provenance


@dataclass
class FileDetector:
    path: Path
    fps: float | None = None
    tolerance_s: float = 0.25
    name: str = "detections-file"
    rows: list[FrameDetections] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.rows = read_detections(self.path, self.fps)
        self._times = np.array([r.time_s for r in self.rows])

    def provenance(self) -> Provenance:
        return Provenance(self.name, None, {"file": self.path.name, "tolerance_s": self.tolerance_s})

    def vocabulary(self) -> list[str]:
        return sorted({d.label for r in self.rows for d in r.detections})

    def detect(self, frames: Sequence[Frame], vocabulary: Sequence[str]) -> list[list[Detection]]:
        wanted = {w.lower() for w in vocabulary}
        out = []
        for f in frames:
            if not len(self._times):
                out.append([])
                continue
            i = int(np.argmin(np.abs(self._times - f.time_s)))
            row = self.rows[i] if abs(self._times[i] - f.time_s) <= self.tolerance_s else None
            out.append([d for d in (row.detections if row else ()) if d.label.lower() in wanted])
            self._check_inside(row, f)
        return out

    def _check_inside(self, row: FrameDetections | None, frame: Frame) -> None:
        """Refuse a row whose boxes leave the frame they are matched with (named by file and time)."""
        height, width = frame.image.shape[:2]
        for j, d in enumerate(row.detections if row else ()):
            problem = box_problem(d.bbox, width, height)
            if problem:
                raise InputFileError(f"{self.path}, time {row.time_s:g} s, detections[{j}]: bbox "  # type: ignore[union-attr]
                                     f"{list(d.bbox)} {problem}; were the boxes made on frames of another size?")  # fmt: skip
