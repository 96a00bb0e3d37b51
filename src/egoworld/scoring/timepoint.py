"""Time + point answers (Beyond3D's open steps 2/3): ``<TIME HH:MM:SS.s video 1>; Point=(x, y)``.

A reply is parsed into a time in seconds and a normalised image point; it is correct when, for some
acceptable candidate, ``|t - t*| <= time_tolerance_s`` and (unless time-only) the L-infinity point error
``max(|x - x*|, |y - y*|) <= point_tolerance`` — the official harness's rule. Our parser also reads a
``MM:SS.s`` time inside the token and a bare ``(x, y)`` pair; reasoning blocks are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from egoworld.core.schema import Sample, TimePointAnswer
from egoworld.scoring.extract import strip_reasoning

_FLOAT = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_TIME = re.compile(r"<\s*TIME\s+(?:(\d{1,2}):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)(?:\s+video\s+\d+)?\s*>", re.I)
_POINT = re.compile(rf"point\s*[:=]\s*\(?\s*({_FLOAT})\s*,\s*({_FLOAT})\s*\)?", re.I)
_PAIR = re.compile(rf"\(\s*({_FLOAT})\s*,\s*({_FLOAT})\s*\)")


@dataclass(frozen=True)
class TimePoint:
    """A parsed reply: time in seconds and the normalised point (None where absent)."""

    time_s: float | None
    x: float | None
    y: float | None


def time_token(seconds: float, video: int = 1) -> str:
    """``<TIME HH:MM:SS.s video 1>`` (tenths, as the official harness writes it)."""
    h, rest = divmod(float(seconds), 3600)
    m, s = divmod(rest, 60)
    return f"<TIME {int(h):02d}:{int(m):02d}:{s:04.1f} video {video}>"


def parse_time_point(text: str) -> TimePoint:
    """Read the time token and the point of a reply."""
    body = strip_reasoning(text or "")
    t = None
    if m := _TIME.search(body):
        t = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
        body = body[: m.start()] + " " + body[m.end() :]
    m = _POINT.search(body) or _PAIR.search(body)
    x, y = (float(m.group(1)), float(m.group(2))) if m else (None, None)
    return TimePoint(t, x, y)


def parsed_ok(tp: TimePoint, time_only: bool) -> bool:
    return tp.time_s is not None and (time_only or (tp.x is not None and tp.y is not None))


@dataclass(frozen=True)
class TimePointScore:
    score: float
    time_error_s: float | None
    point_error: float | None
    matched: int | None  # index of the candidate that decided the score


def score_time_point(tp: TimePoint, answer: TimePointAnswer | dict) -> TimePointScore:
    """1.0 when some candidate is within both tolerances; errors of the best candidate (ties: smaller sum)."""
    ans = answer if isinstance(answer, TimePointAnswer) else TimePointAnswer.model_validate(answer)
    best: tuple[float, float, int, float | None, float | None] | None = None
    for i, c in enumerate(ans.candidates):
        if tp.time_s is None:
            terr, perr, ok = None, None, False
        else:
            terr = abs(tp.time_s - c.time_s)
            perr = None
            ok = terr <= ans.time_tolerance_s
            if not ans.time_only:
                if None in (tp.x, tp.y, c.x, c.y):
                    ok = False
                else:
                    perr = max(abs(tp.x - c.x), abs(tp.y - c.y))  # type: ignore[operator]
                    ok = ok and perr <= ans.point_tolerance
        total = (float("inf") if terr is None else terr) + (float("inf") if perr is None else perr)
        key = (-float(ok), total, i, terr, perr)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None
    return TimePointScore(score=-best[0], time_error_s=best[3], point_error=best[4], matched=best[2])


def gold_reply(sample: Sample) -> str:
    """The first candidate written as the prompt asks (the oracle's reply)."""
    ans = TimePointAnswer.model_validate(sample.answer)
    c = ans.candidates[0]
    if c.x is None or c.y is None:
        return time_token(c.time_s)
    return f"{time_token(c.time_s)}; Point=({c.x:.4f}, {c.y:.4f})"
