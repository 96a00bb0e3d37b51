"""The movements-only path: worlds whose objects carry movement times but no 3D positions (HD-EPIC
``assoc_info.json``). Only Last Placement Time can be asked: its gold is the end of the object's latest
completed movement before the query, which needs no geometry.

Anchors: an object with a unique groundable name, stationary at an integer-second query time, with at
least one completed movement ending ≥ ``min_horizon_s`` earlier. They are stratified over query time and
time since placement (the horizon buckets), at most one per (object, placement, bucket), with the
correct choice's chronological rank balanced. Questions are text-only unless the episode has a video.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from egoworld.benchmarks.beyond3d import (
    LAST_PLACEMENT,
    LAST_VISIBLE,
    NEAREST_FIXTURE,
    OC_DIRECTION,
    OC_DISTANCE,
    OO_DIRECTION,
    OO_DISTANCE,
    VISIBILITY,
)
from egoworld.benchmarks.beyond3d.build.anchor_samples import (
    EpisodeContext,
    anchor_id,
    common_metadata,
    episode_events,
    media_for,
    time_question,
)
from egoworld.benchmarks.beyond3d.build.anchors import Candidate, Needs, eligible_targets, horizon_bucket
from egoworld.benchmarks.beyond3d.build.common import (
    BuildConfig,
    BuildReport,
    geometry_missing,
    link_video,
    save,
    source_hashes,
)
from egoworld.benchmarks.beyond3d.build.letter_balance import balance_letters
from egoworld.benchmarks.beyond3d.build.locations import IN_MOTION_SEGMENT, display_name, timeline
from egoworld.benchmarks.beyond3d.build.shortfall import select_balanced, shortfall_note
from egoworld.benchmarks.beyond3d.build.time_choices import feasible_ranks, round_time
from egoworld.benchmarks.beyond3d.build.visibility_tracks import sample_times
from egoworld.benchmarks.beyond3d.prompts import question_text
from egoworld.core.folders.files import write_json
from egoworld.core.folders.hashing import stable_int
from egoworld.core.folders.loader import begin_write
from egoworld.core.schema import Sample
from egoworld.world.episode import Episode


def placement_candidates(
    ep_index: int, ep: Episode, seed: int, min_horizon_s: float = 2.0, per_key: int = 3
) -> list[Candidate]:
    """Query-time candidates for Last Placement Time questions of one episode."""
    times = sample_times(ep.duration_s, 1.0)
    ok = eligible_targets(ep)
    groups: dict[tuple, list[Candidate]] = defaultdict(list)
    for o, obj in enumerate(ep.objects):
        if not ok[o] or not obj.movements:
            continue
        line = timeline(obj, times)
        for k in np.nonzero((line.segment != IN_MOTION_SEGMENT) & (line.moves_done >= 1))[0]:
            seg = int(line.segment[k])
            q = float(times[k])
            placed = obj.movements[seg].end_s
            since = q - placed
            if since < min_horizon_s - 1e-9:
                continue
            ranks = feasible_ranks(round_time(placed), round_time(q))
            if not ranks:
                continue
            c = Candidate(
                kind="placement_only", episode=ep_index, obj=o, k=int(k), query_s=q, moves=int(line.moves_done[k]),
                key=(ep_index, o, seg, horizon_bucket(since)), priority=stable_int(seed, ep.id, obj.id, q),
                horizon_s=since, placement_s=placed, lp_ranks=ranks,
            )  # fmt: skip
            groups[c.key].append(c)
    out: list[Candidate] = []
    for cands in groups.values():
        cands.sort(key=lambda c: c.priority)
        out.extend(cands[:per_key])
    return out


def skipped_reasons(loaded: list[tuple[Path, Episode]]) -> dict[str, str]:
    """Why each other type cannot be built from these worlds."""
    parts = [p for _, ep in loaded for p in geometry_missing(ep).split(", ") if p]
    lack = ", ".join(dict.fromkeys(parts)) or "3D object positions"
    any_fix = any(ep.fixtures for _, ep in loaded)
    vis = f"visibility tracks need 3D object positions, a camera model and camera poses; these worlds lack {lack} (HD-EPIC assoc_info.json carries movement times only; 3D locations are in mask_info.json)"
    fix = "needs the fixture or 3D position of each placement; the movements carry neither" + (
        "" if any_fix else ", and the worlds have no fixtures"
    )
    spatial = f"needs 3D object positions and the camera pose at the query time; these worlds lack {lack}"
    return {
        VISIBILITY: vis,
        LAST_VISIBLE: vis,
        NEAREST_FIXTURE: fix,
        OC_DIRECTION: spatial,
        OC_DISTANCE: spatial,
        OO_DIRECTION: spatial,
        OO_DISTANCE: spatial,
    }


def build_time_only(
    loaded: list[tuple[Path, Episode]], out: Path, cfg: BuildConfig, say: Callable[[str], None]
) -> BuildReport:
    """Last Placement Time questions from movement times (see the module docstring)."""
    begin_write(out, "build beyond3d")
    (out / "build_report.json").unlink(missing_ok=True)  # an older build's report never outlives it
    contexts, cands = [], []
    for i, (folder, ep) in enumerate(loaded):
        contexts.append(
            EpisodeContext(
                episode=ep,
                tracks=None,
                cam=None,
                video=link_video(out, folder, ep),
                events=episode_events(ep, None),
            )
        )
        found = placement_candidates(i, ep, cfg.seed, cfg.min_horizon_s, cfg.per_key)
        cands += found
        say(f"{ep.id}: {len(ep.objects)} objects, {len(found)} placement candidates")
    sel, short = select_balanced(
        cands, cfg.anchors, cfg.seed, Needs(last_visible=False, last_placement=True, spatial=False)
    )
    samples: list[Sample] = []
    for c in sorted(sel.anchors, key=lambda c: (c.episode, c.query_s, c.obj)):
        ctx = contexts[c.episode]
        sid = f"{anchor_id(ctx, c)}-{LAST_PLACEMENT}"
        choices, answer, meta = time_question(
            ctx, c, LAST_PLACEMENT, c.placement_s, sel.lp_rank[c.id], sid, cfg.seed
        )
        base = common_metadata(ctx, c)
        base.pop("horizon_s", None), base.pop("horizon_bucket", None)
        base |= {
            "last_placement_s": round(c.placement_s, 6),
            "since_placement_s": round(c.horizon_s, 6),
            "since_placement_bucket": horizon_bucket(c.horizon_s),
        }
        name = display_name(ctx.episode.objects[c.obj])
        samples.append(
            Sample(
                id=sid, benchmark="beyond3d", task=LAST_PLACEMENT, episode=ctx.episode.id, cluster=ctx.episode.id,
                question=question_text(LAST_PLACEMENT, query_s=c.query_s, obj=name), answer_type="choice",
                choices=choices, answer=answer, media=media_for(ctx, c.query_s), metadata=base | meta,
            )
        )  # fmt: skip
    samples = balance_letters(samples, cfg.seed)
    skipped = skipped_reasons(loaded)
    notes = []
    if not any(ctx.video for ctx in contexts):
        notes.append("no episode has a video (media.video): the benchmark runs text only")
    if short is not None:
        notes.append(shortfall_note(short, len(cands), sum(ep.duration_s for _, ep in loaded) / 60))
    builder = {
        "kind": "movements-only",
        "anchors": cfg.anchors,
        "anchors_built": len(sel.anchors),
        "candidate_pool": sel.pool,
        "shortfall": None if short is None else {"wanted": short.wanted, "delivered": short.delivered},
        "min_horizon_s": cfg.min_horizon_s,
        "per_key": cfg.per_key,
        "skipped": skipped,
    }
    bench = save(
        out,
        samples,
        [LAST_PLACEMENT],
        builder,
        cfg,
        [source_hashes(f, ep) for f, ep in loaded],
        "Beyond3D Last Placement Time from movement annotations (text only)",
    )
    report = BuildReport(
        bench=bench,
        tasks=[LAST_PLACEMENT],
        skipped=skipped,
        notes=notes,
        anchors=len(sel.anchors),
        pool=sel.pool,
        shortfall=short,
    )
    write_json(out / "build_report.json", {"lines": report.lines()[1:]})
    return report
