"""Bench: 128 exact frames (uniform rule) from 10-minute 1080p H.264 videos, GOP 2 s and GOP 10 s.

Compares egoworld's decoder (seek-or-continue per target, frames resized as decoded, the plan's runs split
over one single-threaded decoder per core) with a PyAV sequential decode (same thread budget: FFmpeg's
automatic frame threads, one per core; only the targets are converted, at the same size) and decord when it
is installed. Each measurement runs in a fresh process, so its peak RSS is
its own. The videos (burned-in frame counter, moving textured content, B-frames) are generated at bench time
into a temporary folder and reused by later runs; nothing is committed.

Environment: EGOWORLD_BENCH_MINUTES (default 10), EGOWORLD_BENCH_DIR (default: <tmp>/egoworld-bench-media).
Ends with one JSON line of the figures.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FPS = 30
SIZE = (1920, 1080)
FRAMES = 128
MAX_PIXELS = 448 * 448
GOPS = {"gop2s": 2 * FPS, "gop10s": 10 * FPS}
CONTENT = "grain2"  # bump when testvideo's content changes (cached videos are reused by name)


def bench_dir() -> Path:
    d = Path(os.environ.get("EGOWORLD_BENCH_DIR") or Path(tempfile.gettempdir()) / "egoworld-bench-media")
    d.mkdir(parents=True, exist_ok=True)
    return d


def make_video(name: str, gop: int, minutes: float) -> Path:
    from egoworld.media.testvideo import write_counter_video

    frames = int(minutes * 60 * FPS)
    path = bench_dir() / f"{name}_{frames}f_1080p_{CONTENT}.mp4"
    if path.is_file():
        return path
    tmp = path.with_suffix(".part.mp4")
    start = time.perf_counter()
    step = max(1, frames // 10)

    def progress(done: int) -> None:
        if done % step == 0 or done == frames:
            rate = done / (time.perf_counter() - start)
            print(f"  generating {path.name}: {done}/{frames} frames ({rate:.0f} fps)", flush=True)

    write_counter_video(
        tmp,
        frames=frames,
        fps=FPS,
        size=SIZE,
        gop=gop,
        bframes=2,
        preset="superfast",
        detail=True,
        progress=progress,
    )
    tmp.rename(path)
    return path


def measure(method: str, path: str) -> dict:
    """One measurement (run in a child process): time, exactness, decoded frames, peak RSS."""
    import numpy as np

    from egoworld.media.decoder import DecodeStats, interpolation
    from egoworld.media.index import probe
    from egoworld.media.overlays import output_size
    from egoworld.media.parallel import decode_parallel
    from egoworld.media.policies import uniform_offsets
    from egoworld.media.testvideo import read_counter

    start = time.perf_counter()
    index = probe(path)
    probe_s = time.perf_counter() - start
    targets = uniform_offsets("uniform", index.count, FRAMES)
    size = output_size(index.width, index.height, MAX_PIXELS)
    got: list[int] = []
    decoded = 0
    t0 = time.perf_counter()
    if method == "ours":
        stats = DecodeStats()
        found = {
            i: read_counter(img) for i, img in decode_parallel(path, index, targets, size=size, stats=stats)
        }
        got = [found.get(t, -1) for t in targets]
        decoded = stats.frames
    elif method == "pyav-seq":
        import av

        wanted = set(targets)
        with av.open(path) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            stream.codec_context.thread_count = 0
            interp = interpolation()
            for pos, frame in enumerate(container.decode(stream)):
                decoded += 1
                if pos in wanted:
                    img = frame.to_ndarray(
                        width=size[0], height=size[1], format="rgb24", interpolation=interp
                    )
                    got.append(read_counter(img))
                if pos >= targets[-1]:
                    break
    elif method == "decord":
        import decord

        vr = decord.VideoReader(path, ctx=decord.cpu(0), width=size[0], height=size[1])
        batch = vr.get_batch(targets).asnumpy()
        got = [read_counter(np.asarray(img)) for img in batch]
        decoded = -1  # decord does not report it
    else:
        raise ValueError(method)
    seconds = time.perf_counter() - t0
    return {
        "method": method,
        "seconds": seconds + (probe_s if method == "ours" else 0.0),
        "probe_s": probe_s if method == "ours" else 0.0,
        "exact": sum(g == t for g, t in zip(got, targets, strict=False)),
        "frames": len(targets),
        "decoded": decoded,
        "minimum": index.theoretical_minimum(targets),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_child(method: str, path: Path) -> dict | None:
    proc = subprocess.run(
        [sys.executable, __file__, "--measure", method, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        print(
            f"  {method}: failed ({proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode})"
        )
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    minutes = float(os.environ.get("EGOWORLD_BENCH_MINUTES", "10"))
    try:
        import decord  # noqa: F401

        methods = ["ours", "pyav-seq", "decord"]
    except ImportError:
        methods = ["ours", "pyav-seq"]
        print("decord is not installed (pip install decord): compared with PyAV only")
    print(
        f"{FRAMES} frames, uniform rule, {SIZE[0]}x{SIZE[1]} H.264 {FPS} fps, {minutes:g} min, budget {MAX_PIXELS} px"
    )
    rows = []
    for name, gop in GOPS.items():
        path = make_video(name, gop, minutes)
        for method in methods:
            r = run_child(method, path)
            if r is not None:
                rows.append({"video": name, **r})
    figures: dict[str, float] = {"minutes": minutes, "frames": FRAMES}
    print()
    print(
        f"{'video':<8} {'method':<9} {'seconds':>8} {'speedup':>8} {'exact':>8} {'decoded':>8} {'minimum':>8} {'dec/min':>8} {'peak MB':>8}"
    )
    for name in GOPS:
        seq = next((r for r in rows if r["video"] == name and r["method"] == "pyav-seq"), None)
        ours = next((r for r in rows if r["video"] == name and r["method"] == "ours"), None)
        for r in (x for x in rows if x["video"] == name):
            speed = seq["seconds"] / r["seconds"] if seq else float("nan")
            ratio = r["decoded"] / r["minimum"] if r["decoded"] > 0 else float("nan")
            decoded = str(r["decoded"]) if r["decoded"] >= 0 else "n/a"
            print(
                f"{name:<8} {r['method']:<9} {r['seconds']:>8.2f} {speed:>7.2f}x {r['exact']:>4}/{r['frames']:<3} "
                f"{decoded:>8} {r['minimum']:>8} {ratio:>8.3f} {r['peak_rss_mb']:>8.0f}"
            )
            figures[f"{name}_{r['method']}_s"] = round(r["seconds"], 3)
            figures[f"{name}_{r['method']}_exact"] = r["exact"]
            figures[f"{name}_{r['method']}_peak_rss_mb"] = round(r["peak_rss_mb"], 1)
        if ours and seq:
            figures[f"{name}_speedup_vs_pyav_seq"] = round(seq["seconds"] / ours["seconds"], 3)
            figures[f"{name}_decoded_over_minimum"] = round(ours["decoded"] / ours["minimum"], 3)
            figures[f"{name}_ours_probe_s"] = round(ours["probe_s"], 3)
        dec = next((r for r in rows if r["video"] == name and r["method"] == "decord"), None)
        if ours and dec:
            figures[f"{name}_speedup_vs_decord"] = round(dec["seconds"] / ours["seconds"], 3)
    print("(seconds include building the frame table for ours; speedup = PyAV sequential time / this time)")
    print(json.dumps({"bench": "frames", **figures}, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], sys.argv[3])))
    else:
        main()
