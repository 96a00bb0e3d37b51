"""Beyond3D's official per-sample rules (``--scoring official``), reproduced exactly from
``Beyond3D-bench/vlm-evaluation`` ``lmms_eval/tasks/oos_videoqa/utils.py``: ``extract_prediction_index``
(clean the reply, then a letter, then an option text, then the same on the raw reply) against the gold set;
open steps 2/3 with the official time/point parser and tolerances.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from egoworld.core.plugin import CHOICE, OfficialResult
from egoworld.core.schema import Sample, TimePointAnswer
from egoworld.scoring.timepoint import TimePoint, parsed_ok, score_time_point

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


def official_score(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
    """One reply scored with the official rules."""
    if sample.answer_type == "time_point":
        ans = TimePointAnswer.model_validate(sample.answer)
        tp = b3d_time_point(raw, ans.time_only)
        return OfficialResult([tp.time_s, tp.x, tp.y], parsed_ok(tp, ans.time_only), "official_time_point",
                              score_time_point(tp, ans).score)  # fmt: skip
    idx = b3d_choice_index(raw, choices or ())
    return OfficialResult(None if idx == -1 else idx, idx != -1, "official_choice", CHOICE)
