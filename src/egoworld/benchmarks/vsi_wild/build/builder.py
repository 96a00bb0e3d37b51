"""`build_vsi_wild`: VSI-Super-Wild questions (VMR, VPO, VOO, VOC) from panoramic walks, or the streaming-VOC
variant. Task rules: `vmr`, `vpo`, `voo`, `voc`, `streaming`; selection and letter balance: `balance`.

Output folder: ``manifest.json`` + ``samples.jsonl`` (byte-identical for the same worlds, options and seed),
``videos/<episode>_<view>.mp4`` (the view videos, hard-linked or copied) and ``images/…`` (VPO query
images). The manifest's ``builder`` block holds every option, the rules and the answer distributions.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME, TASK_ORDER, streaming
from egoworld.benchmarks.vsi_wild.build import seen_rule, vmr, voc, voo, vpo
from egoworld.benchmarks.vsi_wild.build.config import BuildConfig
from egoworld.benchmarks.vsi_wild.build.drafts import (
    Draft,
    interleave_balance,
    select,
    to_samples,
    trim_to_blocks,
)
from egoworld.benchmarks.vsi_wild.build.mixes import VMR_MIX, VOC_MIX, built_mixes, total_variation
from egoworld.benchmarks.vsi_wild.importer import TASKS
from egoworld.benchmarks.vsi_wild.timing import GROUP_NAMES
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import begin_write
from egoworld.core.schema import Sample, TaskInfo
from egoworld.world.episode_folder import find_episodes
from egoworld.world.walk_source import WalkSource, load_source

STREAM_TASKS = {
    "VOC": TaskInfo(answer_type="integer", metric="mra", title="Continuous object counting (streaming)")
}
Say = Callable[[str], None]
MIX_WARN_TV = 0.05  # a built mix further than this from the release's is reported as a shortfall


@dataclass
class BuildReport:
    bench: Benchmark
    seconds: dict[str, float] = field(default_factory=dict)
    candidates: dict[str, int] = field(default_factory=dict)
    images: int = 0
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        m = self.bench.manifest
        counts = ", ".join(f"{t} {n}" for t, n in m.counts.items())
        out = [f"wrote {self.bench.root}: {len(self.bench.samples)} questions ({counts})"]
        out += [f"  {t}: {n} candidates" for t, n in self.candidates.items()]
        out += [f"  {n}" for n in self.notes]
        for t, dist in m.answer_distribution.items():
            if m.tasks[t].answer_type == "choice":
                out.append(f"  {t} correct letters: {dist}")
        asked = m.builder.get("config", {}).get("per_task")
        for t, n in m.counts.items():
            if asked is not None and n < asked and not m.builder["config"].get("streaming"):
                why = " in the release's answer mix" if t == "VMR" else ""
                out.append(f"  WARNING: {t}: {n} questions of the {asked} asked (too few candidates{why})")
        built = built_mixes(self.bench.samples)
        for t, target in (("VMR", VMR_MIX), ("VOC", VOC_MIX)):
            if built[t]:
                tv = total_variation(built[t], target)
                out.append(f"  {t} answer mix: total variation {tv:.3f} from the release's")
                if tv > MIX_WARN_TV:
                    short = sorted(k for k in target if built[t].get(k, 0.0) < target[k] - 0.02)
                    out.append(
                        f"  WARNING: {t} is off the release's answer mix; too few candidates for {short}"
                    )
        return out


def find_walks(worlds: Sequence[str | Path]) -> list[Path]:
    """Episode folders under the given paths (each a folder or a folder of folders), sorted, unique."""
    found: list[Path] = []
    for w in worlds:
        eps = find_episodes(w)
        if not eps:
            raise InputFileError(f"{w}: no episode folders (episode.json) found")
        found.extend(eps)
    return sorted(set(found))


def _place_video(src: WalkSource, view: str, out: Path, mode: str) -> str:
    """The path samples use for a view video (copied / hard-linked into ``videos/`` by default)."""
    path = src.views[view].path
    if mode == "absolute":
        return str(path.resolve())
    rel = f"videos/{src.video_id(view)}.mp4"
    dest = out / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists() or dest.is_symlink():
        dest.unlink()
    try:
        os.link(path, dest)
    except OSError:
        shutil.copyfile(path, dest)
    return rel


def _source_entry(src: WalkSource) -> dict[str, Any]:
    files = {"episode": src.folder / "episode.json", "poses": src.folder / "poses.jsonl"}
    files |= {k: src.folder / src.episode.media.extra[k] for k in ("appearances", "place_visits")}
    files |= {v: src.views[v].path for v in src.views} | (
        {"pano": src.pano} if src.panoramic else {"video": src.pano}
    )
    entry = {"episode": src.id} | {k: sha256_file(p) for k, p in files.items() if p.is_file()}
    entry |= {"loader": src.episode.source["loader"]} if src.episode.source.get("loader") else {}
    reviews = src.episode.source.get("reviews")
    return entry | ({"reviews": reviews} if reviews else {})


def _distributions(samples: Sequence[Sample]) -> dict[str, Any]:
    """What the manifest documents beyond the letter counts: answers, views and duration groups per task."""
    keys = {
        "VMR": ("direction", "option_set"),
        "VOO": ("order_by",),
        "VOC": ("count_bin",),
        "VPO": ("order",),
    }
    out: dict[str, Any] = {}
    for task in dict.fromkeys(s.task for s in samples):
        rows = [s for s in samples if s.task == task]
        d: dict[str, Any] = {}
        for k in (*keys.get(task, ()), "view", "duration_group"):
            values = [s.metadata.get(k) for s in rows]
            values = ["".join(map(str, v)) if isinstance(v, list) else v for v in values]
            counts = Counter(str(v) for v in values if v is not None)
            order = list(GROUP_NAMES) if k == "duration_group" else sorted(counts)
            d[k] = {g: counts[g] for g in order if g in counts}
        if rows[0].answer_type == "integer":
            ans = np.array([float(s.answer) for s in rows])
            d["answer"] = {
                "min": int(ans.min()),
                "median": float(np.median(ans)),
                "mean": round(float(ans.mean()), 3),
                "max": int(ans.max()),
            }
        out[task] = d
    return out


def view_drafts(
    task: str, src: WalkSource, view: str, path: str, cfg: BuildConfig, left_out: dict[str, int] | None = None
) -> list[Draft]:
    """The candidate questions of one task over one view video (before selection); ``left_out`` counts
    VMR moments left out for untrusted poses, by reason. VPO needs a panorama: none from a perspective walk."""
    if task == "VMR":
        return vmr.drafts(src, view, path, cfg.vmr, cfg.seed, left_out)
    if task == "VPO":
        if not src.panoramic:
            return []
        return vpo.drafts(src, view, path, cfg.vpo, cfg.frames, cfg.seed)
    if task == "VOO":
        return voo.drafts(src, view, path, cfg.voo, cfg.frames, cfg.seed)
    return voc.drafts(src, view, path)


def _task_drafts(
    task: str, srcs: list[WalkSource], paths: dict, cfg: BuildConfig, left_out: dict[str, int] | None = None
) -> list[Draft]:
    return [
        d
        for src in srcs
        for v in src.views
        for d in view_drafts(task, src, v, paths[(src.id, v)], cfg, left_out)
    ]


def objectless(srcs: list[WalkSource]) -> list[str]:
    """Episodes perceived trajectory-only (``world perceive`` without ``--detector``): no objects."""
    return [s.id for s in srcs if (s.episode.meta.get("perception") or {}).get("appearances", {}) is None]


def perspective_notes(srcs: list[WalkSource], cfg: BuildConfig) -> list[str]:
    """What perspective walks (one view, no panorama) cannot give: VPO's rotated query images."""
    flat = [s.id for s in srcs if not s.panoramic]
    if not flat or cfg.streaming or "VPO" not in cfg.tasks:
        return []
    what = "not built" if len(flat) == len(srcs) else f"built from {len(srcs) - len(flat)} episode(s) only"
    return [f"VPO: {what} — {len(flat)} of {len(srcs)} episode(s) are perspective videos "
            f"({', '.join(flat[:5])}{', …' if len(flat) > 5 else ''}: one view, no 360° panorama); VPO re-renders "
            "its query frames 30–60° away from the view, which needs a panorama: record a 360° walk for VPO"]  # fmt: skip


def _choose(task: str, drafts: list[Draft], cfg: BuildConfig) -> list[Draft]:
    """Selection, exact balance blocks and file order of one task's questions."""
    if task == "VOC":
        return select(drafts, cfg.per_task, cfg.seed, task, VOC_MIX)
    if task == "VOO":
        chosen = select(drafts, None, cfg.seed, task)
        if not cfg.voo.equal_kinds and cfg.per_task is None:
            return interleave_balance(trim_to_blocks(chosen))
        n_kind = min(sum(d.balance == k for d in chosen) for k in voo.KINDS)
        if cfg.per_task is not None:
            n_kind = min(n_kind, cfg.per_task // 2)
        n_kind -= n_kind % 4
        seen: Counter[str] = Counter()
        kept = []
        for d in chosen:
            if seen[d.balance] < n_kind:
                kept.append(d)
                seen[d.balance] += 1
        return interleave_balance(kept)
    if task == "VMR":
        return vmr.choose(drafts, cfg.per_task, cfg.seed)
    chosen = trim_to_blocks(select(drafts, cfg.per_task, cfg.seed, task))
    return vpo.balance_orders(chosen, cfg.seed)


def _stream_choose(srcs: list[WalkSource], paths: dict, cfg: BuildConfig) -> list[Draft]:
    groups = [
        g for src in srcs for v in src.views for g in streaming.groups(src, v, paths[(src.id, v)], cfg.stream)
    ]
    heads = {g[0].id: g for g in groups}
    n = None if cfg.per_task is None else max(1, cfg.per_task // len(cfg.stream.fractions))
    chosen = select([g[0] for g in groups], n, cfg.seed, "VOC-stream")
    return [d for head in chosen for d in heads[head.id]]


def build_vsi_wild(
    worlds: Sequence[str | Path], out: str | Path, cfg: BuildConfig | None = None, say: Say | None = None
) -> BuildReport:
    """Build the benchmark (or, with ``cfg.streaming``, the streaming-VOC variant) into ``out``."""
    cfg = cfg or BuildConfig()
    say = say or (lambda _m: None)
    if cfg.frames < 2:
        raise ValueError(f"frames must be at least 2, got {cfg.frames}")
    unknown = set(cfg.tasks) - set(TASK_ORDER)
    if unknown:
        raise ValueError(f"unknown tasks {sorted(unknown)} (known: {', '.join(TASK_ORDER)})")
    fr = cfg.stream.fractions
    if cfg.streaming and (not fr or any(not 0 < f <= 1 for f in fr) or list(fr) != sorted(set(fr))):
        raise ValueError(f"streaming query fractions must be increasing values in (0, 1], got {list(fr)}")
    out = Path(out)
    if (out / "videos").is_symlink():
        raise InputFileError(
            f"{out / 'videos'} links to another folder of videos (an imported benchmark); choose another --out"
        )
    t0 = time.perf_counter()
    loaded = [seen_rule.apply(load_source(f), cfg.visibility) for f in find_walks(worlds)]
    srcs = [s for s, _ in loaded]
    ids = Counter(s.id for s in srcs)
    if any(n > 1 for n in ids.values()):
        repeated = sorted(i for i, n in ids.items() if n > 1)
        raise InputFileError(f"episode ids must be unique across --world folders; repeated: {repeated}")
    begin_write(out, "build vsi-wild")
    if (out / "images").is_dir():
        shutil.rmtree(out / "images")
    paths = {(s.id, v): _place_video(s, v, out, cfg.media) for s in srcs for v in s.views}
    report_seconds = {"load": time.perf_counter() - t0}
    candidates: dict[str, int] = {}
    samples: list[Sample] = []
    images = 0
    notes: list[str] = []
    seen = seen_rule.note([t for _, t in loaded], cfg.visibility)
    if seen:
        notes.append(seen)
        say(seen)
    bare = objectless(srcs)
    if bare and not cfg.streaming:
        cannot = [t for t in ("VOO", "VOC") if t in cfg.tasks]
        if cannot:
            what = (
                "not built"
                if len(bare) == len(srcs)
                else f"built from {len(srcs) - len(bare)} episode(s) only"
            )
            notes.append(f"{'/'.join(cannot)}: {what} — {len(bare)} of {len(srcs)} episode(s) have no objects "
                         f"({', '.join(bare[:5])}{', …' if len(bare) > 5 else ''}: perceived trajectory-only, "
                         "without --detector); perceive them with --detector to build these tasks")  # fmt: skip
            say(notes[-1])
    for note in perspective_notes(srcs, cfg):
        notes.append(note)
        say(note)
    if cfg.streaming:
        t = time.perf_counter()
        chosen = _stream_choose(srcs, paths, cfg)
        samples = to_samples(chosen, cfg.seed, "integer")
        tasks = STREAM_TASKS
        report_seconds["VOC-stream"] = time.perf_counter() - t
    else:
        for task in (t for t in TASK_ORDER if t in cfg.tasks):
            t = time.perf_counter()
            left_out: dict[str, int] = {}
            drafts = _task_drafts(task, srcs, paths, cfg, left_out)
            candidates[task] = len(drafts)
            if left_out:
                why = ", ".join(f"{n} {r}" for r, n in sorted(left_out.items()))
                notes.append(f"{task}: {sum(left_out.values())} candidate moments left out where the poses "
                             f"cannot be trusted ({why}; meta.perception.poses.check, pose_flags)")  # fmt: skip
                say(notes[-1])
            chosen = _choose(task, drafts, cfg)
            if task == "VPO":
                by_src = {s.id: s for s in srcs}
                for sid in dict.fromkeys(d.cluster for d in chosen):
                    images += vpo.render_images(by_src[sid], [d for d in chosen if d.cluster == sid], out)
            samples += to_samples(chosen, cfg.seed, TASKS[task].answer_type)
            report_seconds[task] = time.perf_counter() - t
            say(f"{task}: {len(chosen)} of {len(drafts)} candidates")
        present = {s.task for s in samples}
        tasks = {t: TASKS[t] for t in TASK_ORDER if t in present}
    if not samples:
        raise InputFileError(
            "no questions could be built from these worlds (too short, or no motion / objects)"
            + "".join(f"; {n}" for n in notes)
        )
    builder = {
        "builder": "vsi-wild",
        "config": cfg.to_json(),
        "rules": RULES,
        "distributions": _distributions(samples),
    } | ({"notes": notes} if notes else {})
    t = time.perf_counter()
    bench = save_benchmark(
        out,
        name=BENCHMARK_NAME,
        tasks=tasks,
        samples=samples,
        builder=builder,
        seed=cfg.seed,
        source={
            "generator": "egoworld.benchmarks.vsi_wild.build",  # recorded in manifests: kept across module moves
            "worlds": [_source_entry(s) for s in srcs],
        },
        description="VSI-Super-Wild, streaming VOC"
        if cfg.streaming
        else "VSI-Super-Wild, built from panoramic walks",
        check_media=True,
        media_roots=sorted({os.path.dirname(p) for p in paths.values() if os.path.isabs(p)}),
    )
    report_seconds["save"] = time.perf_counter() - t
    return BuildReport(bench, report_seconds, candidates, images, notes)


RULES = {
    "VMR": "answer = horizontal displacement over t±W in the view frame at t; every segment ≥ min_speed and within "
    "max_turn of it, camera yaw change ≤ max_turn; within max_off of a cardinal or diagonal centre (that set "
    "gives the options); moments ≥ edge_s from the video ends, ≥ min_separation_s apart",
    "VPO": "4 distinct places with non-overlapping spans; query frames ≥ min_gap_frames·Δ apart, each inside a "
    "visit holding a sampled frame; image = panorama at view yaw ± U(30°, 60°); options are frame orders (all 24, as in "
    "the release); correct orders cycle through the 24 in seeded blocks, distractors uniform over the other 23",
    "VOO": "category events (first: earliest first_s; last: latest last_s) ≥ min_gap_frames·Δ apart and seen in "
    "the same order at distinct frames of the N uniform frames; first and last in equal numbers",
    "VOC": "unique instances of the category with an appearance in the view video",
    "visibility": "an appearance counts (VOC, VOO; truth and perceived alike) when its largest visible size is ≥ "
    "min_visible_px pixels of area at the view video's size and it is visible ≥ min_visible_s (Σ end − start "
    "+ one frame per interval); a row without a size is kept and reported as unmeasured",
    "balance": "correct letter cycles A–D in seeded blocks of 4 per task (and per VOO kind); MC tasks trimmed to "
    "multiples of 4",
    "frames": "Δ = view duration / (frames − 1), the spacing of the uniform evaluation frames",
}
