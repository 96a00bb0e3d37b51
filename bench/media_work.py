"""Bench: media work per question, ours vs decoding per question, and memory over 1,000 samples.

Two runs through the real runner (a fixed answer; every request's images are encoded as the OpenAI backend
sends them, data URLs included):

* Beyond3D-like: 8 questions asked at the same moment of the same clip (1 fps up to the query time,
  fisheye mask and timestamp burned in);
* Shuffle24: VSI-Super-Wild-like 4-option questions, each asked in all 24 option orders (32 uniform frames).

Then the request size for 128 frames (uniform, 448 × 448 budget) in each ``--image-format``: encoded media
bytes per request as the run records them, and the JSON body as sent (data URLs).

"Per-question decoding" is what a pipeline without a shared cache does: each request decodes and encodes its
own frames. It is counted by decoding each distinct selection once with the same decoder and multiplying
by the requests that use it. Then a 1,000-sample run prints the resident memory after every 100 requests. Videos are generated into a temporary folder. Ends with one
JSON line of the figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import tempfile
import time
from pathlib import Path

VIDEOS = 4
SECONDS = 40
FPS = 30
SIZE = (640, 360)


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_videos(root: Path) -> list[str]:
    from egoworld.media.testvideo import write_counter_video

    (root / "videos").mkdir(parents=True, exist_ok=True)
    names = []
    for v in range(VIDEOS):
        name = f"videos/v{v}.mp4"
        print(f"  generating {name} ({SECONDS} s, {SIZE[0]}x{SIZE[1]}, GOP 2 s, B-frames)", flush=True)
        write_counter_video(
            root / name, frames=SECONDS * FPS, size=SIZE, gop=2 * FPS, bframes=2, detail=True, seed=v
        )
        names.append(str(root / name))  # absolute: the benchmarks live in sibling folders
    return names


def beyond3d_like(root: Path, videos: list[str]):
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput

    samples = []
    for v, name in enumerate(videos):
        for moment in (17.5, 33.0):
            for q in range(8):  # 8 question types at one moment
                samples.append(
                    Sample(
                        id=f"v{v}-t{moment:g}-q{q}",
                        benchmark="b3d",
                        task=f"T{q}",
                        question=f"Question type {q} at {moment} s?",
                        answer_type="choice",
                        choices=("Yes", "No"),
                        answer=q % 2,
                        cluster=name,
                        media=Media(video=VideoInput(path=name, end_s=moment)),
                    )
                )
    tasks = {f"T{q}": TaskInfo(answer_type="choice", metric="accuracy") for q in range(8)}
    return save_benchmark(root / "b3d", name="b3d", tasks=tasks, samples=samples)


def shuffle_like(root: Path, videos: list[str], per_video: int = 3):
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput

    samples = [
        Sample(
            id=f"v{v}-q{q}",
            benchmark="vsi",
            task="VOO",
            question=f"Order the objects ({q})?",
            answer_type="choice",
            choices=("a → b", "b → a", "c → d", "d → c"),
            answer=q % 4,
            cluster=name,
            media=Media(video=VideoInput(path=name)),
        )
        for v, name in enumerate(videos)
        for q in range(per_video)
    ]
    tasks = {"VOO": TaskInfo(answer_type="choice", metric="accuracy")}
    return save_benchmark(root / "vsi", name="vsi", tasks=tasks, samples=samples)


def sender(every: int = 0):
    """A model that builds the OpenAI payload of every request (images as data URLs) and answers "A";
    with ``every``, it notes the resident memory after each ``every`` requests."""
    from egoworld.core.model import Generation, Model, Request
    from egoworld.models.openai_compat import encode_message

    class Sender(Model):
        backend = "bench"

        def __init__(self) -> None:
            self.count = 0
            self.marks: list[tuple[int, float, float]] = []

        def identity(self):
            return {"backend": "bench", "model": "sender"}

        async def generate(self, request: Request) -> Generation:
            await asyncio.to_thread(lambda: [encode_message(m) for m in request.messages])
            self.count += 1
            if every and self.count % every == 0:
                self.marks.append((self.count, rss_mb(), peak_mb()))
                print(
                    f"  {self.count:>5} samples: RSS {self.marks[-1][1]:.0f} MB, peak {self.marks[-1][2]:.0f} MB",
                    flush=True,
                )
            return Generation(text="A")

    return Sender()


PAYLOAD_FORMATS = ("png", "jpeg:90", "jpeg:75", "webp:90", "webp:75")


def payload_sizes(root: Path, videos: list[str], frames: int = 128) -> list[dict]:
    """Per format: media bytes per request (recorded by the runner) and the JSON body as sent."""
    import json as _json

    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.model import Generation, Model, Request
    from egoworld.core.run_config import RunConfig
    from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput
    from egoworld.models.openai_compat import encode_message
    from egoworld.runner.run import run_benchmark

    samples = [
        Sample(
            id=f"p{v}",
            benchmark="payload",
            task="MC",
            question="Which way?",
            answer_type="choice",
            choices=("a", "b", "c", "d"),
            answer=0,
            media=Media(video=VideoInput(path=name)),
        )
        for v, name in enumerate(videos)
    ]
    tasks = {"MC": TaskInfo(answer_type="choice", metric="accuracy")}
    bench = save_benchmark(root / "payload", name="payload", tasks=tasks, samples=samples)

    class BodySizer(Model):
        backend = "bench"

        def __init__(self) -> None:
            self.bodies: list[int] = []

        def identity(self):
            return {"backend": "bench", "model": "body-sizer"}

        async def generate(self, request: Request) -> Generation:
            body = {
                "model": "m",
                "messages": [encode_message(m) for m in request.messages],
                "max_tokens": 256,
            }
            self.bodies.append(len(_json.dumps(body)))
            return Generation(text="A")

    rows = []
    for fmt in PAYLOAD_FORMATS:
        model = BodySizer()
        cfg = RunConfig(
            bench=bench.root,
            model="bench",
            out=root / f"payload-{fmt.replace(':', '-')}",
            setting="frames",
            frames=frames,
            image_format=fmt,
            progress=False,
        )
        summary = run_benchmark(cfg, model=model)
        assert summary.ok == summary.planned, summary.line()
        rows.append(
            {
                "format": fmt,
                "media_mb": summary.media_bytes / summary.called / 1e6,
                "body_mb": sum(model.bodies) / len(model.bodies) / 1e6,
            }
        )
    return rows


def per_question_work(bench, settings, plan_count: int) -> tuple[int, int]:
    """(frames decoded, images encoded) when every request decodes its own frames."""
    from egoworld.media.decoder import DecodeStats, decode_frames
    from egoworld.media.index import probe
    from egoworld.media.overlays import output_size
    from egoworld.media.policies import Clip, parse_policy

    policy = parse_policy(settings["frame_policy"])
    decoded = encoded = 0
    seen: dict[tuple, tuple[int, int]] = {}
    for s in bench.samples:
        path = bench.resolve(s.media.video.path)
        key = (str(path), s.media.video.start_s, s.media.video.end_s)
        if key not in seen:
            index = probe(path)
            sel = policy.select(
                index, Clip.of(index, s.media.video.start_s, s.media.video.end_s), settings["frames"]
            )
            stats = DecodeStats()
            size = output_size(index.width, index.height, settings["max_pixels"])
            for _ in decode_frames(path, index, sel.indices, size=size, stats=stats):
                pass
            seen[key] = (stats.frames, len(sel.indices))
        decoded += seen[key][0] * plan_count
        encoded += seen[key][1] * plan_count
    return decoded, encoded


def run_case(name: str, bench, out: Path, settings: dict, permutations: str, orders: int) -> dict:
    from egoworld.core.run_config import RunConfig
    from egoworld.media.counters import STATS
    from egoworld.runner.run import run_benchmark

    cfg = RunConfig(
        bench=bench.root,
        model="bench",
        out=out,
        setting="frames",
        permutations=permutations,
        progress=False,
        **settings,
    )
    before = STATS.snapshot()
    start = time.perf_counter()
    summary = run_benchmark(cfg, model=sender())
    seconds = time.perf_counter() - start
    work = STATS.since(before)
    assert summary.ok == summary.planned, summary.line()
    base_dec, base_enc = per_question_work(bench, settings, orders)
    q = summary.planned
    return {
        "case": name,
        "requests": q,
        "ours_decoded_per_q": work["frames_decoded"] / q,
        "ours_encoded_per_q": work["images_encoded"] / q,
        "base_decoded_per_q": base_dec / q,
        "base_encoded_per_q": base_enc / q,
        "decoded_ratio": work["frames_decoded"] / base_dec,
        "encoded_ratio": work["images_encoded"] / base_enc,
        "seconds": seconds,
    }


def memory_run(
    root: Path, videos: list[str], n: int = 1000, chunk: int = 100
) -> list[tuple[int, float, float]]:
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.run_config import RunConfig
    from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput
    from egoworld.runner.run import run_benchmark

    samples = [
        Sample(
            id=f"m{k:04d}",
            benchmark="mem",
            task="MC",
            question=f"Question {k}?",
            answer_type="choice",
            choices=("a", "b", "c", "d"),
            answer=k % 4,
            cluster=videos[k % len(videos)],
            media=Media(
                video=VideoInput(path=videos[k % len(videos)], end_s=4.0 + (k * 0.37) % (SECONDS - 5))
            ),
        )
        for k in range(n)
    ]
    bench = save_benchmark(
        root / "mem",
        name="mem",
        tasks={"MC": TaskInfo(answer_type="choice", metric="accuracy")},
        samples=samples,
    )
    model = sender(every=chunk)
    cfg = RunConfig(
        bench=bench.root, model="bench", out=root / "mem-run", setting="frames", frames=16, progress=False
    )
    run_benchmark(cfg, model=model)
    return model.marks


def engine_memory(root: Path, videos: list[str], n: int = 2000, every: int = 250) -> list[tuple[int, float]]:
    """The media engine alone (parts + payload encoding per sample, no runner or store): RSS every ``every``."""
    import gc

    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.model import Message, TextPart
    from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput
    from egoworld.models.openai_compat import encode_message
    from egoworld.runner.inputs import InputSettings
    from egoworld.runner.media_inputs import open_media_inputs

    samples = [
        Sample(
            id=f"e{k:04d}",
            benchmark="eng",
            task="MC",
            question="q",
            answer_type="choice",
            choices=("a", "b", "c", "d"),
            answer=0,
            media=Media(
                video=VideoInput(path=videos[k % len(videos)], end_s=4.0 + (k * 0.37) % (SECONDS - 5))
            ),
        )
        for k in range(n)
    ]
    bench = save_benchmark(
        root / "eng",
        name="eng",
        tasks={"MC": TaskInfo(answer_type="choice", metric="accuracy")},
        samples=samples,
    )
    inputs = open_media_inputs(bench, InputSettings(setting="frames", frames=16))
    marks = []
    for k, sample in enumerate(bench.samples, start=1):
        encode_message(Message(role="user", content=(*inputs.parts(bench, sample), TextPart("q"))))
        if k % every == 0:
            gc.collect()
            marks.append((k, rss_mb()))
            print(f"  {k:>5} samples: RSS {marks[-1][1]:.0f} MB", flush=True)
    inputs.close()
    return marks


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="egoworld-media-work-") as tmp:
        root = Path(tmp)
        os.environ["EGOWORLD_CACHE"] = str(root / "cache-b3d")
        videos = make_videos(root)
        b3d = beyond3d_like(root, videos)
        vsi = shuffle_like(root, videos)
        b3d_settings = {
            "frames": 128,
            "frame_policy": "fps-end:1",
            "overlays": "fisheye,timestamp",
            "max_pixels": 448 * 448,
        }
        rows = [run_case("beyond3d-8-per-clip", b3d, root / "r-b3d", b3d_settings, "none", 1)]
        os.environ["EGOWORLD_CACHE"] = str(root / "cache-vsi")
        vsi_settings = {"frames": 32, "frame_policy": "uniform", "overlays": "", "max_pixels": 448 * 448}
        rows.append(run_case("shuffle24", vsi, root / "r-vsi", vsi_settings, "shuffle24", 24))
        print()
        print(
            f"{'case':<20} {'requests':>8} {'decoded/q ours':>15} {'per-q decoding':>15} {'ratio':>7} "
            f"{'encoded/q ours':>15} {'per-q encoding':>15} {'ratio':>7}"
        )
        for r in rows:
            print(
                f"{r['case']:<20} {r['requests']:>8} {r['ours_decoded_per_q']:>15.2f} {r['base_decoded_per_q']:>15.2f} "
                f"{r['decoded_ratio']:>7.4f} {r['ours_encoded_per_q']:>15.2f} {r['base_encoded_per_q']:>15.2f} "
                f"{r['encoded_ratio']:>7.4f}"
            )
        print(
            f"\nrequest size, 128 frames at a 448x448 budget ({SIZE[0]}x{SIZE[1]} source, mean of 2 videos):"
        )
        os.environ["EGOWORLD_CACHE"] = str(root / "cache-payload")
        payload = payload_sizes(root, videos[:2])
        png_mb = payload[0]["media_mb"]
        for p in payload:
            print(
                f"  {p['format']:<8} media {p['media_mb']:7.2f} MB  body {p['body_mb']:7.2f} MB  "
                f"({png_mb / p['media_mb']:.1f}x smaller than png)"
            )
        print("\nmemory over 1,000 samples (16 frames each, one run; images sent as data URLs):")
        os.environ["EGOWORLD_CACHE"] = str(root / "cache-mem")
        mem = memory_run(root, videos)
        growth = mem[-1][1] - mem[1][1]
        peak_growth = mem[-1][2] - mem[0][2]
        print(
            f"RSS {mem[1][0]} → {mem[-1][0]} samples: {growth:+.1f} MB; peak RSS {mem[0][0]} → {mem[-1][0]} samples: "
            f"{peak_growth:+.1f} MB (peak {mem[-1][2]:.0f} MB)"
        )
        print("\nthe media engine alone over 2,000 samples (bounded memos fill, then nothing grows):")
        os.environ["EGOWORLD_CACHE"] = str(root / "cache-eng")
        eng = engine_memory(root, videos)
        eng_growth = eng[-1][1] - eng[len(eng) // 2 - 1][1]
        print(f"engine RSS {eng[len(eng) // 2 - 1][0]} → {eng[-1][0]} samples: {eng_growth:+.1f} MB")
        figures = {"bench": "media_work", "engine_rss_growth_mb_1000_to_2000": round(eng_growth, 1)}
        for r in rows:
            c = r["case"]
            figures[f"{c}_decoded_per_q"] = round(r["ours_decoded_per_q"], 3)
            figures[f"{c}_encoded_per_q"] = round(r["ours_encoded_per_q"], 3)
            figures[f"{c}_decoded_ratio"] = round(r["decoded_ratio"], 4)
            figures[f"{c}_encoded_ratio"] = round(r["encoded_ratio"], 4)
        for p in payload:
            name = p["format"].replace(":", "_q")
            figures[f"payload128_{name}_media_mb"] = round(p["media_mb"], 2)
            figures[f"payload128_{name}_body_mb"] = round(p["body_mb"], 2)
        figures["mem_rss_mb_at_200"] = round(mem[1][1], 1)
        figures["mem_rss_mb_at_1000"] = round(mem[-1][1], 1)
        figures["mem_rss_growth_mb"] = round(growth, 1)
        figures["mem_peak_rss_mb"] = round(mem[-1][2], 1)
        figures["mem_peak_growth_mb_100_to_1000"] = round(peak_growth, 1)
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
