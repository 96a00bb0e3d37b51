"""Class 3: times outside the video are errors, never silently the last frame.

One clamping policy (`VideoIndex.frame_at`): a time is inside the video when ``0 ≤ t ≤ end``, where end is
the last frame's time plus one frame interval (the nominal duration: a clip ending at "6 s" of a 6 s video
is valid). A clip end past that, a clip start after it, or a listed frame's ``time_s`` past it give an error
row naming the sample, the video, the time and the video's length — as a frame index past the end does.
"""

from __future__ import annotations

import sqlite3

import pytest

from conftest import egoworld, refused, run_args, sample_row, write_bench

FPS, FRAMES = 6, 36  # a 6 s video: frames at 0, 1/6, …, 35/6 s


@pytest.fixture
def video_bench(tmp_path):
    from egoworld.media.testvideo import write_counter_video

    bench = tmp_path / "bench"
    (bench / "videos").mkdir(parents=True)
    write_counter_video(bench / "videos" / "a.mp4", frames=FRAMES, fps=FPS, size=(64, 48), gop=6)
    return bench


def _errors(run_dir) -> dict[str, str]:
    with sqlite3.connect(run_dir / "responses.sqlite") as db:
        return dict(db.execute("SELECT sample_id, error FROM responses WHERE status = 'error'").fetchall())


CASES = {
    "clip-end-past-the-video": (
        {"video": {"path": "videos/a.mp4", "end_s": 100}},
        "clip end 100 s is outside",
    ),
    "clip-start-after-the-end": (
        {"video": {"path": "videos/a.mp4", "start_s": 50, "end_s": 60}},
        "clip start 50 s is outside",
    ),
    "listed-frame-time-past-the-end": (
        {"video": {"path": "videos/a.mp4"}, "frames": [{"time_s": 999}]},
        "listed frame time_s 999 s is outside",
    ),
    "listed-frame-index-past-the-end": (
        {"video": {"path": "videos/a.mp4"}, "frames": [{"index": 999}]},
        "lists frame 999, but the video has 36 frames",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("setting", ["frames", "last-frame"])
def test_times_past_the_end_are_error_rows(tmp_path, video_bench, server, case, setting):
    media, needle = CASES[case]
    if setting == "last-frame" and "frames" in media:
        media = {**media, "frames": [{**media["frames"][0], "role": "last_frame"}]}
    ok = sample_row("ok", media={"video": {"path": "videos/a.mp4", "end_s": 6.0}})  # exactly the duration
    write_bench(video_bench, [ok, sample_row("bad", media=media)])
    out = tmp_path / "run"
    res = egoworld(*run_args(video_bench, out, server, "--setting", setting, "--frames", "4"))
    refused(res, code=3)
    errors = _errors(out)
    assert set(errors) == {"bad"}, errors
    flat = " ".join(errors["bad"].split())
    assert needle in flat and "videos/a.mp4" in flat and "fix" in flat, flat
    if "time" in needle or "clip" in needle:
        assert "0 to 6.000 s" in flat and "tolerance one frame interval" in flat
    assert len(server.bodies) == 1  # the good sample only


def test_the_tolerance_is_one_frame_interval():
    from egoworld.media.index import TimeOutsideVideo, VideoIndex

    index = VideoIndex(
        pts=tuple(range(FRAMES)), keyframes=(0,), seek_ts=(0,), time_base=__import__("fractions").Fraction(1, FPS),
        width=64, height=48, codec="h264",
    )  # fmt: skip
    assert index.end_s == pytest.approx(6.0)
    assert index.frame_at(6.0) == FRAMES - 1  # the nominal duration: the last frame is still on screen
    assert index.frame_at(35 / 6 + 0.01) == FRAMES - 1
    with pytest.raises(TimeOutsideVideo, match="6.01 s is outside"):
        index.frame_at(6.01)
    with pytest.raises(TimeOutsideVideo):
        index.frame_at(-0.5)


def test_media_probe_refuses_a_clip_past_the_end(video_bench):
    res = egoworld("media", "probe", video_bench / "videos" / "a.mp4", "--policy", "uniform", "--end", "100")
    refused(res, "clip end 100 s is outside the video")
