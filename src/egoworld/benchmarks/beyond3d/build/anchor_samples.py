"""Samples of one anchor: the trajectory of 8 questions of an out-of-sight anchor, or the visibility
question of a visible control.

Gold answers come from the tracks (visibility, last visible time), the movement annotations (last
placement time, fixture) and the query-time pose and last known positions (3D types). Options are
shuffled with ``seeded_rng(seed, sample id)``; what each option means (its time band, class or fixture)
is recorded in ``metadata`` for the analyses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from egoworld.benchmarks.beyond3d import (
    BENCHMARK_NAME,
    LAST_PLACEMENT,
    LAST_VISIBLE,
    NEAREST_FIXTURE,
    OC_DIRECTION,
    OC_DISTANCE,
    OO_DIRECTION,
    OO_DISTANCE,
    STEP,
    VISIBILITY,
)
from egoworld.benchmarks.beyond3d.build.anchors import Candidate, horizon_bucket, moves_bucket, query_bucket
from egoworld.benchmarks.beyond3d.build.fixture_balance import LabelBalance
from egoworld.benchmarks.beyond3d.build.fixture_labels import fixture_options, nearest_fixture
from egoworld.benchmarks.beyond3d.build.locations import display_name
from egoworld.benchmarks.beyond3d.build.time_choices import choice_text, make_choices, round_time
from egoworld.benchmarks.beyond3d.build.visibility_tracks import (
    DETECTED_VISIBLE,
    STATE_NAMES,
    VisibilityTracks,
)
from egoworld.benchmarks.beyond3d.prompts import (
    CLOCK_CHOICES,
    DIRECTION_LABELS,
    DISTANCE_CHOICES,
    QUADRANT_ORDER,
    VISIBILITY_CHOICES,
    question_text,
)
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.schema import FrameInput, Media, Sample, Trajectory, VideoInput
from egoworld.geometry.directions import clock_angle_deg
from egoworld.world.episode import Episode, EpisodeObject, Fixture
from egoworld.world.fields import ref as field_ref


@dataclass
class EpisodeContext:
    """What questions need from one episode beside its tracks."""

    episode: Episode
    tracks: VisibilityTracks | None
    cam: np.ndarray | None  # (O, T, 3) camera-frame positions
    video: str | None  # video path inside the benchmark folder
    counter_labels: dict[str, str] = field(default_factory=dict)
    events: set[int] = field(default_factory=set)


def _r(x: float, nd: int = 6) -> float:
    return round(float(x), nd)


def participant(ep: Episode) -> str:
    p = ep.meta.get("participant") or ep.meta.get("kitchen")
    return str(p) if p else ep.id.split("-", 1)[0]


def episode_events(ep: Episode, tracks: VisibilityTracks | None) -> set[int]:
    """Shown seconds of events: movement starts / ends of any object, visibility changes."""
    ev = {round_time(t) for o in ep.objects for m in o.movements for t in (m.start_s, m.end_s)}
    if tracks is not None:
        vis = tracks.states == DETECTED_VISIBLE
        change = np.nonzero(np.diff(vis.astype(np.int8), axis=1))[1]
        ev |= {round_time(float(tracks.times[k + 1])) for k in change}
    return ev


def _shuffled(
    texts: list[str], meta: list, gold: int, sid: str, seed: int
) -> tuple[tuple[str, ...], int, list]:
    order = list(range(len(texts)))
    seeded_rng(seed, sid).shuffle(order)
    return tuple(texts[i] for i in order), order.index(gold), [meta[i] for i in order]


def media_for(ctx: EpisodeContext, query_s: float, marker: tuple[float, float] | None = None) -> Media:
    if ctx.video is None:
        return Media()
    video = VideoInput(path=ctx.video, start_s=0.0, end_s=_r(query_s), duration_s=_r(ctx.episode.duration_s))
    frames = (FrameInput(time_s=_r(query_s), role="last_frame", marker=marker),) if marker is not None else ()
    return Media(video=video, frames=frames)


def common_metadata(ctx: EpisodeContext, c: Candidate) -> dict:
    ep, obj = ctx.episode, ctx.episode.objects[c.obj]
    meta = {
        "anchor": c.kind,
        "object": obj.id,
        "object_name": display_name(obj),
        "query_s": _r(c.query_s),
        "query_bucket": query_bucket(c.query_s),
        "moves": c.moves,
        "moves_bucket": "4+" if moves_bucket(c.moves) == 4 else str(moves_bucket(c.moves)),
        "participant": participant(ep),
        "moves_before": [[_r(m.start_s, 3), _r(m.end_s, 3)] for m in obj.movements if m.start_s < c.query_s],
        "provenance": object_provenance(ep, obj, c.query_s),
    }
    if ctx.tracks is not None:
        meta["state"] = STATE_NAMES[int(ctx.tracks.states[c.obj, c.k])]
        runs = ctx.tracks.runs(obj.id, DETECTED_VISIBLE)
        meta["sightings_before"] = [[_r(a, 3), _r(min(b, c.query_s), 3)] for a, b in runs if a < c.query_s]
    if c.kind == "out_of_sight" and c.horizon_s is not None:
        meta |= {"horizon_s": _r(c.horizon_s), "horizon_bucket": horizon_bucket(c.horizon_s)}
        if c.last_visible_s is not None:
            meta["last_visible_s"] = _r(c.last_visible_s)
        meta["last_placement_s"] = _r(c.placement_s)
    return meta


def object_provenance(ep: Episode, obj: EpisodeObject, query_s: float) -> list[dict]:
    """The world fields the object's answers rest on: its last movement before the query (when it ended, and
    where to), or its initial fixture when it has not moved yet."""
    before = [i for i, m in enumerate(obj.movements) if m.start_s < query_s]
    if not before:
        return (
            [field_ref("object", ep.id, obj.id, "initial_fixture", obj.initial_fixture)]
            if obj.initial_fixture
            else []
        )
    i = before[-1]
    m = obj.movements[i]
    rows = [field_ref("object", ep.id, obj.id, f"movements.{i}.end_s", m.end_s)]
    if m.end_fixture:
        rows.append(field_ref("object", ep.id, obj.id, f"movements.{i}.end_fixture", m.end_fixture))
    if m.end_position is not None:
        rows.append(field_ref("object", ep.id, obj.id, f"movements.{i}.end_position", list(m.end_position)))
    return rows


def anchor_id(ctx: EpisodeContext, c: Candidate) -> str:
    return f"{ctx.episode.id}-{ctx.episode.objects[c.obj].id}-t{int(round(c.query_s * 10)):06d}"


def control_sample(ctx: EpisodeContext, c: Candidate, seed: int) -> Sample:
    """The visibility question of a visible control (gold: Yes)."""
    sid = f"{anchor_id(ctx, c)}-control"
    meta = common_metadata(ctx, c) | {"visible": True}
    obj = display_name(ctx.episode.objects[c.obj])
    return Sample(
        id=sid, benchmark=BENCHMARK_NAME, task=VISIBILITY, episode=ctx.episode.id, cluster=ctx.episode.id,
        question=question_text(VISIBILITY, query_s=c.query_s, obj=obj), answer_type="choice",
        choices=VISIBILITY_CHOICES, answer=1, media=media_for(ctx, c.query_s), metadata=meta,
    )  # fmt: skip


def time_question(
    ctx: EpisodeContext, c: Candidate, task: str, gold_s: float, rank: int, sid: str, seed: int
) -> tuple[tuple[str, ...], int, dict]:
    q = round_time(c.query_s)
    gold = round_time(gold_s)
    rng = seeded_rng(seed, sid, "distractors")
    chosen = make_choices(gold, q, rank, rng, ctx.events - {gold})
    texts = [choice_text(x.time_s, q) for x in chosen]
    gold_idx = next(i for i, x in enumerate(chosen) if x.band == "correct")
    choices, answer, order = _shuffled(texts, chosen, gold_idx, sid, seed)
    meta = {
        "gold_time_s": _r(gold_s),
        "correct_rank": rank,
        "choice_times_s": [x.time_s for x in order],
        "choice_bands": [x.band for x in order],
        "choice_offsets_s": [x.offset_s for x in order],
        "choice_events": [x.event for x in order],
    }
    return choices, answer, meta


def trajectory_samples(
    ctx: EpisodeContext,
    c: Candidate,
    *,
    tasks: tuple[str, ...],
    seed: int,
    oo_cell: tuple[int, int] | None,
    lv_rank: int | None,
    lp_rank: int | None,
    nf_options: int | None = None,
    nf_balance: LabelBalance | None = None,
) -> list[Sample]:
    """The steps of an out-of-sight anchor, in step order, each depending on the earlier ones;
    ``nf_options``: how many Nearest Fixture options to show (default: as many as the kitchen allows);
    ``nf_balance``: the build's Nearest Fixture label deficits (distractors that keep label guesses at
    chance), updated with this question's options."""
    ep = ctx.episode
    obj = ep.objects[c.obj]
    name = display_name(obj)
    traj = anchor_id(ctx, c)
    base = common_metadata(ctx, c)
    out: list[Sample] = []
    ids: dict[int, list[str]] = {}

    def add(
        task: str,
        question: str,
        choices: tuple[str, ...],
        answer: int,
        meta: dict,
        marker: tuple[float, float] | None = None,
    ) -> None:
        step = STEP[task]
        sid = f"{traj}-{task}"
        deps = tuple(i for s in sorted(ids) if s < step for i in ids[s])
        out.append(
            Sample(
                id=sid, benchmark=BENCHMARK_NAME, task=task, episode=ep.id, cluster=ep.id, question=question,
                answer_type="choice", choices=choices, answer=answer, media=media_for(ctx, c.query_s, marker),
                trajectory=Trajectory(id=traj, step=step, depends_on=deps), metadata=base | meta,
            )
        )  # fmt: skip
        ids.setdefault(step, []).append(sid)

    if VISIBILITY in tasks:
        add(
            VISIBILITY,
            question_text(VISIBILITY, query_s=c.query_s, obj=name),
            VISIBILITY_CHOICES,
            0,
            {"visible": False},
        )
    for task, gold_s, rank in (
        (LAST_VISIBLE, c.last_visible_s, lv_rank),
        (LAST_PLACEMENT, c.placement_s, lp_rank),
    ):
        if task in tasks:
            sid = f"{traj}-{task}"
            choices, answer, meta = time_question(ctx, c, task, gold_s, rank, sid, seed)
            add(task, question_text(task, query_s=c.query_s, obj=name), choices, answer, meta)
    if NEAREST_FIXTURE in tasks:
        sid = f"{traj}-{NEAREST_FIXTURE}"
        gold = fixture_at(ctx, c)
        prefer = nf_balance.deficit if nf_balance is not None else None
        opts = fixture_options(
            ep.fixtures, gold, seeded_rng(seed, sid, "fixtures"), ctx.counter_labels, nf_options, prefer
        )
        variant, labels, keys, gi = opts
        if nf_balance is not None:
            nf_balance.record(labels, gi)
        choices, answer, keys_s = _shuffled(labels, keys, gi, sid, seed)
        meta = {"variant": variant, "gold_fixture": gold.id, "choice_fixtures": keys_s}
        meta["provenance"] = base["provenance"] + [
            field_ref("fixture", ep.id, gold.id, "box.center", [float(x) for x in gold.box.center])
        ]
        add(
            NEAREST_FIXTURE,
            question_text(NEAREST_FIXTURE, query_s=c.query_s, obj=name, variant=variant),
            choices,
            answer,
            meta,
        )
    if ctx.cam is not None and any(
        t in tasks for t in (OC_DIRECTION, OC_DISTANCE, OO_DIRECTION, OO_DISTANCE)
    ):
        p = ctx.cam[c.obj, c.k]
        quad, dist_bin = c.oc
        cam_meta = {"camera_xyz": [_r(v) for v in p], "distance_m": _r(np.linalg.norm(p))}
        if OC_DIRECTION in tasks:
            sid = f"{traj}-{OC_DIRECTION}"
            texts = [DIRECTION_LABELS[q] for q in QUADRANT_ORDER]
            choices, answer, cls = _shuffled(
                texts, list(QUADRANT_ORDER), QUADRANT_ORDER.index(quad), sid, seed
            )
            add(
                OC_DIRECTION,
                question_text(OC_DIRECTION, query_s=c.query_s, obj=name),
                choices,
                answer,
                cam_meta | {"gold_class": quad, "choice_classes": cls},
            )
        if OC_DISTANCE in tasks:
            sid = f"{traj}-{OC_DISTANCE}"
            choices, answer, cls = _shuffled(list(DISTANCE_CHOICES), [0, 1, 2], dist_bin, sid, seed)
            add(
                OC_DISTANCE,
                question_text(OC_DISTANCE, query_s=c.query_s, obj=name),
                choices,
                answer,
                cam_meta | {"gold_class": dist_bin, "choice_classes": cls},
            )
        refs = [r for cell, r in c.oo if cell == oo_cell]
        r = refs[seeded_rng(seed, traj, "reference").randrange(len(refs))]
        ref = ep.objects[r]
        pr = ctx.cam[r, c.k]
        v = p - pr
        u, w = (float(x) for x in ctx.tracks.centre_uv[r, c.k])
        ref_meta = {
            "reference": ref.id, "reference_name": display_name(ref), "reference_camera_xyz": [_r(x) for x in pr],
            "vector_cam": [_r(x) for x in v], "clock_deg": _r(clock_angle_deg(p, pr)), "pair_distance_m": _r(np.linalg.norm(v)),
            "marker": [_r(u, 3), _r(w, 3)],
        }  # fmt: skip
        marker = (_r(u, 3), _r(w, 3))
        if OO_DIRECTION in tasks:
            sid = f"{traj}-{OO_DIRECTION}"
            choices, answer, cls = _shuffled(list(CLOCK_CHOICES), [0, 1, 2], oo_cell[0], sid, seed)
            q = question_text(OO_DIRECTION, query_s=c.query_s, obj=name, ref=display_name(ref))
            add(
                OO_DIRECTION,
                q,
                choices,
                answer,
                ref_meta | {"gold_class": oo_cell[0], "choice_classes": cls},
                marker,
            )
        if OO_DISTANCE in tasks:
            sid = f"{traj}-{OO_DISTANCE}"
            choices, answer, cls = _shuffled(list(DISTANCE_CHOICES), [0, 1, 2], oo_cell[1], sid, seed)
            q = question_text(OO_DISTANCE, query_s=c.query_s, obj=name, ref=display_name(ref))
            add(
                OO_DISTANCE,
                q,
                choices,
                answer,
                ref_meta | {"gold_class": oo_cell[1], "choice_classes": cls},
                marker,
            )
    return out


def fixture_at(ctx: EpisodeContext, c: Candidate) -> Fixture | None:
    """The fixture the object rests on at the query time: its annotated fixture, else the nearest box."""
    ep = ctx.episode
    fid = ctx.tracks.fixtures[c.obj][c.k] if ctx.tracks is not None else None
    if fid is not None:
        try:
            return ep.fixture(fid)
        except KeyError:
            pass
    pos = ctx.tracks.positions[c.obj, c.k] if ctx.tracks is not None else None
    return nearest_fixture(ep.fixtures, pos) if pos is not None and np.all(np.isfinite(pos)) else None
