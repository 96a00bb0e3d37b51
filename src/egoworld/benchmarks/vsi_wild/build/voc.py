"""VOC — continuous object counting: the number of unique instances of a category that appear in one view
video (every instance with an appearance row for that view counts once, however often it re-enters).

One question per (view video, category present in it); scored with linear MRA. Doubt (`doubt.voc`): the
chance that one of the counted instances is spurious or half of a split object. The selection draws the
release's count mix: the shares of the doubling bins 1 | 2–3 | 4–7 | … | 64–127 | 128+ (`mixes.VOC_MIX`,
measured from the official file).
"""

from __future__ import annotations

from collections import defaultdict

from egoworld.benchmarks.vsi_wild.build import doubt
from egoworld.benchmarks.vsi_wild.build.drafts import Draft
from egoworld.benchmarks.vsi_wild.build.mixes import voc_bin
from egoworld.benchmarks.vsi_wild.timing import duration_group
from egoworld.core.schema import Media, VideoInput
from egoworld.world.fields import ref
from egoworld.world.walk_source import WalkSource

QUESTION = (
    "[Fill-in-the-Blank] Throughout this video, count the total number of {category}(s) you observe. "
    "Report the total count as a single integer."
)
count_bin = voc_bin


def unique_counts(src: WalkSource, view: str, until_s: float | None = None) -> dict[str, int]:
    """Unique instances per category seen in a view (first seen at or before ``until_s`` when given)."""
    objs: dict[str, set[str]] = defaultdict(set)
    for a in src.appearances.get(view, []):
        if until_s is None or a.first_s <= until_s + 1e-6:
            objs[a.category].add(a.object)
    return {c: len(o) for c, o in sorted(objs.items())}


def provenance(src: WalkSource, view: str, category: str, n: int) -> list[dict]:
    """The count, and every appearance of the category in the view (each one instance of it)."""
    apps = sorted(
        (a for a in src.appearances.get(view, []) if a.category == category), key=lambda a: a.object
    )
    return [ref("count", src.id, category, "unique_instances", n, view)] + [
        ref("appearance", src.id, a.object, "intervals", [list(iv) for iv in a.intervals], view) for a in apps
    ]


def drafts(src: WalkSource, view: str, video_path: str) -> list[Draft]:
    """VOC drafts of one view video."""
    v = src.views[view]
    vid = src.video_id(view)
    apps = src.appearances.get(view, [])
    return [
        Draft(
            id=f"{vid}|VOC|{cat}",
            task="VOC",
            video=vid,
            cluster=src.id,
            question=QUESTION.format(category=cat),
            correct=n,
            media=Media(video=VideoInput(path=video_path, duration_s=round(v.duration_s, 6))),
            metadata={
                "view": view,
                "category": cat,
                "count_bin": count_bin(n),
                "duration_s": round(v.duration_s, 6),
                "duration_group": duration_group(v.duration_s),
                "provenance": provenance(src, view, cat, n),
                **doubt.voc([a for a in apps if a.category == cat], apps),
            },
            stratum=count_bin(n),
        )
        for cat, n in unique_counts(src, view).items()
    ]
