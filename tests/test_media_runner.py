"""End to end: runs in the frames and last-frame settings over a small benchmark with real generated videos.

Checks the frame indices recorded in each request, the pixels the model receives, that a second run decodes
nothing, that option orders share one decode, that a corrupt video only fails its own samples, the
last-frame marker, and the video part for servers that take one.
"""

from __future__ import annotations

import asyncio
import base64
import io
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from egoworld.core.folders import store as store_module
from egoworld.core.folders.bench_folder import save_benchmark
from egoworld.core.folders.store import ResponseStore
from egoworld.core.model import Generation, ImagePart, Model, Request, VideoPart
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import FrameInput, ImageInput, Media, Sample, TaskInfo, VideoInput
from egoworld.media.counters import STATS
from egoworld.media.encode import png_pixels
from egoworld.media.policies import uniform_offsets
from egoworld.media.testvideo import frame_times, read_counter, write_counter_video
from egoworld.models.openai_compat import encode_message
from egoworld.runner.run import run_benchmark

CHOICES = ("left", "right", "forward", "backward")


class Recorder(Model):
    """Answers "A" and keeps the media parts it was sent (reading their bytes)."""

    backend = "test"

    def __init__(self) -> None:
        self.seen: dict[str, list] = {}

    def identity(self):
        return {"backend": "test", "model": "recorder"}

    async def generate(self, request: Request) -> Generation:
        parts = [p for p in request.messages[0].content if isinstance(p, ImagePart | VideoPart)]
        loaded = await asyncio.to_thread(lambda: [(p, p.load()) for p in parts])
        self.seen[request.sample_id] = loaded
        return Generation(text="A")


def _sample(sid: str, file: str, **media) -> Sample:
    media.setdefault("video", VideoInput(path=f"videos/{file}"))
    return Sample(
        id=sid,
        benchmark="toy",
        task="MC",
        question=f"Question {sid}?",
        answer_type="choice",
        choices=CHOICES,
        answer=int(sid[-1]) % 4,
        cluster=file,
        media=Media(**media),
    )


@pytest.fixture(scope="module")
def bench_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("bench")
    (root / "videos").mkdir()
    write_counter_video(root / "videos/a.mp4", frames=300, gop=60, bframes=2)  # 10 s
    write_counter_video(root / "videos/b.mp4", frames=240, gop=30, bframes=2, vfr=True)
    write_counter_video(root / "videos/c.mp4", frames=240, gop=30, faststart=True)
    bad = root / "videos/c.mp4"
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])  # truncated download
    from PIL import Image

    Image.fromarray(np.full((40, 60, 3), 200, dtype=np.uint8)).save(root / "scene.png")
    clip_a = VideoInput(path="videos/a.mp4", end_s=8.0)
    samples = [
        _sample("a-0", "a.mp4", video=clip_a),
        _sample("a-1", "a.mp4", video=clip_a),
        _sample(
            "a-2",
            "a.mp4",
            video=VideoInput(path="videos/a.mp4"),
            frames=(FrameInput(index=17), FrameInput(time_s=5.0, label="Query")),
            images=(ImageInput(path="scene.png", label="Initial scene"),),
        ),
        _sample("b-3", "b.mp4", video=VideoInput(path="videos/b.mp4", start_s=1.0)),
        _sample("c-0", "c.mp4"),
        _sample("c-1", "c.mp4"),
        _sample(
            "a-5",
            "a.mp4",
            video=VideoInput(path="videos/a.mp4", end_s=6.0),
            frames=(FrameInput(time_s=6.0, role="last_frame", marker=(32.0, 24.0)),),
        ),
    ]
    save_benchmark(
        root, name="toy", tasks={"MC": TaskInfo(answer_type="choice", metric="accuracy")}, samples=samples
    )
    return root


@pytest.fixture(autouse=True)
def media_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))


def _run(root: Path, out: Path, model: Model | None = None, **kw):
    cfg = RunConfig(bench=root, model="oracle", out=out, progress=False, concurrency=4, **kw)
    return run_benchmark(cfg, model=model)


def _requests(out: Path) -> dict[str, dict]:
    with sqlite3.connect(out / "responses.sqlite") as db:
        plan = {k: sid for sid, k in db.execute("SELECT sample_id, key FROM plan")}
    store = ResponseStore(out / "responses.sqlite", readonly=True)
    try:
        return {sid: store.request(k) for k, sid in plan.items() if store.request(k) is not None}
    finally:
        store.close()


def test_frames_setting_records_exact_frames_and_second_run_decodes_nothing(bench_root, tmp_path):
    model = Recorder()
    before = STATS.snapshot()
    summary = _run(bench_root, tmp_path / "r1", model, setting="frames", frames=8)
    first = STATS.since(before)
    assert summary.planned == 7 and summary.ok == 5 and summary.errors == 2  # only c.mp4's samples fail
    assert first["frames_decoded"] > 0 and first["images_encoded"] > 0

    reqs = _requests(tmp_path / "r1")
    a0 = reqs["a-0"]["messages"][0]["content"]
    sampled = [p for p in a0 if p.get("role") == "sampled"]
    assert [p["frame"] for p in sampled] == uniform_offsets(
        "uniform", 241, 8
    )  # clip 0 … 8 s = frames 0 … 240
    assert [p["time_s"] for p in sampled] == [round(i / 30, 6) for i in uniform_offsets("uniform", 241, 8)]
    assert all(p["policy"] == "uniform" and p["video"] == "videos/a.mp4" for p in sampled)
    assert a0[-1] == {"type": "text", "text": a0[-1]["text"]}  # media first, question last

    # the model received exactly those frames, resized and lossless
    for sid, parts in model.seen.items():
        for part, data in parts:
            if "frame" in part.source:
                assert read_counter(png_pixels(data)) == part.source["frame"], (sid, part.source)
    a2 = [p for p, _ in model.seen["a-2"]]
    assert [p.label for p in a2][-3:] == ["Frame 1", "Query", "Initial scene"]
    assert [p.source.get("frame") for p in a2][-3:] == [17, 150, None]
    b3 = [p.source for p, _ in model.seen["b-3"]]
    vfr_times = frame_times(240, 30, vfr=True)  # frames 25 and 26 are at 0.9667 and 1.0333 s: a tie → later
    assert b3[0]["frame"] == 26 and b3[0]["time_s"] == pytest.approx(vfr_times[26])

    with sqlite3.connect(tmp_path / "r1/responses.sqlite") as db:
        errors = dict(db.execute("SELECT sample_id, error FROM responses WHERE status = 'error'").fetchall())
    assert set(errors) == {"c-0", "c-1"}
    assert all("c.mp4" in e and "frame" in e and "fix:" in e for e in errors.values())

    before = STATS.snapshot()
    again = _run(
        bench_root, tmp_path / "r2", Recorder(), setting="frames", frames=8
    )  # another run, same cache
    second = STATS.since(before)
    assert again.ok == 5 and again.errors == 2
    assert second["frames_decoded"] == 0 and second["images_encoded"] == 0 and second["videos_probed"] == 0
    assert second["cache_misses"] == 0 and second["cache_hits"] >= first["cache_misses"]
    assert _requests(tmp_path / "r2")["a-0"] == reqs["a-0"]  # same keys, same frames


def test_shuffle24_decodes_and_encodes_each_frame_once(bench_root, tmp_path, monkeypatch):
    packed_blocks = []
    pack = store_module._pack

    def counting_pack(value):
        if isinstance(value, list):  # a message's media block (a request is a dict)
            packed_blocks.append(value)
        return pack(value)

    monkeypatch.setattr(store_module, "_pack", counting_pack)
    before = STATS.snapshot()
    summary = _run(
        bench_root, tmp_path / "s", setting="frames", frames=16, permutations="shuffle24", tasks=["MC"]
    )
    work = STATS.since(before)
    with sqlite3.connect(tmp_path / "s/responses.sqlite") as db:
        blocks = db.execute("SELECT COUNT(*) FROM request_blocks").fetchone()[0]
    assert 0 < blocks < summary.ok and len(packed_blocks) == blocks  # a media block packed once, not 24 ×
    assert summary.planned == 7 * 24 and summary.ok == 5 * 24
    distinct = {
        (p["video"], p["frame"], str(p.get("marker")))
        for r in _requests(tmp_path / "s").values()
        for p in r["messages"][0]["content"]
        if p.get("type") == "image" and "frame" in p
    }
    assert work["images_encoded"] == len(distinct) + 1  # + the scene image
    assert work["frames_converted"] == len({(v, f) for v, f, _ in distinct})


def test_last_frame_setting_marks_the_reference_in_red(bench_root, tmp_path):
    model = Recorder()
    summary = _run(bench_root, tmp_path / "last", model, setting="last-frame", tasks=["MC"])
    assert summary.ok == 5
    ((part, data),) = model.seen["a-5"]
    assert (
        part.source["frame"] == 180
        and part.source["role"] == "last-frame"
        and part.source["marker"] == [32.0, 24.0]
    )
    img = png_pixels(data)
    assert read_counter(img) == 180
    red = (img[..., 0] == 255) & (img[..., 1] == 0) & (img[..., 2] == 0)
    ys, xs = np.nonzero(red)
    assert red.sum() > 10 and abs(xs.mean() - 32) < 1.5 and abs(ys.mean() - 24) < 1.5
    ((part0, _),) = model.seen["a-0"]
    assert part0.source["frame"] == 240  # the frame at the clip end (8.0 s)


def test_video_part_holds_the_sampled_frames(bench_root, tmp_path):
    import av

    model = Recorder()
    summary = _run(
        bench_root, tmp_path / "vid", model, setting="frames", frames=6, video_part=True, tasks=["MC"]
    )
    assert summary.ok == 5
    ((part, data),) = model.seen["a-0"]
    assert isinstance(part, VideoPart) and part.mime == "video/mp4"
    assert part.source["indices"] == uniform_offsets("uniform", 241, 6)
    with av.open(io.BytesIO(data)) as container:
        counters = [read_counter(f.to_ndarray(format="rgb24")) for f in container.decode(video=0)]
    assert counters == part.source["indices"]
    encoded = encode_message(Request_message(part))
    assert encoded["content"][0]["type"] == "video_url"
    assert base64.b64decode(encoded["content"][0]["video_url"]["url"].split(",", 1)[1]) == data


def Request_message(part):
    from egoworld.core.model import Message, TextPart

    return Message(role="user", content=(part, TextPart("Which way?")))


def test_policy_and_overlays_enter_the_request_key(bench_root, tmp_path):
    _run(bench_root, tmp_path / "u", setting="frames", frames=4, tasks=["MC"], limit=1)
    _run(
        bench_root,
        tmp_path / "c",
        setting="frames",
        frames=4,
        frame_policy="uniform-center",
        tasks=["MC"],
        limit=1,
    )
    _run(bench_root, tmp_path / "o", setting="frames", frames=4, overlays="timestamp", tasks=["MC"], limit=1)
    keys = []
    for name in ("u", "c", "o"):
        with sqlite3.connect(tmp_path / name / "responses.sqlite") as db:
            keys.append(db.execute("SELECT key FROM plan").fetchone()[0])
    assert len(set(keys)) == 3
    frames = [p["frame"] for p in _requests(tmp_path / "c")["a-0"]["messages"][0]["content"] if "frame" in p]
    assert frames == [30, 90, 150, 210]  # segment centres of frames 0 … 240


def test_media_cli_probes_a_video_and_shows_a_policy(bench_root):
    from typer.testing import CliRunner

    from egoworld.cli import app

    result = CliRunner().invoke(
        app, ["media", "probe", str(bench_root / "videos/a.mp4"), "--policy", "uniform", "--frames", "4"]
    )
    assert result.exit_code == 0, result.output
    assert "300 frames" in result.output and "indices: 0 99 199 299" in result.output
    bad = CliRunner().invoke(app, ["media", "probe", str(bench_root / "videos/c.mp4")])
    assert bad.exit_code == 2 and "truncated" in bad.output


def test_image_format_enters_the_key_and_shrinks_the_payload(bench_root, tmp_path):
    from egoworld.core.folders.files import read_json

    runs = {}
    for fmt in ("png", "jpeg:80", "webp"):
        model = Recorder()
        out = tmp_path / fmt.replace(":", "-")
        summary = _run(bench_root, out, model, setting="frames", frames=8, tasks=["MC"], image_format=fmt)
        assert summary.ok == 5
        sent = {sid: sum(len(data) for _, data in parts) for sid, parts in model.seen.items()}
        reqs = _requests(out)
        assert {sid: reqs[sid]["media_bytes"] for sid in sent} == sent  # recorded per request, as sent
        manifest = read_json(out / "run.json")
        assert manifest["media_bytes_per_request"]["max"] == max(sent.values())
        assert "MB per request" in summary.line()
        runs[fmt] = (model, reqs, summary)
    (png, png_reqs, png_sum), (jpeg, jpeg_reqs, jpeg_sum), (webp, _, webp_sum) = runs.values()
    keys = {
        name: {r["messages"][0]["content"][0]["sha256"] for r in reqs.values()}
        for name, (_, reqs, _) in runs.items()
    }
    assert not keys["png"] & keys["jpeg:80"] and not keys["jpeg:80"] & keys["webp"]
    assert read_json(tmp_path / "jpeg-80/run.json")["inputs"]["image_format"] == "jpeg:80"
    assert "image_format" not in read_json(tmp_path / "png/run.json")["inputs"]  # png keys unchanged
    assert read_json(tmp_path / "webp/run.json")["inputs"]["image_format"] == "webp:90"  # canonical
    for model, mime in ((png, "image/png"), (jpeg, "image/jpeg"), (webp, "image/webp")):
        frames = [(p, d) for p, d in model.seen["a-0"] if "frame" in p.source]
        assert all(p.mime == mime for p, _ in frames)
        assert all(read_counter(png_pixels(d)) == p.source["frame"] for p, d in frames)  # still those frames
    assert len({png_sum.media_bytes, jpeg_sum.media_bytes, webp_sum.media_bytes}) == 3
    scene = [d for p, d in jpeg.seen["a-2"] if p.label == "Initial scene"][0]
    assert scene[:3] == b"\xff\xd8\xff"  # a PNG image file is re-encoded for a lossy format


def test_lossy_formats_make_camera_like_frames_much_smaller():
    from egoworld.media.encode import encode_image
    from egoworld.media.formats import parse_image_format
    from egoworld.media.testvideo import _texture, counter_luma

    w, h = 448, 252
    grain = np.random.default_rng(1).integers(-5, 6, size=(1, h, w), dtype=np.int16)
    luma = counter_luma(7, w, h, _texture(w, h, 0, True), grain)
    rgb = np.stack([luma, luma, luma], axis=-1)
    sizes = {f: len(encode_image(rgb, parse_image_format(f))) for f in ("png", "jpeg:85", "webp:85")}
    assert sizes["jpeg:85"] < sizes["png"] / 2 and sizes["webp:85"] < sizes["png"] / 2
    again = encode_image(rgb, parse_image_format("jpeg:85"))
    assert again == encode_image(rgb.copy(), parse_image_format("jpeg:85"))  # deterministic bytes
    assert read_counter(png_pixels(again)) == 7


def test_a_bad_image_format_is_refused_before_the_run(bench_root, tmp_path):
    from typer.testing import CliRunner

    from egoworld.cli import app
    from egoworld.media.formats import parse_image_format

    assert parse_image_format("JPG").spec() == "jpeg:90" and parse_image_format("webp:75").spec() == "webp:75"
    for bad in ("gif", "jpeg:0", "jpeg:101", "jpeg:high", "png:5"):
        with pytest.raises(ValueError, match="--image-format"):
            parse_image_format(bad)
    args = ["run", "--bench", str(bench_root), "--model", "oracle", "--out", str(tmp_path / "x")]
    result = CliRunner().invoke(app, [*args, "--setting", "frames", "--image-format", "gif", "--no-progress"])
    assert result.exit_code != 0 and "jpeg[:Q]" in result.output
    assert not (tmp_path / "x").exists()
