"""VSI-Super-Wild's official per-sample rules (``--scoring official``), reproduced exactly from
``THUSI-Lab/VSI-Super-Wild`` ``tasks/vsi_super_wild/utils.py``: ``extract_letter`` (a whole-reply letter,
"answer is X", "OPTION X" / "CHOICE X" anywhere, "(X)", a leading letter, then any "X." / "X)" anywhere;
letters A–D only) compared with the gold letter; counts take the first run of digits (``-63`` → 63,
``53.5`` → 53, ``1,000`` → 1; no digits → 0) and score ``max(0, 1 - |p - g| / max(g, 1))``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from egoworld.core.plugin import CHOICE, OfficialResult
from egoworld.core.schema import Sample
from egoworld.metrics.mra import mra_linear

_VSI_PATTERNS = tuple(
    re.compile(p)
    for p in (
        r"^\s*([A-D])\s*$",
        r"ANSWER\s*(?:IS|:)?\s*[\"']?([A-D])[\"']?",
        r"\bOPTION\s*([A-D])\b",
        r"\bCHOICE\s*([A-D])\b",
        r"\(([A-D])\)",
        r"^[\s\[\(\{]*([A-D])[\s\]\)\}\. ]",
        r"\b([A-D])[\.\)]",
    )
)


def vsi_letter(text: str) -> str:
    """The official ``extract_letter``: "" when no pattern fires."""
    up = text.upper().strip()
    for pat in _VSI_PATTERNS:
        if m := pat.search(up):
            return m.group(1)
    return ""


def official_score(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
    """One reply scored with the official rules."""
    text = (raw or "").strip()
    if sample.answer_type == "choice":
        letter = vsi_letter(text)
        idx = ord(letter) - ord("A") if letter else None
        if idx is not None and choices is not None and idx >= len(choices):
            idx = None
        return OfficialResult(idx, idx is not None, "official_letter", CHOICE)
    nums = re.findall(r"\d+", text)
    pred = int(nums[0]) if nums else 0
    return OfficialResult(pred, bool(nums), "official_first_digits", mra_linear(pred, float(sample.answer)))
