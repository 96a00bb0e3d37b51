"""OWLv2 (`transformers` ``Owlv2ForObjectDetection``) as a `Detector`: every vocabulary word is a text
query; a box is kept when its best query's score reaches ``threshold``; boxes of one label that overlap by
more than ``nms_iou`` are reduced to the highest-scoring one (OWLv2 gives one box per image patch)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.perception.detect import Detection, Frame, clip_box
from egoworld.perception.detect_hf import check_weights_folder, load_detector
from egoworld.perception.nms import per_label_nms
from egoworld.perception.provenance import Provenance


@dataclass
class Owlv2Detector:
    folder: Path
    threshold: float = 0.2
    nms_iou: float = 0.5
    device: str | None = None
    name: str = "owlv2"
    _loaded: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.folder = check_weights_folder(self.folder, "owlv2", "google/owlv2-base-patch16-ensemble")

    def provenance(self) -> Provenance:
        settings = {"threshold": self.threshold, "nms_iou": self.nms_iou}
        return Provenance(self.name, "transformers", settings, weights=self.folder.name)

    def detect(self, frames: Sequence[Frame], vocabulary: Sequence[str]) -> list[list[Detection]]:
        import torch
        from PIL import Image

        if self._loaded is None:
            self._loaded = load_detector(self.folder, self.device)
        processor, model, dev = self._loaded
        words = list(vocabulary)
        images = [Image.fromarray(f.image) for f in frames]
        inputs = processor(images=images, text=[words] * len(images), return_tensors="pt").to(dev)
        with torch.no_grad():
            outputs = model(**inputs)
        # OWLv2 pads to a square: boxes come back in the padded square, so scale by the longer side
        sizes = [(max(f.image.shape[:2]),) * 2 for f in frames]
        results = processor.post_process_grounded_object_detection(
            outputs, threshold=self.threshold, target_sizes=sizes
        )
        out = []
        for f, r in zip(frames, results, strict=True):
            h, w = f.image.shape[:2]
            dets = []
            for box, score, label in zip(
                r["boxes"].tolist(), r["scores"].tolist(), r["labels"].tolist(), strict=True
            ):
                clipped = clip_box(box, w, h)
                if clipped is not None:
                    dets.append(Detection(words[int(label)], clipped, float(score)))
            out.append(per_label_nms(dets, self.nms_iou))
        return out
