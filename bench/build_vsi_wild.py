"""Bench: VSI-Super-Wild built from synthetic walks in every duration group (6, 15, 40, 75 and 125 minutes; the
long ones at 0.05–0.1 fps), on at most 2 cores: walk synthesis, the build (per stage), a second build (checked
byte-identical), the streaming-VOC variant, and a random Shuffle24 run + score over the result.

Walks are made at bench time into a cache folder (reused by later runs; synthesis is timed only when it
runs). Environment: EGOWORLD_BENCH_DIR (default <tmp>/egoworld-bench-vsi-wild), VSI_PANO_WIDTH (256),
VSI_VIEW_SIZE (64), VSI_PER_TASK (1000), EGOWORLD_DATA (<repo>/../shared/data: the official QA file the
answer mixes are compared with). Ends with one JSON line of figures; ``answer_mix`` holds the built VMR
direction and VOC count-bin shares, their total-variation distances to the release and the KS distance of
the VPO rotations to U(30°, 60°).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

VERSION = "w2"  # bump when the walk generator changes (cached walks are reused by name)


def two_cores() -> int:
    """Pin this process to at most 2 cores (numpy threads too); returns the number used."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "2")
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cores)
        return len(cores)
    return min(2, os.cpu_count() or 1)


def folder_bytes(root: Path, pattern: str = "*") -> tuple[int, int]:
    files = [p for p in root.rglob(pattern) if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def answer_mix(samples: list) -> dict:
    """Built mixes and their distances to the official release (None, said on stderr, without the file)."""
    from egoworld.benchmarks.vsi_wild.build.mixes import (
        built_mixes,
        release_mixes,
        total_variation,
        uniform_ks,
    )

    built = built_mixes(samples)
    offsets = [abs(o) for s in samples if s.task == "VPO" for o in s.metadata["yaw_offset_deg"]]
    out: dict = {
        "built": {t: {k: round(v, 4) for k, v in m.items()} for t, m in built.items()},
        "vpo_yaw_ks_uniform_30_60": round(uniform_ks(offsets, 30, 60), 4) if offsets else None,
    }
    data = Path(
        os.environ.get("EGOWORLD_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
    qa = data / "vsi-super-wild" / "vsi_super_wild_qa.jsonl"
    if not qa.is_file():
        print(f"answer mix: {qa} not found, no distance to the release", file=sys.stderr)
        out["tv_to_release"] = None
        return out
    release = release_mixes(qa)
    out["tv_to_release"] = {t: round(total_variation(built[t], release[t]), 4) for t in ("VMR", "VOC", "VPO")}
    return out


def main() -> None:
    cores = two_cores()
    from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig
    from egoworld.core.folders.hashing import sha256_file
    from egoworld.core.run_config import RunConfig
    from egoworld.demo.vsi_wild import WALKS, synth_walks
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    pano, view = int(os.environ.get("VSI_PANO_WIDTH", 256)), int(os.environ.get("VSI_VIEW_SIZE", 64))
    per_task = int(os.environ.get("VSI_PER_TASK", 1000))
    root = Path(
        os.environ.get("EGOWORLD_BENCH_DIR") or Path(tempfile.gettempdir()) / "egoworld-bench-vsi-wild"
    )
    walks = root / f"walks-{VERSION}-{pano}-{view}"
    t = time.perf_counter()
    if not (walks / ".complete").is_file():
        shutil.rmtree(walks, ignore_errors=True)
        synth_walks(walks, pano_width=pano, view_size=view)
        (walks / ".complete").write_text("ok\n")
        synth_s: float | None = time.perf_counter() - t
    else:
        synth_s = None
    frames = sum(round(m * 60 * f) for _, m, f in WALKS)
    print(
        f"walks: {len(WALKS)} ({frames} panorama frames, {pano} px wide, views {view} px) — synth {synth_s} s",
        file=sys.stderr,
    )

    cfg = BuildConfig(per_task=per_task)
    builds = []
    for name in ("a", "b"):
        out = root / f"bench-{name}"
        shutil.rmtree(out, ignore_errors=True)
        t = time.perf_counter()
        report = build_vsi_wild([walks], out, cfg)
        builds.append((out, report, time.perf_counter() - t))
    (a, rep, build_s), (b, _, rebuild_s) = builds
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    identical = files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file()) and all(
        sha256_file(a / f) == sha256_file(b / f) for f in files
    )
    for line in rep.lines():
        print(line, file=sys.stderr)
    t = time.perf_counter()
    stream = build_vsi_wild([walks], root / "bench-stream", BuildConfig(per_task=per_task, streaming=True))
    stream_s = time.perf_counter() - t
    run_dir = root / "run-random"
    shutil.rmtree(run_dir, ignore_errors=True)
    t = time.perf_counter()
    run = run_benchmark(
        RunConfig(
            bench=a, model="random", out=run_dir, permutations="shuffle24", progress=False, concurrency=4
        )
    )
    summary = score_run(run_dir)
    run_s = time.perf_counter() - t
    n_img, img_bytes = folder_bytes(a / "images")
    n_vid, vid_bytes = folder_bytes(a / "videos")
    m = rep.bench.manifest
    figures = {
        "bench": "build_vsi_wild",
        "cores": cores,
        "walks": [f"{ep}:{mins:g}min@{fps:g}fps" for ep, mins, fps in WALKS],
        "pano_width": pano,
        "view_size": view,
        "per_task": per_task,
        "synth_s": None if synth_s is None else round(synth_s, 2),
        "build_s": round(build_s, 2),
        "build_stages_s": {k: round(v, 3) for k, v in rep.seconds.items()},
        "rebuild_s": round(rebuild_s, 2),
        "byte_identical": identical,
        "questions": len(rep.bench.samples),
        "questions_per_s": round(len(rep.bench.samples) / build_s, 1),
        "counts": m.counts,
        "candidates": rep.candidates,
        "letters": {t: d for t, d in m.answer_distribution.items() if t != "VOC"},
        "voo_order_by": m.builder["distributions"]["VOO"]["order_by"],
        "answer_mix": answer_mix(rep.bench.samples),
        "duration_groups": {t: d["duration_group"] for t, d in m.builder["distributions"].items()},
        "vpo_images": n_img,
        "images_mb": round(img_bytes / 2**20, 2),
        "videos_mb": round(vid_bytes / 2**20, 2),
        "samples_kb": round((a / "samples.jsonl").stat().st_size / 1024, 1),
        "streaming_questions": len(stream.bench.samples),
        "streaming_build_s": round(stream_s, 2),
        "random_shuffle24_requests": run.planned,
        "random_shuffle24_run_score_s": round(run_s, 2),
        "random_overall": summary["overall"],
        "random_order_bias_std": {t: round(v["order_bias_std"], 2) for t, v in summary["shuffle24"].items()},
    }
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
