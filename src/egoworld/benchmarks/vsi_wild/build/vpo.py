"""VPO — place temporal ordering: 4 query frames from 4 different places, re-rendered from the panorama at a
30–60° yaw offset; choose the option listing the frames by capture time.

Rules:

* Places: 4 distinct places whose whole spans (first visit start → last visit end) do not overlap, so
  "when was this place seen" has one answer even for places visited twice, and the capture order is the
  visit order.
* Query frames: a panorama frame inside one visit of its place, ``edge_s`` from the visit's ends; that visit
  contains at least one of the N frames the uniform policy samples from the view video; consecutive query
  frames are at least ``min_gap_frames`` · Δ apart (Δ = spacing of the N = 128 uniform frames).
* Rotation: each query image is the panorama at ``view yaw ± U(30°, 60°)`` (sign and size seeded per
  image), rendered at the view's size and FOV with `geometry.equirect` from the decoded panorama frame at
  build time, stored as ``images/…png`` and listed in ``media.images`` labelled "Frame 1" … "Frame 4". The
  offset keeps every image 30–60° away from all four view directions, so no query image is a frame of any
  view video.
* Doubt (`doubt.vpo`): the smallest distance of a query frame to the ends of its place visit.
* Options are orders of the labels ("Frame 2 → Frame 4 → Frame 1 → Frame 3"), any of the 24 as in the
  official release (where the presentation order 1 → 2 → 3 → 4 is correct in 46 of 1,302 questions and its
  reverse in 47, about 1/24 each). Across the selected questions the correct order cycles through all 24
  (`balance_orders`) and distractors are drawn uniformly from the other 23, so an option is correct with
  chance 1/4 whatever its order, the presentation order and its reverse included: no order text is a
  useful blind guess.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path
from random import Random

import numpy as np

from egoworld.benchmarks.vsi_wild.build import doubt
from egoworld.benchmarks.vsi_wild.build.config import VPORules
from egoworld.benchmarks.vsi_wild.build.drafts import Draft
from egoworld.benchmarks.vsi_wild.timing import duration_group, frame_spacing
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.schema import ImageInput, Media, VideoInput
from egoworld.world.fields import ref
from egoworld.world.walk_source import Visit, WalkSource

QUESTION = (
    "[Single-Choice] Here are 4 frames captured at different moments in the video. Each frame is shown from a "
    "slightly rotated viewpoint (30-60 degrees). Choose the option listing the frames by capture time, from "
    "first to last."
)
ARROW = " → "
_ORDERS = list(itertools.permutations(range(4)))


def order_text(order: tuple[int, ...]) -> str:
    """``(1, 3, 0, 2)`` → ``"Frame 2 → Frame 4 → Frame 1 → Frame 3"`` (0-based presentation positions)."""
    return ARROW.join(f"Frame {i + 1}" for i in order)


def _spans(visits: list[Visit]) -> dict[str, tuple[float, float]]:
    spans: dict[str, tuple[float, float]] = {}
    for v in visits:
        a, b = spans.get(v.place, (v.start_s, v.end_s))
        spans[v.place] = (min(a, v.start_s), max(b, v.end_s))
    return spans


def _query_frames(src: WalkSource, view: str, rules: VPORules, frames: int) -> dict[str, list[int]]:
    """Per place: panorama frames usable as its query frame."""
    pano_t = np.array([src.pano_index.time_of(i) for i in range(src.pano_index.count)])
    sampled = src.views[view].sampled_times(frames)
    out: dict[str, list[int]] = defaultdict(list)
    for v in src.visits:
        lo, hi = v.start_s + rules.edge_s, v.end_s - rules.edge_s
        if hi < lo or not ((sampled >= v.start_s) & (sampled < v.end_s)).any():
            continue
        out[v.place].extend(np.flatnonzero((pano_t >= lo) & (pano_t <= hi)).tolist())
    return {p: f for p, f in out.items() if f}


def _pick_frames(src: WalkSource, options: list[list[int]], gap: float, rng: Random) -> list[int] | None:
    """One frame per place, in order, each at least ``gap`` seconds after the previous one (seeded)."""
    picked: list[int] = []
    prev = -np.inf
    for frames in options:
        ok = [f for f in frames if src.pano_index.time_of(f) >= prev + gap]
        if not ok:
            return None
        picked.append(rng.choice(ok))
        prev = src.pano_index.time_of(picked[-1])
    return picked


def drafts(
    src: WalkSource, view: str, video_path: str, rules: VPORules, frames: int, seed: int
) -> list[Draft]:
    """VPO drafts of one view video (images are rendered later, for the selected drafts only)."""
    v = src.views[view]
    vid = src.video_id(view)
    gap = rules.min_gap_frames * frame_spacing(v.duration_s, frames)
    spans = _spans(src.visits)
    usable = _query_frames(src, view, rules, frames)
    places = sorted(usable)
    rng = seeded_rng(seed, vid, "vpo")
    seen: set[tuple[str, ...]] = set()
    out: list[Draft] = []
    if len(places) < 4:
        return out
    for _ in range(rules.tries):
        chosen = tuple(sorted(rng.sample(places, 4), key=lambda p: spans[p]))
        if chosen in seen:
            continue
        seen.add(chosen)
        if any(spans[b][0] < spans[a][1] for a, b in itertools.pairwise(chosen)):
            continue  # a place seen again after a later one: its capture time is ambiguous
        pano_frames = _pick_frames(src, [usable[p] for p in chosen], gap, rng)  # capture order
        if pano_frames is None:
            continue
        shown = list(rng.choice(_ORDERS))  # shown[k] = capture rank of the frame shown k-th
        correct = tuple(shown.index(r) for r in range(4))  # presentation positions by capture time
        distractors = rng.sample([o for o in _ORDERS if o != correct], 3)
        offsets = [rng.choice((-1, 1)) * rng.uniform(*rules.yaw_offset_deg) for _ in range(4)]
        times = [src.pano_index.time_of(pano_frames[r]) for r in shown]
        key = "-".join(str(f) for f in sorted(pano_frames))
        images = tuple(
            ImageInput(path=f"images/{vid}/vpo_{key}_{k + 1}.png", label=f"Frame {k + 1}") for k in range(4)
        )
        out.append(
            Draft(
                id=f"{vid}|VPO|{key}",
                task="VPO",
                video=vid,
                cluster=src.id,
                question=QUESTION,
                correct=order_text(correct),
                distractors=tuple(order_text(o) for o in distractors),
                media=Media(
                    video=VideoInput(path=video_path, duration_s=round(v.duration_s, 6)), images=images
                ),
                metadata={
                    "view": view,
                    "places": [chosen[r] for r in shown],
                    "capture_s": [round(t, 6) for t in times],
                    "pano_frames": [pano_frames[r] for r in shown],
                    "yaw_deg": [round(v.yaw_deg + offsets[k], 3) for k in range(4)],
                    "yaw_offset_deg": [round(o, 3) for o in offsets],
                    "fov_deg": v.fov_deg,
                    "image_size": v.size,
                    "order": [i + 1 for i in correct],
                    "duration_s": round(v.duration_s, 6),
                    "duration_group": duration_group(v.duration_s),
                    "provenance": [ref("place_visit", src.id, p, "visits", _visits(src, p)) for p in chosen],
                    **doubt.vpo(_visit_margin(src, [src.pano_index.time_of(f) for f in pano_frames])),
                },
            )
        )
    return out


def _visit_margin(src: WalkSource, times: list[float]) -> float:
    """The smallest distance of a capture time to the ends of the place visit holding it."""
    out = np.inf
    for t in times:
        v = next((v for v in src.visits if v.start_s <= t <= v.end_s), None)
        out = min(out, 0.0 if v is None else min(t - v.start_s, v.end_s - t))
    return float(out)


def _visits(src: WalkSource, place: str) -> list[list[float]]:
    return [[x.start_s, x.end_s] for x in src.visits if x.place == place]


def balance_orders(drafts_: list[Draft], seed: int) -> list[Draft]:
    """Re-present the selected questions so their correct orders cycle through the 24 orders (a seeded
    order per block of 24): no order is more often correct than another, for a blind prior."""
    out = []
    block: list[tuple[int, ...]] = []
    for i, d in enumerate(drafts_):
        if i % len(_ORDERS) == 0:
            block = list(_ORDERS)
            seeded_rng(seed, "VPO", "orders", i // len(_ORDERS)).shuffle(block)
        target = block[i % len(_ORDERS)]
        md = d.metadata
        old = tuple(p - 1 for p in md["order"])  # old[r] = position of the r-th captured frame
        src_pos = [old[target.index(k)] for k in range(4)]  # new position k shows old position src_pos[k]
        moved = {
            key: [md[key][j] for j in src_pos]
            for key in ("places", "capture_s", "pano_frames", "yaw_deg", "yaw_offset_deg")
        }
        rng = seeded_rng(seed, d.id, "vpo-options")
        distractors = rng.sample([o for o in _ORDERS if o != target], 3)
        d.metadata = md | moved | {"order": [p + 1 for p in target]}
        d.correct = order_text(target)
        d.distractors = tuple(order_text(o) for o in distractors)
        out.append(d)
    return out


def render_images(src: WalkSource, drafts_: list[Draft], out_root: Path) -> int:
    """Render and write the query images of ``drafts_`` (all of ``src``); returns the number written."""
    from egoworld.core.folders.files import atomic_open
    from egoworld.media.decoder import decode_frames
    from egoworld.media.encode import png_bytes
    from egoworld.world.panorama_views import render_view

    jobs = [(d, k) for d in drafts_ for k in range(4)]
    wanted = sorted({d.metadata["pano_frames"][k] for d, k in jobs})
    pano = dict(decode_frames(src.pano, src.pano_index, wanted))
    for d, k in jobs:
        md = d.metadata
        rgb = render_view(pano[md["pano_frames"][k]], md["yaw_deg"][k], md["image_size"], md["fov_deg"])
        path = out_root / d.media.images[k].path
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(path, "wb") as fh:
            fh.write(png_bytes(rgb))
    return len(jobs)
