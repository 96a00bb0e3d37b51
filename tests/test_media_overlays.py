"""Preprocessing: pixel budget, fisheye mask, timestamp outside the circle, red marker, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from egoworld.media.encode import png_bytes, png_pixels
from egoworld.media.overlays import clock, output_size, outside_circle, timestamp_box
from egoworld.media.prep import Prep, parse_overlays


def _frame(w: int = 448, h: int = 448) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(30, 220, size=(h, w, 3), dtype=np.uint8)


@pytest.mark.parametrize(
    ("size", "budget", "expected"),
    [
        ((1920, 1080), 448 * 448, (597, 336)),
        ((1408, 1408), 448 * 448, (448, 448)),
        ((320, 240), 448 * 448, (320, 240)),
    ],
)
def test_pixel_budget_keeps_aspect_and_never_enlarges(size, budget, expected):
    w, h = output_size(*size, budget)
    assert (w, h) == expected and w * h <= budget
    assert output_size(*size, 0) == size


def test_fisheye_mask_blacks_out_exactly_the_outside_of_the_circle():
    img = _frame()
    out = Prep(fisheye=1.0).apply(img, time_s=0, source_size=(448, 448))
    outside = outside_circle(448, 448, 1.0)
    assert outside.sum() > 0.2 * outside.size  # the four corners
    assert (out[outside] == 0).all()
    assert (out[~outside] == img[~outside]).all()


def test_timestamp_is_burned_outside_the_circle_only():
    img = _frame()
    masked = Prep(fisheye=1.0).apply(img, time_s=83.7, source_size=(448, 448))
    stamped = Prep(fisheye=1.0, timestamp=True).apply(img, time_s=83.7, source_size=(448, 448))
    changed = (masked != stamped).any(axis=2)
    inside = ~outside_circle(448, 448, 1.0)
    assert changed.sum() > 50  # text was drawn …
    assert not (changed & inside).any()  # … and none of it inside the valid circle
    assert clock(83.7) == "00:01:23" and clock(3725) == "01:02:05"
    x, y, scale = timestamp_box("00:01:23", 448, 448, 1.0)
    assert scale >= 2  # readable, not the 1× bitmap font
    assert timestamp_box("00:01:23", 40, 40, 1.0) is None
    with pytest.raises(ValueError, match="does not fit outside the fisheye circle"):
        Prep(fisheye=1.0, timestamp=True).apply(_frame(40, 40), time_s=1, source_size=(40, 40))


def test_marker_is_red_at_the_scaled_position():
    img = np.full((252, 448, 3), 128, dtype=np.uint8)
    out = Prep(marker=(960.0, 540.0)).apply(img, time_s=0, source_size=(1920, 1080))
    red = (out[..., 0] == 255) & (out[..., 1] == 0) & (out[..., 2] == 0)
    ys, xs = np.nonzero(red)
    assert red.sum() > 20
    assert (
        abs(xs.mean() - 224) < 1.5 and abs(ys.mean() - 126) < 1.5
    )  # centred on (960, 540) scaled to 448 wide
    assert (out[~red] == 128).all()


def test_png_is_lossless_and_byte_stable():
    img = Prep(fisheye=0.9, timestamp=True, marker=(10, 200)).apply(
        _frame(), time_s=5, source_size=(448, 448)
    )
    a, b = png_bytes(img), png_bytes(img.copy())
    assert a == b
    assert (png_pixels(a) == img).all()


def test_overlay_names():
    assert parse_overlays("timestamp, fisheye") == (True, 1.0)
    assert parse_overlays("fisheye=0.95") == (False, 0.95)
    assert parse_overlays("") == (False, None)
    for bad in ("timestamps", "fisheye=2", "fisheye=x"):
        with pytest.raises(ValueError, match="fisheye|overlay"):
            parse_overlays(bad)
    assert Prep(max_pixels=5).describe() != Prep(max_pixels=5, marker=(1, 2)).describe()


def _ffmpeg_drawbox(rgb: np.ndarray, left: int, top: int) -> np.ndarray:
    """FFmpeg's own ``drawbox`` (libavfilter through PyAV) with the official Beyond3D filter arguments."""
    from fractions import Fraction

    import av
    from av.filter import Graph

    h, w = rgb.shape[:2]
    graph = Graph()
    src = graph.add_buffer(width=w, height=h, format="rgb24", time_base=Fraction(1, 1))
    box = graph.add("drawbox", f"x={left}:y={top}:w=8:h=8:color=red@0.95:t=fill")
    sink = graph.add("buffersink")
    src.link_to(box)
    box.link_to(sink)
    graph.configure()
    src.push(av.VideoFrame.from_ndarray(rgb, format="rgb24"))
    return sink.pull().to_ndarray(format="rgb24")


@pytest.mark.parametrize(
    ("x", "y", "left", "top"),
    [
        (104.0, 204.0, 100, 200),
        (10.5, 33.5, 6, 30),
        (2.0, 1.0, 0, 0),
        (447.9, 500.0, 440, 440),
        (-3.0, 220.4, 0, 216),
    ],
)
def test_square_marker_is_ffmpegs_drawbox_at_the_official_pixel(
    x: float, y: float, left: int, top: int
) -> None:
    """The official protocol's marker: the pixels ffmpeg's ``drawbox`` paints where the official code puts
    the box (centre clamped into the frame, rounded, minus 4, kept inside), colour within 2 levels."""
    from egoworld.media.overlays import draw_square_marker

    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (448, 448, 3), dtype=np.uint8)
    ours = draw_square_marker(frame.copy(), x, y).astype(int)
    theirs = _ffmpeg_drawbox(frame.copy(), left, top).astype(int)
    changed = np.any(theirs != frame, axis=2)
    assert np.array_equal(np.any(ours != frame, axis=2), changed)
    assert changed[top : top + 8, left : left + 8].all() and changed.sum() == 64
    assert np.abs(ours - theirs).max() <= 2
