"""Doubt: how likely a question's gold is wrong, from the perception behind it — 0 sure … 1 doubtful.

Every VSI-Super-Wild question carries ``metadata["doubt"]`` and its parts (``metadata["doubt_parts"]``);
`egoworld view --review` offers the most doubtful first. A task's doubt is its largest part (the weakest
link); every part lies in [0, 1]:

* VMR — ``angle``: ``1 − margin / 45``, ``margin`` = 45° minus the largest offset, from the answer's
  centre, of the window's direction and of each segment's direction (45° off the centre is the boundary to
  the next option of the set); ``poses``: 1 when the trajectory's self-check (or ``world fix``) marked a
  span within one window of the moment's window, else 0.
* VOO — ``timing``: ``exp(−g / TIME_SCALE_S)``, ``g`` the smallest time between consecutive events. (The
  weakness of the instances setting the events ordered wrong golds worse than a random order on perceived
  walks, so it is not a part; bench/RESULTS.md.)
* VOC — ``instances``: ``1 − Π (1 − instance_doubt(a))`` over the counted instances (the chance one of
  them is spurious or one object split in two), so a large count is more doubtful than a small one.
* VPO — ``visit``: ``exp(−m / TIME_SCALE_S)``, ``m`` the smallest distance of a query frame's capture time
  to the ends of its place visit (a place boundary a few seconds off moves the frame to another place).

`instance_doubt` of one appearance is the largest of ``short`` (``max(0, 1 − frames / FULL_FRAMES)``, where
the row says how many frames saw it), ``score`` (``1 − mean detection score``, where the row gives it) and
``split`` (``SPLIT``, when another instance of its category in the view ended at most ``SPLIT_S`` before it
first shows: perhaps one object tracked twice). Truth rows carry frames but no score: a truth world's
questions get doubt from their margins and short glimpses only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from egoworld.world.walk_source import Appearance

#: seconds over which a time margin stops mattering (the perceived first-appearance and place boundary
#: errors measured by bench/perceive.py are of this order)
TIME_SCALE_S = 10.0
#: frames of evidence at which an instance is no longer "short"
FULL_FRAMES = 10
#: doubt of an instance that starts right after another of its category ends, and how close is "right after"
SPLIT = 0.5
SPLIT_S = 10.0
#: the boundary of a direction option, degrees from its centre
BOUNDARY_DEG = 45.0


def _r(x: float) -> float:
    return round(min(1.0, max(0.0, float(x))), 4)


def combine(parts: dict[str, float]) -> dict[str, object]:
    """``{"doubt": max of the parts, "doubt_parts": parts}`` (rounded, in [0, 1])."""
    clean = {k: _r(v) for k, v in parts.items()}
    return {"doubt": max(clean.values(), default=0.0), "doubt_parts": clean}


def time_margin(seconds: float) -> float:
    """Doubt of a time margin: 1 at 0 s, falling with `TIME_SCALE_S`."""
    return math.exp(-max(0.0, seconds) / TIME_SCALE_S)


def instance_doubt(a: Appearance, others: Sequence[Appearance]) -> float:
    """How likely one perceived instance is spurious or half of a split object (module docstring)."""
    parts = [0.0]
    if a.frames is not None:
        parts.append(max(0.0, 1.0 - a.frames / FULL_FRAMES))
    if a.score is not None:
        parts.append(1.0 - a.score)
    if any(
        o is not a and o.category == a.category and 0.0 <= a.first_s - o.last_s <= SPLIT_S for o in others
    ):
        parts.append(SPLIT)
    return _r(max(parts))


def vmr(off_deg: float, near_untrusted: bool) -> dict[str, object]:
    """VMR doubt from the largest offset from the answer's centre and the pose self-check."""
    return combine({"angle": off_deg / BOUNDARY_DEG, "poses": float(near_untrusted)})


def voo(min_gap_s: float) -> dict[str, object]:
    """VOO doubt from the smallest gap between events."""
    return combine({"timing": time_margin(min_gap_s)})


def voc(counted: Sequence[Appearance], view_apps: Sequence[Appearance]) -> dict[str, object]:
    """VOC doubt: the chance at least one counted instance is wrong."""
    sure = 1.0
    for a in counted:
        sure *= 1.0 - instance_doubt(a, view_apps)
    return combine({"instances": 1.0 - sure})


def vpo(margin_s: float) -> dict[str, object]:
    """VPO doubt from the smallest distance of a query frame to the ends of its place visit."""
    return combine({"visit": time_margin(margin_s)})


def order(items: Sequence[tuple[str, float | None]]) -> list[str]:
    """Ids most doubtful first (ties and questions without a doubt: by id, the latter last)."""
    return [i for i, _ in sorted(items, key=lambda x: (x[1] is None, -(x[1] or 0.0), x[0]))]


def caught(
    doubt_wrong: Sequence[tuple[str, float | None, bool]], shares: Sequence[float] = (0.1, 0.2)
) -> dict:
    """Of the wrong golds among ``(id, doubt, wrong)``, how many the first ``share`` of the doubt order holds
    (``{"wrong", "questions", "first_10pct": n, "first_10pct_share": n / wrong, "first_10pct_most": the most
    any order could hold there (fewer places than wrong golds), …}``)."""
    ranked = order([(i, d) for i, d, _ in doubt_wrong])
    wrong = {i for i, _, w in doubt_wrong if w}
    out: dict = {"questions": len(ranked), "wrong": len(wrong)}
    for s in shares:
        k = math.ceil(s * len(ranked))
        n = sum(i in wrong for i in ranked[:k])
        key = f"first_{round(100 * s)}pct"
        out[key] = n
        out[f"{key}_share"] = n / len(wrong) if wrong else None
        out[f"{key}_most"] = min(k, len(wrong))
    return out
