"""Timestamp choices for Last Visible Time and Last Placement Time.

Five choices: the correct time (rounded to the second) and one distractor from each band of absolute
offset — Near 1–2 s, Medium 3–4 s, Far 5–6 s, Very far 7–30 s — each before or after the correct time.
Which bands go before decides the correct choice's chronological rank (1 = earliest), so a rank is
feasible when the bands it sends earlier fit after 0 and the others fit before the query time.
Within a band, offsets that land on another event of the video (a visibility change of the object, the
start or end of any movement) are preferred, as in the paper.
Texts read ``HH:MM:SS — N seconds before the end`` with N = query time − the shown time.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

BANDS: dict[str, tuple[int, int]] = {"near": (1, 2), "medium": (3, 4), "far": (5, 6), "very_far": (7, 30)}
BAND_ORDER = ("near", "medium", "far", "very_far")
RANKS = (1, 2, 3, 4, 5)


def round_time(t: float) -> int:
    """Seconds rounded half up (the shown time)."""
    return int(math.floor(t + 0.5))


def hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def time_token(t: float) -> str:
    """``<TIME HH:MM:SS.s video 1>`` (the paper's [TIME])."""
    tenths = int(math.floor(t * 10 + 0.5))
    whole, frac = divmod(tenths, 10)
    return f"<TIME {hms(whole)}.{frac} video 1>"


def choice_text(t: int, query_s: int) -> str:
    n = query_s - t
    return f"{hms(t)} — {n} second{'' if n == 1 else 's'} before the end"


def _fits(band: str, room: int) -> bool:
    return BANDS[band][0] <= room


@lru_cache(maxsize=65536)
def _feasible(before: int, after: int) -> tuple[int, ...]:
    ranks = set()
    for k in range(5):
        for early in itertools.combinations(BAND_ORDER, k):
            if all(_fits(b, before) for b in early) and all(
                _fits(b, after) for b in BAND_ORDER if b not in early
            ):
                ranks.add(k + 1)
                break
    return tuple(sorted(ranks))


def feasible_ranks(gold: int, query: int) -> list[int]:
    """Ranks (1–5) the correct time can take: ``gold`` ≥ 0 shown seconds, choices within [0, query]."""
    return list(_feasible(min(gold, 31), min(query - gold, 31))) if gold >= 0 and query >= gold else []


@dataclass(frozen=True)
class TimeChoice:
    time_s: int
    band: str  # "correct" or a band name
    offset_s: int
    event: bool


def make_choices(
    gold: int, query: int, rank: int, rng: random.Random, events: Iterable[int] = ()
) -> list[TimeChoice]:
    """The five choices (chronological order) with the correct one at ``rank``."""
    before, after = gold, query - gold
    event_set = set(events)
    options = [
        early
        for early in itertools.combinations(BAND_ORDER, rank - 1)
        if all(_fits(b, before) for b in early) and all(_fits(b, after) for b in BAND_ORDER if b not in early)
    ]
    if not options:
        raise ValueError(f"rank {rank} is not feasible for gold {gold} s and query {query} s")
    early = set(options[rng.randrange(len(options))])
    out = [TimeChoice(gold, "correct", 0, gold in event_set)]
    for band in BAND_ORDER:
        lo, hi = BANDS[band]
        sign = -1 if band in early else 1
        room = before if sign < 0 else after
        offsets = list(range(lo, min(hi, room) + 1))
        hits = [o for o in offsets if gold + sign * o in event_set]
        pick = rng.choice(hits) if hits else rng.choice(offsets)
        t = gold + sign * pick
        out.append(TimeChoice(t, band, sign * pick, t in event_set))
    return sorted(out, key=lambda c: c.time_s)
