"""Bench: 128 exact frames (uniform rule) from 10-minute 1080p H.264 videos, GOP 2 s and GOP 10 s.

Methods, each measured in a fresh process (so its peak RSS, VmHWM, is its own), all with the same thread budget and
the frames at the same output size (448 × 448 pixel budget):

* ``ours``: egoworld's decoder (seek-or-continue per target, non-reference frames discarded while the next
  target is ahead, frames resized as decoded, the plan's runs split over one single-threaded decoder per
  core); its seconds include building the frame table;
* ``ours-noskip``: the same without discarding non-reference frames (what the skip saves);
* ``pyav-seq``: PyAV decoding sequentially up to the last target with FFmpeg's frame threads (one per core);
* ``decord``: ``VideoReader(width, height).get_batch`` (when installed);
* ``torchcodec``: ``VideoDecoder(seek_mode="exact", device="cpu")`` with its resize transform,
  ``get_frames_at`` (when installed; see DEVELOPERS.md);
* ``limit``: the decode limit: the frames any decoder must decode (reference frames up to each target and
  the targets) times the single-thread decoding time per such frame, spread over the cores.

Every method's frames are checked against the burned-in counter (``exact`` = frames that show the right
index). The videos (burned-in counter, moving textured content, B-frames) are generated at bench time into a
temporary folder and reused by later runs; nothing is committed.

Environment: EGOWORLD_BENCH_MINUTES (default 10), EGOWORLD_BENCH_FRAMES (default 128), EGOWORLD_BENCH_DIR
(default: <tmp>/egoworld-bench-media), EGOWORLD_BENCH_METHODS (comma-separated subset), EGOWORLD_BENCH_REPEAT
(rounds over all methods, default 1; each method's fastest round counts, with its worst exactness and highest
peak: use 2-3 on a shared machine). A quicker run at the same spacing of targets (about 140 frames apart, so
the same share of each GOP is decoded): EGOWORLD_BENCH_MINUTES=2 EGOWORLD_BENCH_FRAMES=26.

Ends with one JSON line: per GOP, each method's seconds, peak MB and exact count, and egoworld's speed ratio
against each (``<gop>_ours_vs_<method>`` = that method's seconds / ours; for ``limit``: ours / limit), and
the issue's targets as true/false.
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
FRAMES = int(os.environ.get("EGOWORLD_BENCH_FRAMES", "128"))
MAX_PIXELS = 448 * 448
GOPS = {"gop2s": 2 * FPS, "gop10s": 10 * FPS}
CONTENT = "grain2"  # bump when testvideo's content changes (cached videos are reused by name)


def bench_dir() -> Path:
    d = Path(os.environ.get("EGOWORLD_BENCH_DIR") or Path(tempfile.gettempdir()) / "egoworld-bench-media")
    d.mkdir(parents=True, exist_ok=True)
    return d


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: the child's own address space; ``ru_maxrss`` would
    carry the parent's peak over the fork and exec that started it)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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
    from egoworld.media.decoder import DecodeStats, interpolation
    from egoworld.media.index import probe
    from egoworld.media.overlays import output_size
    from egoworld.media.parallel import decode_parallel, default_workers
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
    if method in ("ours", "ours-noskip"):
        stats = DecodeStats()
        frames = decode_parallel(path, index, targets, size=size, stats=stats, skip_nonref=method == "ours")
        found = {i: read_counter(img) for i, img in frames}
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
        got = [read_counter(img) for img in batch]
        decoded = -1  # decord does not report it
    elif method == "torchcodec":
        from torchcodec.decoders import VideoDecoder
        from torchcodec.transforms import Resize

        decoder = VideoDecoder(
            path,
            device="cpu",
            seek_mode="exact",
            num_ffmpeg_threads=0,
            dimension_order="NHWC",
            transforms=[Resize(size=(size[1], size[0]))],
        )
        for t in range(0, len(targets), 32):  # batches of 32: a batch of 128 1080p frames is 800 MB
            batch = decoder.get_frames_at(indices=targets[t : t + 32]).data
            got.extend(read_counter(img.numpy()) for img in batch)
        decoded = -1
    elif method == "limit":
        return {"method": method, **decode_limit(path, index, targets, default_workers())}
    else:
        raise ValueError(method)
    seconds = time.perf_counter() - t0
    ours = method.startswith("ours")
    return {
        "method": method,
        "seconds": seconds + (probe_s if ours else 0.0),
        "probe_s": probe_s if ours else 0.0,
        "exact": sum(g == t for g, t in zip(got, targets, strict=False)),
        "frames": len(targets),
        "decoded": decoded,
        "minimum": index.theoretical_minimum(targets),
        "peak_rss_mb": peak_rss_mb(),
    }


def decode_limit(path: str, index, targets: list[int], workers: int, sample: int = 600) -> dict:
    """The decode limit: minimum frames × single-thread seconds per decoded frame / cores. The time per
    frame is measured on the first ``sample`` frames with non-reference frames discarded (the frames the
    minimum counts are those, so the limit is not flattered by cheap B-frames)."""
    import av

    with av.open(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "NONE"
        stream.codec_context.thread_count = 1
        stream.codec_context.skip_frame = "NONREF" if index.nonref else "DEFAULT"
        last = min(sample, index.count) - 1
        produced = 0
        t0 = time.perf_counter()
        for frame in container.decode(stream):
            produced += 1
            if index.position(frame.pts) >= last:
                break
        per_frame = (time.perf_counter() - t0) / produced
    minimum = index.theoretical_minimum(targets)
    return {
        "seconds": minimum * per_frame / workers,
        "probe_s": 0.0,
        "exact": len(targets),
        "frames": len(targets),
        "decoded": minimum,
        "minimum": minimum,
        "peak_rss_mb": peak_rss_mb(),
        "per_frame_ms": per_frame * 1000,
        "workers": workers,
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


METHODS = ("ours", "ours-noskip", "pyav-seq", "decord", "torchcodec", "limit")
OPTIONAL = {
    "decord": "pip install decord",
    "torchcodec": "pip install torchcodec==0.13.0 (see DEVELOPERS.md)",
}


def available(method: str) -> bool:
    """Whether a method's library can be imported (checked in a child: torchcodec loads torch and FFmpeg)."""
    if method not in OPTIONAL:
        return True
    module = "torchcodec.decoders" if method == "torchcodec" else method
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        print(f"{method} is not usable ({why}): {OPTIONAL[method]}")
    return proc.returncode == 0


def main() -> None:
    minutes = float(os.environ.get("EGOWORLD_BENCH_MINUTES", "10"))
    chosen = os.environ.get("EGOWORLD_BENCH_METHODS")
    methods = [m for m in METHODS if not chosen or m in chosen.split(",")]
    methods = [m for m in methods if available(m)]
    print(
        f"{FRAMES} frames, uniform rule, {SIZE[0]}x{SIZE[1]} H.264 {FPS} fps, {minutes:g} min, budget {MAX_PIXELS} px"
    )
    repeat = max(1, int(os.environ.get("EGOWORLD_BENCH_REPEAT", "1")))
    rows = []
    for name, gop in GOPS.items():
        path = make_video(name, gop, minutes)
        best: dict[str, dict] = {}
        for rep in range(repeat):  # rounds over all methods, so a busy spell hits every method alike
            for method in methods:
                print(f"  {name}: {method} (round {rep + 1}/{repeat}) …", flush=True)
                r = run_child(method, path)
                if r is not None:
                    best[method] = merge_rounds(best.get(method), r)
        rows.extend({"video": name, **best[m]} for m in methods if m in best)
    figures: dict[str, float | int | bool] = {"minutes": minutes, "frames": FRAMES, "rounds": repeat}
    print()
    print(
        f"{'video':<8} {'method':<12} {'seconds':>8} {'ours is':>9} {'exact':>8} {'decoded':>8} {'minimum':>8} {'dec/min':>8} {'peak MB':>8}"
    )
    for name in GOPS:
        ours = next((r for r in rows if r["video"] == name and r["method"] == "ours"), None)
        for r in (x for x in rows if x["video"] == name):
            method = r["method"]
            if ours is None or method == "ours":
                ratio = float("nan")
            elif method == "limit":
                ratio = ours["seconds"] / r["seconds"]
            else:
                ratio = r["seconds"] / ours["seconds"]
            shown = "" if ratio != ratio else (f"{ratio:.2f}x lim" if method == "limit" else f"{ratio:.2f}x")
            dec_min = r["decoded"] / r["minimum"] if r["decoded"] > 0 else float("nan")
            decoded = str(r["decoded"]) if r["decoded"] >= 0 else "n/a"
            print(
                f"{name:<8} {method:<12} {r['seconds']:>8.2f} {shown:>9} {r['exact']:>4}/{r['frames']:<3} "
                f"{decoded:>8} {r['minimum']:>8} {dec_min:>8.3f} {r['peak_rss_mb']:>8.0f}"
            )
            figures[f"{name}_{method}_s"] = round(r["seconds"], 3)
            if method != "limit":
                figures[f"{name}_{method}_exact"] = r["exact"]
                figures[f"{name}_{method}_peak_mb"] = round(r["peak_rss_mb"], 1)
            if ratio == ratio:
                figures[f"{name}_ours_vs_{method}"] = round(ratio, 3)
        if ours:
            figures[f"{name}_ours_decoded"] = ours["decoded"]
            figures[f"{name}_minimum"] = ours["minimum"]
            figures[f"{name}_ours_probe_s"] = round(ours["probe_s"], 3)
    figures.update(targets(figures))
    print(
        "(ours is = that method's seconds / ours, so > 1 means ours is faster; for limit: ours / limit. Seconds "
        "include building the frame table for ours)"
    )
    print(json.dumps({"bench": "frames", **figures}, sort_keys=True))


def merge_rounds(old: dict | None, new: dict) -> dict:
    """Across rounds: the fastest time, the worst exactness, the highest peak memory."""
    if old is None:
        return new
    out = dict(min(old, new, key=lambda r: r["seconds"]))
    out["exact"] = min(old["exact"], new["exact"])
    out["peak_rss_mb"] = max(old["peak_rss_mb"], new["peak_rss_mb"])
    return out


def targets(f: dict) -> dict[str, bool]:
    """The issue's targets, each true or false (absent figures count as not met)."""
    out = {
        "target_gop10s_vs_seq_1_5x": f.get("gop10s_ours_vs_pyav-seq", 0) >= 1.5,
        "target_gop2s_within_1_2x_limit": 0 < f.get("gop2s_ours_vs_limit", 99) <= 1.2,
        "target_peak_under_300mb": all(f.get(f"{g}_ours_peak_mb", 1e9) < 300 for g in GOPS),
    }
    for other in ("decord", "torchcodec"):
        out[f"target_faster_than_{other}"] = all(f.get(f"{g}_ours_vs_{other}", 0) > 1 for g in GOPS)
    return out


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], sys.argv[3])))
    else:
        main()
