"""OWLv2 (`transformers` ``Owlv2ForObjectDetection``) as a `Detector`: every vocabulary word is a text
query; a box is kept when its best query's score reaches ``threshold``; boxes of one label that overlap by
more than ``nms_iou`` are reduced to the highest-scoring one (OWLv2 gives one box per image patch)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from egoworld.perception.detectors.detector import Detection, Frame
from egoworld.perception.detectors.hf_weights import HFDetector


@dataclass(kw_only=True)
class Owlv2Detector(HFDetector):
    MODEL_TYPE = "owlv2"
    EXAMPLE = "google/owlv2-base-patch16-ensemble"

    threshold: float = 0.2
    name: str = "owlv2"

    def settings(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "nms_iou": self.nms_iou}

    def detect(self, frames: Sequence[Frame], vocabulary: Sequence[str]) -> list[list[Detection]]:
        words = list(vocabulary)
        outputs = self.forward(frames, words)
        # OWLv2 pads to a square: boxes come back in the padded square, so scale by the longer side
        sizes = [(max(f.image.shape[:2]),) * 2 for f in frames]
        results = self.loaded()[0].post_process_grounded_object_detection(
            outputs, threshold=self.threshold, target_sizes=sizes
        )
        out = []
        for f, r in zip(frames, results, strict=True):
            found = zip(r["boxes"].tolist(), r["labels"].tolist(), r["scores"].tolist(), strict=True)
            out.append(self.kept(((box, words[int(k)], float(score)) for box, k, score in found), f))
        return out
