"""Grounding DINO (`transformers` ``GroundingDinoForObjectDetection``) as a `Detector`.

The vocabulary goes in as one caption, ``"mug. red cup. chair."``. Each query box is given the label whose
caption tokens it scores highest (a label's score: the maximum sigmoid logit over its own tokens, as in
Grounding DINO's phrase grounding), and is kept when that score reaches ``box_threshold``; same-label boxes
overlapping by more than ``nms_iou`` are reduced to the best one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from egoworld.perception.detectors.detector import Detection, Frame
from egoworld.perception.detectors.hf_weights import HFDetector


def caption(vocabulary: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The caption and each label's character span in it."""
    text, spans = "", []
    for word in vocabulary:
        start = len(text)
        text += word.lower()
        spans.append((start, len(text)))
        text += ". "
    return text.strip(), spans


def token_label_map(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> np.ndarray:
    """(labels, tokens) bool: token ``t`` lies inside label ``k``'s span (special tokens have offset (0, 0))."""
    out = np.zeros((len(spans), len(offsets)), bool)
    for t, (a, b) in enumerate(offsets):
        if b <= a:
            continue
        for k, (s, e) in enumerate(spans):
            if a >= s and b <= e:
                out[k, t] = True
    return out


@dataclass(kw_only=True)
class GroundingDinoDetector(HFDetector):
    MODEL_TYPE = "grounding-dino"
    EXAMPLE = "IDEA-Research/grounding-dino-tiny"

    box_threshold: float = 0.3
    name: str = "grounding-dino"

    def settings(self) -> dict[str, Any]:
        return {"box_threshold": self.box_threshold, "nms_iou": self.nms_iou}

    def detect(self, frames: Sequence[Frame], vocabulary: Sequence[str]) -> list[list[Detection]]:
        import torch

        processor = self.loaded()[0]
        words = list(vocabulary)
        text, spans = caption(words)
        offsets = processor.tokenizer(text, return_offsets_mapping=True)["offset_mapping"]
        labels_of = torch.as_tensor(token_label_map(offsets, spans))
        if not labels_of.any(dim=1).all():
            missing = [w for w, row in zip(words, labels_of, strict=True) if not row.any()]
            raise ValueError(f"the vocabulary words {missing} have no tokens in the caption")
        outputs = self.forward(frames, text)
        probs = outputs.logits.sigmoid().cpu()  # (B, Q, max_text_len)
        n_tok = min(probs.shape[-1], labels_of.shape[1])
        masked = torch.where(labels_of[None, None, :, :n_tok], probs[:, :, None, :n_tok], torch.tensor(0.0))
        per_label = masked.amax(dim=-1)  # (B, Q, labels)
        scores, best = per_label.max(dim=-1)
        out = []
        for i, f in enumerate(frames):
            h, w = f.image.shape[:2]
            cx, cy, bw, bh = outputs.pred_boxes[i].cpu().unbind(-1)
            boxes = torch.stack(
                [(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h], -1
            )
            kept = torch.nonzero(scores[i] >= self.box_threshold).flatten().tolist()
            found = ((boxes[q].tolist(), words[int(best[i, q])], float(scores[i, q])) for q in kept)
            out.append(self.kept(found, f))
        return out
