"""`build_beyond3d`: episode folders → a Beyond3D benchmark folder.

A world with camera poses, a camera model and 3D object positions gets the full benchmark: visibility
tracks, out-of-sight anchors (8 questions each, one trajectory per anchor) and visible controls (the
visibility question). A world with movement times only (HD-EPIC ``assoc_info.json``) gets Last
Placement Time, text only (`egoworld.benchmarks.beyond3d.build.time_only`); the report says which types were
skipped and why. Episodes with a video get ``media.video`` (clip ``0 → T_q``; the video is linked as
``videos/<episode><ext>``), so the same folder runs text-only, video + text and last frame + text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from egoworld.benchmarks.beyond3d import (
    NEAREST_FIXTURE,
    SPATIAL_TASKS,
    TASK_ORDER,
    VISIBILITY,
)
from egoworld.benchmarks.beyond3d.build.anchor_samples import (
    EpisodeContext,
    control_sample,
    episode_events,
    fixture_at,
    trajectory_samples,
)
from egoworld.benchmarks.beyond3d.build.anchors import (
    Candidate,
    Needs,
    camera_coords,
    out_of_sight_candidates,
    select_controls,
    visible_candidates,
)
from egoworld.benchmarks.beyond3d.build.common import (
    RUN_HINTS,
    BuildConfig,
    BuildReport,
    geometry_missing,
    has_geometry,
    link_video,
    metric_refusals,
    save,
    source_hashes,
)
from egoworld.benchmarks.beyond3d.build.fixture_balance import LabelBalance, balance_label_guesses
from egoworld.benchmarks.beyond3d.build.fixture_labels import counter_area_labels, fixture_options
from egoworld.benchmarks.beyond3d.build.fixture_plan import capped_selection, plan_questions
from egoworld.benchmarks.beyond3d.build.letter_balance import balance_letters, letter_counts
from egoworld.benchmarks.beyond3d.build.shortfall import select_balanced, shortfall_note
from egoworld.benchmarks.beyond3d.build.time_only import build_time_only
from egoworld.benchmarks.beyond3d.build.visibility_tracks import VisibilityTracks, build_tracks
from egoworld.core.folders.files import InputFileError, read_json_object, write_json
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.folders.loader import begin_write
from egoworld.core.process.pool import map_jobs
from egoworld.core.schema import Sample
from egoworld.world.detections import DetectionTable
from egoworld.world.episode import Episode
from egoworld.world.episode_folder import find_episodes, load_episode


def load_worlds(worlds: Sequence[str | Path]) -> list[tuple[Path, Episode]]:
    """Episode folders at or below each path, loaded and validated (sorted, unique ids)."""
    folders: list[Path] = []
    for w in worlds:
        found = find_episodes(w)
        if not found:
            raise InputFileError(
                f"{w}: no episode folders (episode.json) found; pass an episode folder or a folder of them"
            )
        folders += [f for f in found if f not in folders]
    loaded = [(f, load_episode(f)) for f in sorted(folders)]
    seen: dict[str, Path] = {}
    for f, ep in loaded:
        if ep.id in seen:
            raise InputFileError(
                f"{f}: episode id {ep.id!r} is also used by {seen[ep.id]}; episode ids must be unique"
            )
        seen[ep.id] = f
    return loaded


def detection_table(folder: Path, ep: Episode, mode: str) -> DetectionTable | None:
    """The episode's detection file: ``auto`` = ``media.extra["detections"]`` or ``detections.jsonl``."""
    if mode == "none":
        return None
    if mode == "auto":
        rel = ep.media.extra.get("detections")
        path = folder / rel if rel else folder / "detections.jsonl"
        return DetectionTable.load(path, ep.fps) if path.is_file() else None
    path = Path(mode) if Path(mode).is_absolute() else folder / mode
    if not path.is_file():
        raise InputFileError(
            f"{path}: detection file not found for episode {ep.id} (--detections names a file inside each episode folder, or auto / none)"
        )
    return DetectionTable.load(path, ep.fps)


def sim_half_sizes(folder: Path, ep: Episode) -> dict[str, float]:
    """Object footprint half-sizes from a simulator's scene file (``media.extra["sim"]``: ``objects`` with
    ``id`` and ``radius``), when the episode has one."""
    rel = ep.media.extra.get("sim")
    if not rel or not (folder / rel).is_file():
        return {}
    doc = read_json_object(folder / rel)
    return {
        str(o["id"]): float(o["radius"])
        for o in doc.get("objects", [])
        if isinstance(o, dict) and "radius" in o
    }


def _episode_tracks(folder: Path, ep: Episode, cfg: BuildConfig) -> tuple[VisibilityTracks, bool]:
    """One episode's visibility tracks (the heavy, independent part of a build) and whether detections existed."""
    det = detection_table(folder, ep, cfg.detections)
    tracks = build_tracks(
        ep, root=folder, config=cfg.track, detections=det, half_sizes=sim_half_sizes(folder, ep)
    )
    return tracks, det is not None


def build_beyond3d(
    worlds: Sequence[str | Path],
    out: str | Path,
    cfg: BuildConfig = BuildConfig(),
    progress: Callable[[str], None] | None = None,
    *,
    executor: str = "local",
    address: str | None = None,
) -> BuildReport:
    """Build the benchmark from ``worlds`` into ``out`` (see the module docstring). Episode tracks are computed
    in-process or, with ``executor="ray"``, one Ray task per episode (same result either way)."""
    say = progress or (lambda _msg: None)
    out = Path(out)
    loaded = load_worlds(worlds)
    geo = [(f, ep) for f, ep in loaded if has_geometry(ep)]
    if not geo:
        return build_time_only(loaded, out, cfg, say)
    notes = [
        f"episode {ep.id} skipped: it lacks {geometry_missing(ep)}"
        for f, ep in loaded
        if not has_geometry(ep)
    ]
    with_fixtures = [ep for _, ep in geo if ep.fixtures]
    skipped = {} if with_fixtures else {NEAREST_FIXTURE: "no episode has fixtures (fixtures.jsonl)"}
    skipped |= metric_refusals([ep for _, ep in geo])
    tasks = [t for t in TASK_ORDER if t not in skipped]
    needs = Needs()
    contexts: list[EpisodeContext] = []
    oos, vis = [], []
    state_counts: Counter = Counter()
    detectors: Counter = Counter()
    depth: Counter = Counter()
    begin_write(out, "build beyond3d")
    (out / "build_report.json").unlink(missing_ok=True)  # an older build's report never outlives it
    computed = map_jobs(_episode_tracks, [(f, ep, cfg) for f, ep in geo], executor=executor, address=address)
    for i, ((folder, ep), (tracks, has_det)) in enumerate(zip(geo, computed, strict=True)):
        state_counts.update(tracks.state_counts())
        detectors["file" if has_det else "none"] += 1
        depth[tracks.depth_source] += 1
        ctx = EpisodeContext(
            episode=ep, tracks=tracks, cam=camera_coords(ep, tracks), video=link_video(out, folder, ep),
            counter_labels=counter_area_labels(ep.fixtures), events=episode_events(ep, tracks),
        )  # fmt: skip
        contexts.append(ctx)
        cands = out_of_sight_candidates(i, ep, tracks, cfg.seed, needs, cfg.min_horizon_s, cfg.per_key)
        if NEAREST_FIXTURE in tasks:
            ok: dict = {}
            cands = [c for c in cands if _has_fixture(ctx, c, ok)]
        oos += cands
        vis += visible_candidates(i, ep, tracks, cfg.seed, cfg.per_key)
        say(
            f"{ep.id}: {len(tracks.object_ids)} objects × {len(tracks.times)} steps, {len(cands)} anchor candidates"
        )
    if NEAREST_FIXTURE in tasks:
        sel, short = capped_selection(contexts, oos, cfg.anchors, cfg.seed, needs)
    else:
        sel, short = select_balanced(oos, cfg.anchors, cfg.seed, needs)
    wanted_controls = cfg.controls
    if short is not None:
        notes.append(shortfall_note(short, len(oos), sum(ep.duration_s for _, ep in geo) / 60))
        wanted_controls = round(cfg.controls * len(sel.anchors) / cfg.anchors) if cfg.anchors else 0
        notes.append(
            f"visible controls cut to {wanted_controls} of {cfg.controls} to keep the anchor : control ratio "
            "(visibility No / Yes)"
        )
    controls = select_controls(vis, wanted_controls)
    if len(controls) < wanted_controls:
        notes.append(f"only {len(controls)} of {wanted_controls} visible controls available")
    samples = _balanced_letters(_samples(contexts, sel, controls, tasks, cfg.seed), cfg.seed)
    if not samples:
        raise InputFileError(
            f"{out}: the worlds yield no questions — " + "; ".join(notes or ["no anchor candidates"])
        )
    builder = {
        "kind": "full",
        "anchors": cfg.anchors,
        "controls": cfg.controls,
        "anchors_built": len(sel.anchors),
        "controls_built": len(controls),
        "candidate_pool": sel.pool,
        "shortfall": None
        if short is None
        else {"wanted": short.wanted, "greedy": short.greedy, "delivered": short.delivered},
        "track": cfg.track.describe(),
        "depth_sources": dict(sorted(depth.items())),
        "detectors": dict(sorted(detectors.items())),
        "detections": cfg.detections,
        "min_horizon_s": cfg.min_horizon_s,
        "per_key": cfg.per_key,
        "state_counts": dict(sorted(state_counts.items())),
        "skipped": skipped,
        "distance_bins_m": [1.0, 1.5],
        "run_settings": RUN_HINTS,
    }
    bench = save(
        out,
        samples,
        tasks,
        builder,
        cfg,
        [source_hashes(f, ep) for f, ep in geo],
        "Beyond3D, built from worlds by egoworld",
    )
    report = BuildReport(
        bench=bench,
        tasks=[t for t in tasks if t in bench.manifest.tasks],
        skipped=skipped,
        notes=notes,
        anchors=len(sel.anchors),
        controls=len(controls),
        pool=sel.pool,
        shortfall=short,
    )
    write_json(
        out / "build_report.json",
        {
            "lines": report.lines()[1:],
            "balance": balance_summary(bench.samples),
            "letters": letter_counts(bench.samples),
        },
    )
    return report


def _balanced_letters(samples: list[Sample], seed: int) -> list[Sample]:
    """Gold positions balanced per (task, options); Nearest Fixture's then exchanged within each option
    count so that a blind guess of any gold label (falling back on a position) stays at chance."""
    return balance_label_guesses(balance_letters(samples, seed), NEAREST_FIXTURE)


def _has_fixture(ctx: EpisodeContext, c: Candidate, memo: dict) -> bool:
    """The anchor's fixture is known and its kitchen offers at least two options."""
    gold = fixture_at(ctx, c)
    if gold is None:
        return False
    if gold.id not in memo:
        opts = fixture_options(ctx.episode.fixtures, gold, seeded_rng(0, "check"), ctx.counter_labels)
        memo[gold.id] = opts is not None
    return memo[gold.id]


def _samples(contexts: list[EpisodeContext], sel, controls, tasks: list[str], seed: int) -> list[Sample]:
    items = [(c.episode, c.query_s, c.obj, 0, c) for c in sel.anchors] + [
        (c.episode, c.query_s, c.obj, 1, c) for c in controls
    ]
    out: list[Sample] = []
    plan = plan_questions(contexts, sel, seed) if NEAREST_FIXTURE in tasks else {}
    nf = {i: q.options for i, q in plan.items()}
    balance = _label_balance(plan) if plan else None
    for _, _, _, kind, c in sorted(items, key=lambda x: x[:4]):
        ctx = contexts[c.episode]
        if kind == 1:
            out.append(control_sample(ctx, c, seed))
        else:
            out += trajectory_samples(
                ctx, c, tasks=tuple(tasks), seed=seed, oo_cell=sel.oo_cell.get(c.id),
                lv_rank=sel.lv_rank.get(c.id), lp_rank=sel.lp_rank.get(c.id), nf_options=nf.get(c.id),
                nf_balance=balance,
            )  # fmt: skip
    return out


def _label_balance(plan: dict) -> LabelBalance:
    """The planned gold label of every Nearest Fixture question and the build's chance, for distractors
    that keep a constant-label guess at chance."""
    chance = sum(1 / q.options for q in plan.values()) / len(plan)
    return LabelBalance([q.gold for q in plan.values()], chance, [q.options for q in plan.values()])


def balance_summary(samples: Sequence[Sample]) -> dict:
    """Counts the balance rules are about: chronological rank per time task, gold class per 3D task,
    gold answer per visibility / fixture label."""
    out: dict[str, Counter] = {}
    for s in samples:
        c = out.setdefault(s.task, Counter())
        if "correct_rank" in s.metadata:
            c[f"rank {s.metadata['correct_rank']}"] += 1
        elif s.task in SPATIAL_TASKS:
            c[str(s.metadata["gold_class"])] += 1
        elif s.task == VISIBILITY:
            c["Yes" if s.metadata.get("visible") else "No"] += 1
        else:
            c[s.choices[s.answer]] += 1
    return {t: dict(sorted(c.items())) for t, c in out.items()}


def tracks_for(folder: Path, ep: Episode, cfg: BuildConfig = BuildConfig()) -> VisibilityTracks:
    """The tracks a build computes for one episode (for the audit and inspection)."""
    return build_tracks(
        ep, root=folder, config=cfg.track, detections=detection_table(folder, ep, cfg.detections)
    )
