"""Streaming VOC (the paper's asterisk rows): the model watches a view video in chunks and reports a running
count of unique instances of a category at given query times; MRA per query time.

The runner stays generic: one sample per (view video, category, query time), grouped by
``metadata.stream_group`` and ordered by ``metadata.query_index``; the answer is the number of unique
instances first seen at or before the query time.

``clip`` (a builder option):

* ``prefix`` (default): the sample's clip is the video from its start to the query time
  (``media.video.end_s``) — each query sees everything streamed so far (128 frames sampled from it);
* ``chunk``: the clip is only the new chunk (previous query time → this one) and the sample is a step of a
  trajectory that depends on the group's earlier steps, so ``egoworld run --history pred`` shows the model
  its own earlier running counts (a model with memory), ``--history gold`` the true ones.
"""

from __future__ import annotations

from egoworld.benchmarks.vsi_wild.build import doubt
from egoworld.benchmarks.vsi_wild.build.config import StreamRules
from egoworld.benchmarks.vsi_wild.build.drafts import Draft
from egoworld.benchmarks.vsi_wild.build.voc import count_bin, provenance, unique_counts
from egoworld.benchmarks.vsi_wild.timing import duration_group, hms
from egoworld.core.schema import Media, Trajectory, VideoInput
from egoworld.world.walk_source import WalkSource

QUESTION = (
    "[Fill-in-the-Blank] You are watching this video as a stream; it has now reached {stamp}. Counting from the "
    "start of the video up to now, how many {category}(s) have you observed in total? Report the running count "
    "as a single integer."
)
CHUNK_NOTE = " The clip shows only the part since the previous question ({prev} to {stamp})."


def query_times(duration_s: float, last_frame_s: float, fractions: tuple[float, ...]) -> list[float]:
    """Query times (seconds, rounded to ms) at ``fractions`` of the video, clamped to its last frame."""
    return [round(min(f * duration_s, last_frame_s), 3) for f in fractions]


def groups(src: WalkSource, view: str, video_path: str, rules: StreamRules) -> list[list[Draft]]:
    """One list of drafts (one per query time, in order) per category of a view video."""
    v = src.views[view]
    vid = src.video_id(view)
    times = query_times(v.duration_s, float(v.times[-1]), rules.fractions)
    counts = [unique_counts(src, view, until_s=t) for t in times]
    apps = src.appearances.get(view, [])
    out = []
    for cat, total in unique_counts(src, view).items():
        group = f"{vid}|{cat}"
        steps: list[Draft] = []
        for q, (t, c) in enumerate(zip(times, counts, strict=True)):
            prev = times[q - 1] if q else 0.0
            question = QUESTION.format(stamp=hms(t), category=cat)
            start = None
            traj = None
            if rules.clip == "chunk" and q:
                question += CHUNK_NOTE.format(prev=hms(prev), stamp=hms(t))
                start = prev
            sid = f"{vid}|VOC-stream|{cat}|{q}"
            if rules.clip == "chunk":
                traj = Trajectory(id=group, step=q, depends_on=tuple(s.id for s in steps))
            d = Draft(
                id=sid,
                task="VOC",
                video=vid,
                cluster=src.id,
                question=question,
                correct=c.get(cat, 0),
                media=Media(
                    video=VideoInput(
                        path=video_path, start_s=start, end_s=t, duration_s=round(v.duration_s, 6)
                    )
                ),
                metadata={
                    "view": view,
                    "category": cat,
                    "setting": "streaming",
                    "stream_clip": rules.clip,
                    "stream_group": group,
                    "query_index": q,
                    "query_fraction": rules.fractions[q],
                    "query_time_s": t,
                    "count_bin": count_bin(max(c.get(cat, 0), 1)),
                    "duration_s": round(v.duration_s, 6),
                    "duration_group": duration_group(v.duration_s),
                    "provenance": provenance(src, view, cat, c.get(cat, 0)),
                    **doubt.voc([a for a in apps if a.category == cat and a.first_s <= t + 1e-6], apps),
                },
                stratum=count_bin(total),  # the selection spreads groups over their final counts
                trajectory=traj,
            )
            steps.append(d)
        out.append(steps)
    return out
