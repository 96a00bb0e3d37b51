"""An OpenAI-compatible VLM (e.g. a served Qwen2.5-VL) asked for JSON boxes, as a `Detector`.

Each frame goes as a PNG (encoded once, retries included) with the prompt `PROMPT`; the reply must hold a JSON list of
``{"label": …, "bbox_2d": [x0, y0, x1, y1]}`` (``bbox`` also accepted) in pixels of the image sent, as
grounding VLMs answer. HTTP failures are retried by `OpenAICompatModel`; a reply that is not such a list is
asked again up to ``retries`` times and then counted in ``malformed`` (the frame gets no boxes), never
silently dropped. Labels outside the vocabulary are dropped and counted in ``off_vocabulary``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from egoworld.core.model import ImagePart, Message, Request, TextPart
from egoworld.models.openai_compat import OpenAICompatModel
from egoworld.perception.detectors.detector import Detection, Frame, clip_box
from egoworld.perception.provenance import Provenance

PROMPT = (
    "Detect every instance of these objects in the image: {labels}. Answer with only a JSON list, one item "
    'per instance: [{{"label": "<one of the objects>", "bbox_2d": [x0, y0, x1, y1]}}] in pixels of this '
    "{width}x{height} image. Answer [] when none is visible."
)


def png_part(frame: Frame) -> ImagePart:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(frame.image).save(buf, format="PNG")
    data = buf.getvalue()
    return ImagePart(hashlib.sha256(data).hexdigest(), "image/png", lambda: data, size=len(data))


def parse_boxes(text: str) -> list[dict[str, Any]]:
    """The JSON list in a reply (fenced or bare); ValueError when there is none or an item is malformed."""
    match = re.search(r"\[.*\]", text, re.S)
    if match is None:
        raise ValueError("no JSON list in the reply")
    items = json.loads(match.group(0))
    if not isinstance(items, list):
        raise ValueError("the reply is not a list")
    for it in items:
        box = it.get("bbox_2d", it.get("bbox")) if isinstance(it, dict) else None
        if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, int | float) for v in box)):
            raise ValueError(f"item {it!r} has no bbox_2d [x0, y0, x1, y1]")
        if not isinstance(it.get("label"), str):
            raise ValueError(f"item {it!r} has no label")
    return items


@dataclass
class VlmDetector:
    model: OpenAICompatModel
    retries: int = 2
    name: str = "vlm-boxes"
    malformed: int = 0
    malformed_replies: int = 0
    off_vocabulary: int = 0
    errors: list[str] = field(default_factory=list)

    def provenance(self) -> Provenance:
        return Provenance(
            self.name, None, {"retries": self.retries, **self.model.identity()}, self.model.model
        )

    def _request(self, frame: Frame, image: ImagePart, words: Sequence[str], attempt: int) -> Request:
        h, w = frame.image.shape[:2]
        text = PROMPT.format(labels=", ".join(words), width=w, height=h)
        if attempt:
            text += f"\n(Attempt {attempt + 1}: the last reply was not a valid JSON list.)"
        key = f"detect:{frame.time_s}:{attempt}"
        msg = Message("user", (image, TextPart(text)))
        return Request(key=key, sample_id=key, messages=(msg,), choices=None, permutation=None, epoch=0)

    async def _one(self, frame: Frame, words: Sequence[str]) -> list[Detection]:
        wanted = {x.lower(): x for x in words}
        h, w = frame.image.shape[:2]
        image = png_part(frame)  # encoded once, sent again on each retry
        for attempt in range(self.retries + 1):
            reply = await self.model.generate(self._request(frame, image, words, attempt))
            try:
                items = parse_boxes(reply.text)
            except (ValueError, json.JSONDecodeError) as exc:
                self.malformed_replies += 1
                last = f"{frame.time_s:g} s: {exc}"
                continue
            dets = []
            for it in items:
                label = wanted.get(it["label"].strip().lower())
                box = clip_box(it.get("bbox_2d", it.get("bbox")), w, h)
                if label is None:
                    self.off_vocabulary += 1
                elif box is not None:
                    dets.append(Detection(label, box, float(it.get("score", 1.0))))
            return dets
        self.malformed += 1
        self.errors.append(last)
        return []

    def detect(self, frames: Sequence[Frame], vocabulary: Sequence[str]) -> list[list[Detection]]:
        async def run() -> list[list[Detection]]:
            try:
                return list(await asyncio.gather(*(self._one(f, vocabulary) for f in frames)))
            finally:
                await self.model.aclose()

        return asyncio.run(run())
