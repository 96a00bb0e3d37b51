"""``--scoring official``: the official harnesses' per-sample rules, reproduced exactly, so numbers can be
reported comparably with the papers'. Our own extractor (`egoworld.scoring.extract`) is the default.

* VSI-Super-Wild (``THUSI-Lab/VSI-Super-Wild`` ``tasks/vsi_super_wild/utils.py``): ``extract_letter``
  (a whole-reply letter, "answer is X", "OPTION X" / "CHOICE X" anywhere, "(X)", a leading letter, then
  any "X." / "X)" anywhere; letters A–D only) compared with the gold letter; counts take the first run of
  digits (``-63`` → 63, ``53.5`` → 53, ``1,000`` → 1; no digits → 0) and score
  ``max(0, 1 - |p - g| / max(g, 1))``.
* Beyond3D (``Beyond3D-bench/vlm-evaluation`` ``lmms_eval/tasks/oos_videoqa/utils.py``):
  ``extract_prediction_index`` (clean the reply, then a letter, then an option text, then the same on the
  raw reply) against the gold set; open steps 2/3 with the official time/point parser and tolerances.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from egoworld.core.schema import Sample, TimePointAnswer
from egoworld.metrics.mra import mra_linear
from egoworld.scoring.timepoint import TimePoint, parsed_ok, score_time_point

#: the score of a choice is decided by the caller, once the presented index is mapped to the original one
CHOICE = -1.0


@dataclass(frozen=True)
class OfficialResult:
    value: int | float | list | None  # presented choice index / number / [time, x, y]
    parsed: bool
    rule: str
    score: float


def official_score(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
    """Score one reply with the official rules of the sample's benchmark."""
    if sample.benchmark == "vsi_wild":
        return _vsi(sample, raw, choices)
    if sample.benchmark == "beyond3d":
        return _beyond3d(sample, raw, choices)
    raise ValueError(f"--scoring official: no official rules are known for benchmark {sample.benchmark!r}")


# -- VSI-Super-Wild -----------------------------------------------------------------------------------------
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


def _vsi(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
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


# -- Beyond3D -----------------------------------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_FINALS = (
    re.compile(
        r"(?:final\s+answer|answer|correct\s+answer|option|choice)\s*(?:is|=|:|-)?\s*\(?\s*([A-Z])\s*\)?\b",
        re.I,
    ),
    re.compile(r"(?:final\s+answer|answer|correct\s+answer)\s*(?:is|=|:|-)\s*([^\n\r]+)", re.I),
)
_CUTS = tuple(
    re.compile(p, re.I)
    for p in (
        r"\n\s*Question\s*:",
        r"\n\s*Options\s*:",
        r"\n\s*Select\s+the\s+best\s+option",
        r"\n\s*\[BATCH\]",
        r"\n\s*\[STEP\]",
        r"\n\s*\[CLEANED OUTPUT\]",
    )
)
_RELATIONS = {
    "right": "to the right",
    "left": "to the left",
    "front": "in front of",
    "in front": "in front of",
    "ahead of": "in front of",
    "back": "behind",
    "at the back": "behind",
}
_STRIP = " .,:;!?()[]{}\"'`*_"


def b3d_clean(text: str | None) -> str:
    """The official ``_clean_prediction``: the last "answer is X" statement, else the first line."""
    if text is None:
        return ""
    text = _ANSI.sub("", str(text)).replace("\u0332", "").strip()
    if not text:
        return ""
    text = re.sub(r"</think>.*$", "", text, flags=re.I | re.S).strip()
    for pat in _FINALS:
        found = pat.findall(text)
        if found:
            lines = str(found[-1]).strip().splitlines()
            return lines[0].strip() if lines else ""
    for pat in _CUTS:
        if m := pat.search(text):
            text = text[: m.start()].strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0] if lines else text.strip()


def _letter_index(pred: str, n: int) -> int:
    up = _ANSI.sub("", str(pred or "")).replace("\u0332", "").upper().strip()
    if not up:
        return -1
    top = chr(ord("A") + n - 1) if 0 < n <= 26 else "Z"
    pats = (
        rf"(?:FINAL\s+ANSWER|ANSWER|CORRECT\s+ANSWER|OPTION|CHOICE)\s*(?:IS|=|:|-)?\s*[\(\[]?\s*([A-{top}])(?=$|[^A-Z])",
        rf"^[\s\W_`'\"“”‘’（(【\[]*([A-{top}])(?=$|[^A-Z])",
        rf"^[\s>*\-•]+[\(\[]?\s*([A-{top}])(?=$|[^A-Z])",
    )
    for p in pats:
        if m := re.search(p, up, flags=re.I):
            idx = ord(m.group(1).upper()) - ord("A")
            if 0 <= idx < n:
                return idx
    return -1


def _norm(text: str) -> str:
    t = re.sub(r"\s+", " ", str(text).strip().lower())
    return _RELATIONS.get(t, t)


def _text_index(pred: str, choices: Sequence[str]) -> int:
    p = _norm(b3d_clean(pred)).strip(_STRIP)
    cs = [_norm(c).strip(_STRIP) for c in choices]
    for i, c in enumerate(cs):
        if p == c:
            return i
    if yn := re.search(r"\b(yes|no)\b", p, flags=re.I):
        for i, c in enumerate(cs):
            if c == yn.group(1).lower():
                return i
    for i, c in enumerate(cs):
        if c and re.search(rf"\b{re.escape(c)}\b", p):
            return i
    for i, c in enumerate(cs):
        if p and re.search(rf"\b{re.escape(p)}\b", c):
            return i
    return -1


def b3d_choice_index(raw: str, choices: Sequence[str]) -> int:
    """The official ``extract_prediction_index``: -1 when nothing matches."""
    clean = b3d_clean(raw)
    for idx in (
        _letter_index(clean, len(choices)),
        _text_index(clean, choices),
        _letter_index(str(raw), len(choices)),
        _text_index(str(raw), choices),
    ):
        if idx != -1:
            return idx
    return -1


_F = r"[-+]?\d*\.?\d+"
_TOKEN = re.compile(r"<TIME\s+(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:\s+video\s+\d+)?>", re.I)
_TIME_FALLBACKS = tuple(
    re.compile(p, re.I)
    for p in (
        rf"time\s*[:=]\s*({_F})\s*s?",
        rf"last\s+visible\s*(?:at|time)?\s*[:=]?\s*({_F})\s*s?",
        rf"({_F})\s*s(?:ec(?:ond)?s?)?",
    )
)
_POINTS = tuple(
    re.compile(p, re.I)
    for p in (
        rf"point\s*[:=]\s*\(?\s*({_F})\s*,\s*({_F})\s*\)?",
        rf"(?:coord(?:inate)?s?|location|position|pixel|xy|x,y)\s*[:=]\s*\(?\s*({_F})\s*,\s*({_F})\s*\)?",
        rf"\(\s*({_F})\s*,\s*({_F})\s*\)",
        rf"\[\s*({_F})\s*,\s*({_F})\s*\]",
        rf"x\s*[:=]\s*({_F})\s*[,; ]+y\s*[:=]\s*({_F})",
    )
)
_FLOATS = re.compile(r"[-+]?\d*\.\d+|[-+]?\d+")


def b3d_time_point(raw: str, time_only: bool) -> TimePoint:
    """The official ``_parse_time_and_point_prediction``."""
    clean = b3d_clean(raw)
    low = clean.lower()
    t = x = y = None
    if m := _TOKEN.search(clean):
        t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    if t is None:
        for pat in _TIME_FALLBACKS:
            if m := pat.search(low):
                t = float(m.group(1))
                break
    if t is None and time_only:
        floats = [float(v) for v in _FLOATS.findall(low)]
        if len(floats) == 1:
            t = floats[0]
    for pat in _POINTS:
        if m := pat.search(low):
            x, y = float(m.group(1)), float(m.group(2))
            break
    if (t is None or x is None or y is None) and "<time" not in low:
        floats = [float(v) for v in _FLOATS.findall(low)]
        if len(floats) >= 3:
            t = floats[0] if t is None else t
            if x is None or y is None:
                x, y = floats[-2], floats[-1]
    return TimePoint(t, x, y)


def _beyond3d(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
    if sample.answer_type == "time_point":
        ans = TimePointAnswer.model_validate(sample.answer)
        tp = b3d_time_point(raw, ans.time_only)
        return OfficialResult([tp.time_s, tp.x, tp.y], parsed_ok(tp, ans.time_only), "official_time_point",
                              score_time_point(tp, ans).score)  # fmt: skip
    idx = b3d_choice_index(raw, choices or ())
    return OfficialResult(None if idx == -1 else idx, idx != -1, "official_choice", CHOICE)
