"""What both Beyond3D builders share (`egoworld.benchmarks.beyond3d.build.builder` for worlds with 3D geometry,
`egoworld.benchmarks.beyond3d.build.time_only` for movement times only): the options, the report, the geometry
check, the linked episode videos, the source hashes and writing the benchmark folder."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from egoworld.benchmarks.beyond3d import BENCHMARK_NAME, TASK_ORDER, TASK_TITLES
from egoworld.benchmarks.beyond3d.build.cues import apply_cues
from egoworld.benchmarks.beyond3d.build.shortfall import Shortfall
from egoworld.benchmarks.beyond3d.build.visibility_tracks import TrackConfig
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.schema import Sample, TaskInfo
from egoworld.world.episode import Episode

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


def has_geometry(ep: Episode) -> bool:
    """Camera model, poses and at least one 3D object position."""
    if ep.camera is None or ep.poses is None:
        return False
    return any(
        o.initial_position is not None or any(m.end_position is not None for m in o.movements)
        for o in ep.objects
    )


def metric_poses(ep: Episode) -> bool:
    """Whether the episode's positions are metres: True unless a perceived trajectory says it has no scale
    (``meta["perception"]["poses"]["metric"]``; monocular COLMAP or odometry without ``--scale``)."""
    return bool(ep.meta.get("perception", {}).get("poses", {}).get("metric", True))


def metric_refusals(episodes: Sequence[Episode]) -> dict[str, str]:
    """The question types that need metres, each with why they are refused, when an episode is not metric."""
    from egoworld.benchmarks.beyond3d import OC_DISTANCE, OO_DISTANCE

    unscaled = [ep.id for ep in episodes if not metric_poses(ep)]
    if not unscaled:
        return {}
    names = ", ".join(unscaled[:3]) + (f" and {len(unscaled) - 3} more" if len(unscaled) > 3 else "")
    why = (
        f"needs metres (bins under 1 m / 1–1.5 m / 1.5 m or more) but the trajectory of {names} has no metric "
        "scale; perceive with --scale M_PER_UNIT or import an Aria MPS trajectory"
    )
    return {OC_DISTANCE: why, OO_DISTANCE: why}


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
    entry = {"id": ep.id, "files": {p.name: sha256_file(p) for p in files}}
    entry |= {"loader": ep.source["loader"]} if ep.source.get("loader") else {}  # what the build is (report)
    reviews = ep.source.get("reviews")  # applied by `egoworld world fix`
    return entry | ({"reviews": reviews} if reviews else {})


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
