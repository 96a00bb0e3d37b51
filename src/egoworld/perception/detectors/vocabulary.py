"""A candidate vocabulary: a VLM names the objects in sampled frames; a detector then keeps the names it
finds often enough (VSI-Super-Wild's occurrence filter on YOLO-World statistics).

A name is kept when the detector finds it in at least ``min_frames`` of the frames and in at least
``min_share`` of them (both settings). A VLM reply without a JSON list of names is retried by
`VlmDetector`'s rule (``retries``) and then counted in ``malformed``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from egoworld.core.model import Message, Request, TextPart
from egoworld.models.openai_compat import OpenAICompatModel
from egoworld.perception.detectors.detector import Detector, Frame, check_vocabulary
from egoworld.perception.detectors.vlm_boxes import png_part

PROMPT = (
    "List the kinds of physical objects visible in this image, as a JSON list of short lower-case "
    'English nouns, e.g. ["chair", "coffee mug"]. Answer with only the list.'
)


@dataclass(frozen=True)
class OccurrenceFilter:
    min_frames: int = 2
    min_share: float = 0.05


@dataclass
class VocabularyProposer:
    model: OpenAICompatModel
    retries: int = 2
    malformed: int = 0
    errors: list[str] = field(default_factory=list)

    async def _one(self, frame: Frame) -> list[str]:
        for attempt in range(self.retries + 1):
            text = PROMPT + (f"\n(Attempt {attempt + 1}.)" if attempt else "")
            key = f"vocabulary:{frame.time_s}:{attempt}"
            msg = Message("user", (png_part(frame), TextPart(text)))
            request = Request(
                key=key, sample_id=key, messages=(msg,), choices=None, permutation=None, epoch=0
            )
            reply = await self.model.generate(request)
            match = re.search(r"\[.*\]", reply.text, re.S)
            try:
                names = json.loads(match.group(0)) if match else None
            except json.JSONDecodeError:
                names = None
            if isinstance(names, list) and all(isinstance(n, str) for n in names):
                return [n.strip().lower() for n in names if n.strip()]
        self.malformed += 1
        self.errors.append(f"{frame.time_s:g} s: no JSON list of names in {reply.text[:80]!r}")
        return []

    def propose(self, frames: Sequence[Frame]) -> list[str]:
        """Every name the VLM gave, most frequent first (ties alphabetical)."""

        async def run() -> list[list[str]]:
            try:
                return list(await asyncio.gather(*(self._one(f) for f in frames)))
            finally:
                await self.model.aclose()

        seen = Counter(n for names in asyncio.run(run()) for n in set(names))
        return sorted(seen, key=lambda n: (-seen[n], n))


def filter_vocabulary(
    detector: Detector,
    frames: Sequence[Frame],
    candidates: Sequence[str],
    rule: OccurrenceFilter = OccurrenceFilter(),
) -> dict[str, int]:
    """The kept candidates with the number of frames the detector found each in."""
    words = check_vocabulary(candidates)
    found = Counter(n for dets in detector.detect(frames, words) for n in {d.label for d in dets})
    need = max(rule.min_frames, rule.min_share * len(frames))
    return {w: found[w] for w in words if found[w] >= need}
