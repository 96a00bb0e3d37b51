"""VOO — object temporal ordering: order 4 objects of distinct categories by their first (or last)
appearance in one view video.

Rules:

* Objects are named by category, so an event is the category's: first appearance = the earliest
  ``first_s`` of any of its instances in that view; last appearance = the latest ``last_s``.
* Gap rule (resolvable at N = 128 frames): with the spacing Δ = duration / (N − 1) of the N uniform frames,
  consecutive events are at least ``min_gap_frames`` · Δ apart (default 2Δ: at least one sampled frame lies
  strictly between them), **and** the order in which the categories first (last) show up in the N frames
  the uniform policy samples is the true order, each at a different sampled frame — a viewer who
  recognises every object in those N frames can answer.
* First- and last-appearance questions come in equal numbers (the builder trims the larger kind).
* Doubt (`doubt.voo`): the smallest time between consecutive events.
* Options: the true order and three other orders of the same four categories (seeded).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np

from egoworld.benchmarks.vsi_wild.build import doubt
from egoworld.benchmarks.vsi_wild.build.config import VOORules
from egoworld.benchmarks.vsi_wild.build.drafts import Draft
from egoworld.benchmarks.vsi_wild.timing import duration_group, frame_spacing
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.schema import Media, VideoInput
from egoworld.world.fields import ref
from egoworld.world.walk_source import Appearance, WalkSource

KINDS = ("first", "last")
QUESTION = "[Ordering] In this video, choose the option listing the four objects by {kind}-appearance time."
ARROW = " → "


def events(src: WalkSource, view: str, kind: str, frames: int) -> dict[str, tuple[float, float | None]]:
    """Per category: (true event time, event time seen in the ``frames`` uniform frames or None)."""
    v = src.views[view]
    sampled = v.sampled_times(frames)
    per: dict[str, list] = defaultdict(list)
    for a in src.appearances.get(view, []):
        per[a.category].append(a)
    out: dict[str, tuple[float, float | None]] = {}
    for cat, apps in per.items():
        seen = np.zeros(len(sampled), bool)
        for a in apps:
            seen |= a.visible_at(sampled)
        hit = sampled[seen]
        if kind == "first":
            out[cat] = (min(a.first_s for a in apps), float(hit[0]) if len(hit) else None)
        else:
            out[cat] = (max(a.last_s for a in apps), float(hit[-1]) if len(hit) else None)
    return out


def setters(src: WalkSource, view: str, kind: str, combo: tuple[str, ...]) -> list[Appearance]:
    """The appearance that sets each category's event (its earliest first / latest last appearance)."""
    out = []
    for cat in combo:
        apps = [a for a in src.appearances.get(view, []) if a.category == cat]
        out.append(
            min(apps, key=lambda a: a.first_s) if kind == "first" else max(apps, key=lambda a: a.last_s)
        )
    return out


def provenance(src: WalkSource, view: str, kind: str, combo: tuple[str, ...]) -> list[dict]:
    """The appearance that sets each category's event."""
    return [ref("appearance", src.id, a.object, "intervals", [list(iv) for iv in a.intervals], view)
            for a in setters(src, view, kind, combo)]  # fmt: skip


def valid_sets(ev: dict[str, tuple[float, float | None]], min_gap_s: float) -> list[tuple[str, ...]]:
    """All 4-category sets (in true order) that satisfy the gap rule."""
    cats = sorted((c for c, (_, o) in ev.items() if o is not None), key=lambda c: (ev[c][0], c))
    out = []
    for combo in itertools.combinations(cats, 4):
        ok = True
        for a, b in itertools.pairwise(combo):
            (ta, oa), (tb, ob) = ev[a], ev[b]
            if tb - ta < min_gap_s or not oa < ob:  # type: ignore[operator]
                ok = False
                break
        if ok:
            out.append(combo)
    return out


def drafts(
    src: WalkSource, view: str, video_path: str, rules: VOORules, frames: int, seed: int
) -> list[Draft]:
    """VOO drafts of one view video, both kinds."""
    v = src.views[view]
    vid = src.video_id(view)
    gap = rules.min_gap_frames * frame_spacing(v.duration_s, frames)
    out: list[Draft] = []
    for kind in KINDS:
        ev = events(src, view, kind, frames)
        sets = valid_sets(ev, gap)
        rng = seeded_rng(seed, vid, "voo", kind)
        if len(sets) > rules.max_per_video:
            sets = rng.sample(sets, rules.max_per_video)
        for combo in sets:
            correct = list(combo)
            others: set[tuple[str, ...]] = set()
            while len(others) < 3:
                p = tuple(rng.sample(correct, 4))
                if p != combo:
                    others.add(p)
            key = ",".join(sorted(combo))
            min_gap = min(ev[b][0] - ev[a][0] for a, b in itertools.pairwise(combo))
            out.append(
                Draft(
                    id=f"{vid}|VOO|{kind}|{key}",
                    task="VOO",
                    video=vid,
                    cluster=src.id,
                    question=QUESTION.format(kind=kind),
                    correct=ARROW.join(combo),
                    distractors=tuple(ARROW.join(p) for p in sorted(others)),
                    media=Media(video=VideoInput(path=video_path, duration_s=round(v.duration_s, 6))),
                    metadata={
                        "view": view,
                        "order_by": kind,
                        "objects": correct,
                        "times_s": [round(ev[c][0], 6) for c in combo],
                        "sampled_times_s": [round(float(ev[c][1]), 6) for c in combo],  # type: ignore[arg-type]
                        "min_gap_s": round(min_gap, 6),
                        **doubt.voo(min_gap),
                        "duration_s": round(v.duration_s, 6),
                        "duration_group": duration_group(v.duration_s),
                        "provenance": provenance(src, view, kind, combo),
                    },
                    stratum=kind,
                    balance=kind,
                )
            )
    return out
