"""`build_beyond3d`: episode folders → a Beyond3D benchmark folder.

A world with camera poses, a camera model and 3D object positions gets the full benchmark: visibility
tracks, out-of-sight anchors (8 questions each, one trajectory per anchor) and visible controls (the
visibility question). A world with movement times only (HD-EPIC ``assoc_info.json``) gets Last
Placement Time, text only (`egoworld.benchmarks.beyond3d.timeonly`); the report says which types were
skipped and why. Episodes with a video get ``media.video`` (clip ``0 → T_q``; the video is linked as
``videos/<episode><ext>``), so the same folder runs text-only, video + text and last frame + text.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from egoworld.benchmarks.beyond3d import (
    BENCHMARK_NAME,
    NEAREST_FIXTURE,
    SPATIAL_TASKS,
    TASK_ORDER,
    TASK_TITLES,
    VISIBILITY,
)
from egoworld.benchmarks.beyond3d.anchors import (
    Candidate,
    Needs,
    camera_coords,
    out_of_sight_candidates,
    select_controls,
    visible_candidates,
)
from egoworld.benchmarks.beyond3d.cues import apply_cues
from egoworld.benchmarks.beyond3d.detections import DetectionTable
from egoworld.benchmarks.beyond3d.fixtures import counter_area_labels, fixture_options
from egoworld.benchmarks.beyond3d.letters import balance_letters, letter_counts
from egoworld.benchmarks.beyond3d.questions import (
    EpisodeContext,
    control_sample,
    episode_events,
    fixture_at,
    trajectory_samples,
)
from egoworld.benchmarks.beyond3d.shortfall import Shortfall, select_balanced, shortfall_note
from egoworld.benchmarks.beyond3d.tracks import TrackConfig, VisibilityTracks, build_tracks
from egoworld.core.bench_folder import Benchmark, save_benchmark
from egoworld.core.files import InputFileError, read_json_object, write_json
from egoworld.core.hashing import seeded_rng, sha256_file
from egoworld.core.pool import map_jobs
from egoworld.core.schema import Sample, TaskInfo
from egoworld.world.episode import Episode
from egoworld.world.folder import find_episodes, load_episode

VIDEOS_DIR = "videos"
RUN_HINTS = {
    "text": "--setting text",
    "video+text": "--setting frames --frame-policy fps-end:1 --frames 1200 --overlays fisheye=0.9,timestamp",
    "last-frame+text": "--setting last-frame --overlays fisheye",
}


@dataclass(frozen=True)
class BuildConfig:
    """Builder options (recorded in ``manifest.json``)."""

    anchors: int = 1000
    controls: int = 1000
    seed: int = 0
    track: TrackConfig = TrackConfig()
    detections: str = "auto"
    cues: str | None = None
    min_horizon_s: float = 2.0
    per_key: int = 3


@dataclass
class BuildReport:
    """What a build made and left out."""

    bench: Benchmark
    tasks: list[str]
    skipped: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    anchors: int = 0
    controls: int = 0
    pool: int = 0
    shortfall: Shortfall | None = None

    def lines(self) -> list[str]:
        m = self.bench.manifest
        kind = (
            "anchors, Last Placement Time only"
            if m.builder.get("kind") == "movements-only"
            else "out-of-sight anchors"
        )
        out = [
            f"wrote {self.bench.root}: {len(self.bench.samples)} questions ({self.anchors} {kind}, {self.controls} visible controls)"
        ]
        out += [f"  {t:<26} {m.counts.get(t, 0):>6}  chance {m.tasks[t].chance:.1f}%" for t in self.tasks]
        out.append(f"  chance macro {m.builder.get('chance_macro', float('nan')):.1f}%")
        out += [f"  skipped {t}: {why}" for t, why in self.skipped.items()]
        out += [f"  note: {n}" for n in self.notes]
        return out


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


def has_geometry(ep: Episode) -> bool:
    """Camera model, poses and at least one 3D object position."""
    if ep.camera is None or ep.poses is None:
        return False
    return any(
        o.initial_position is not None or any(m.end_position is not None for m in o.movements)
        for o in ep.objects
    )


def geometry_missing(ep: Episode) -> str:
    parts = []
    if not any(
        o.initial_position is not None or any(m.end_position is not None for m in o.movements)
        for o in ep.objects
    ):
        parts.append("3D object positions")
    if ep.camera is None:
        parts.append("a camera model")
    if ep.poses is None:
        parts.append("camera poses")
    return ", ".join(parts)


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


def link_video(out: Path, folder: Path, ep: Episode) -> str | None:
    """Link the episode video as ``videos/<episode><ext>``; the sample path, or None without a video."""
    if not ep.media.video:
        return None
    src = Path(ep.media.video)
    src = src if src.is_absolute() else folder / src
    if not src.is_file():
        return None
    rel = f"{VIDEOS_DIR}/{ep.id}{src.suffix}"
    dst = out / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.is_symlink() or dst.exists():
        dst.unlink()
    os.symlink(src.resolve(), dst)
    return rel


def source_hashes(folder: Path, ep: Episode) -> dict:
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".json", ".jsonl"))
    return {"id": ep.id, "files": {p.name: sha256_file(p) for p in files}}


def chance_of(samples: Sequence[Sample]) -> dict[str, float]:
    """Per task: mean of 1 / (number of options), in percent — the expected accuracy of a uniform guess."""
    per: dict[str, list[float]] = {}
    for s in samples:
        per.setdefault(s.task, []).append(len(s.correct_indices) / len(s.choices or ()))
    return {t: round(100.0 * float(np.mean(v)), 4) for t, v in per.items()}


def save(
    out: Path,
    samples: list[Sample],
    tasks: list[str],
    builder: dict,
    cfg: BuildConfig,
    sources: list[dict],
    description: str,
) -> Benchmark:
    """Write the folder; tasks in paper order with their computed chance."""
    if not samples:
        raise InputFileError(
            f"{out}: the worlds yield no questions (no object qualifies as an anchor); see the notes above"
        )
    if cfg.cues:
        samples = apply_cues(samples, cfg.cues)
    chance = chance_of(samples)
    infos = {
        t: TaskInfo(answer_type="choice", metric="accuracy", title=TASK_TITLES[t], chance=chance.get(t))
        for t in TASK_ORDER
        if t in tasks and t in chance
    }
    builder = builder | {
        "chance_macro": round(float(np.mean([chance[t] for t in infos])), 4),
        "cues": cfg.cues,
    }
    return save_benchmark(
        out,
        name=BENCHMARK_NAME,
        tasks=infos,
        samples=samples,
        builder=builder,
        seed=cfg.seed,
        source={"episodes": sources},
        check_media=True,
        description=description,
        media_roots=sorted({s.media.video.path for s in samples if s.media.video is not None}),
    )


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
        from egoworld.benchmarks.beyond3d.timeonly import build_time_only

        return build_time_only(loaded, out, cfg, say)
    notes = [
        f"episode {ep.id} skipped: it lacks {geometry_missing(ep)}"
        for f, ep in loaded
        if not has_geometry(ep)
    ]
    with_fixtures = [ep for _, ep in geo if ep.fixtures]
    tasks = [t for t in TASK_ORDER if t != NEAREST_FIXTURE or with_fixtures]
    skipped = {} if with_fixtures else {NEAREST_FIXTURE: "no episode has fixtures (fixtures.jsonl)"}
    needs = Needs()
    contexts: list[EpisodeContext] = []
    oos, vis = [], []
    state_counts: Counter = Counter()
    detectors: Counter = Counter()
    depth: Counter = Counter()
    out.mkdir(parents=True, exist_ok=True)
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
    samples = balance_letters(_samples(contexts, sel, controls, tasks, cfg.seed), cfg.seed)
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
    for _, _, _, kind, c in sorted(items, key=lambda x: x[:4]):
        ctx = contexts[c.episode]
        if kind == 1:
            out.append(control_sample(ctx, c, seed))
        else:
            out += trajectory_samples(
                ctx, c, tasks=tuple(tasks), seed=seed, oo_cell=sel.oo_cell.get(c.id),
                lv_rank=sel.lv_rank.get(c.id), lp_rank=sel.lp_rank.get(c.id),
            )  # fmt: skip
    return out


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
