"""Test-pattern videos whose every frame shows its own index, so decoding can be checked exactly.

The index is burned in as 16 black/white blocks (2 rows × 8 columns, bit 0 top-left) across the middle
band of the frame; it survives resizing and lossy coding and reads back with `read_counter`, no OCR needed.
The rest of the frame is a moving texture so the encoder has real work. Used by the tests and by
``bench/`` (1080p, 10-minute videos are generated there at bench time, never stored).
"""

from __future__ import annotations

import fractions
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

BITS = 16
TIME_BASE = fractions.Fraction(1, 90000)
#: frame durations (in 1/90000 s) cycled by variable-frame-rate videos: 1/30 s, 1/15 s, 1/60 s
VFR_STEPS = (3000, 6000, 1500)


def _texture(width: int, height: int, seed: int, detail: bool) -> np.ndarray:
    """A random luma texture twice the frame width (rolled to make motion): 16-pixel blocks, plus
    pixel-level grain when ``detail`` (closer to camera footage in bit rate and decoding cost)."""
    rng = np.random.default_rng(seed)
    shape = (max(2, height // 16 + 2), max(2, 2 * width // 16 + 2))
    coarse = rng.integers(40, 200, size=shape, dtype=np.int16)
    big = np.kron(coarse, np.ones((16, 16), dtype=np.int16))[:height, : 2 * width]
    if detail:
        big = big + rng.integers(-30, 31, size=big.shape, dtype=np.int16)
    return np.ascontiguousarray(np.clip(big, 16, 235).astype(np.uint8))


def counter_luma(
    i: int, width: int, height: int, texture: np.ndarray, grain: np.ndarray | None = None
) -> np.ndarray:
    """The luma plane of frame ``i``: moving texture (plus this frame's sensor grain) and the index blocks."""
    shift = (i * 7) % width
    y = texture[:, shift : shift + width].copy()
    if grain is not None:  # changes every frame, as camera noise does: P-frames carry real residuals
        g = np.roll(grain[i % len(grain)], (i * 13) % height, axis=0)
        y = (y.astype(np.int16) + g).clip(16, 235).astype(np.uint8)
    bw, bh = width // 8, height // 8
    for b in range(BITS):
        row, col = divmod(b, 8)
        y[(3 + row) * bh : (4 + row) * bh, col * bw : (col + 1) * bw] = 235 if (i >> b) & 1 else 16
    return y


@lru_cache(maxsize=4)
def _colour_pattern(width: int, height: int, seed: int) -> tuple[np.ndarray, ...]:
    texture = _texture(width, height, seed, True)
    grain = np.random.default_rng(seed + 1).integers(-5, 6, size=(3, height, width), dtype=np.int16)
    return texture, np.roll(texture, 5, axis=1), np.roll(texture, 11, axis=0), grain


def camera_like_rgb(i: int, width: int, height: int, seed: int = 0) -> np.ndarray:
    """Frame ``i`` of a colour pattern with camera-like grain and the counter (compresses like real footage
    within a factor of about two; used to size payloads, e.g. by ``egoworld doctor --frames``)."""
    *channels, grain = _colour_pattern(width, height, seed)
    return np.stack([counter_luma(i, width, height, tex, grain) for tex in channels], axis=-1)


def read_counter(rgb: np.ndarray) -> int:
    """The index burned into a decoded frame (any size, RGB or gray)."""
    img = rgb.mean(axis=2) if rgb.ndim == 3 else rgb
    h, w = img.shape
    bw, bh = w / 8, h / 8
    value = 0
    for b in range(BITS):
        row, col = divmod(b, 8)
        y0, y1 = int((3 + row + 0.25) * bh), int((3 + row + 0.75) * bh)
        x0, x1 = int((col + 0.25) * bw), int((col + 0.75) * bw)
        if img[y0 : max(y1, y0 + 1), x0 : max(x1, x0 + 1)].mean() > 128:
            value |= 1 << b
    return value


def frame_times(frames: int, fps: int, vfr: bool) -> list[float]:
    """Presentation time (s) of each frame a `write_counter_video` call writes."""
    pts = 0
    out = []
    for i in range(frames):
        out.append(float(pts * TIME_BASE))
        pts += VFR_STEPS[i % len(VFR_STEPS)] if vfr else int(1 / (fps * TIME_BASE))
    return out


def write_counter_video(
    path: str | Path,
    *,
    frames: int,
    fps: int = 30,
    size: tuple[int, int] = (128, 96),
    gop: int = 60,
    bframes: int = 2,
    vfr: bool = False,
    preset: str = "veryfast",
    crf: int = 23,
    faststart: bool = False,
    seed: int = 0,
    detail: bool = False,
    progress: Callable[[int], None] | None = None,
) -> list[float]:
    """Write an H.264 MP4 with a burned-in frame counter; returns the frame times (s).

    ``gop`` is the keyframe interval in frames (fixed: no scene-cut keyframes), ``bframes`` the number of
    B-frames between references, ``vfr`` cycles frame durations through 1/30, 1/15 and 1/60 s, ``detail``
    adds pixel grain to the moving texture and fresh sensor-like grain to every frame (camera-like bit rate:
    P-frames a few times smaller than keyframes, not a hundred times).
    """
    import av

    width, height = size
    texture = _texture(width, height, seed, detail)
    grain = (
        np.random.default_rng(seed + 1).integers(-5, 6, size=(7, height, width), dtype=np.int16)
        if detail
        else None
    )
    chroma = np.full((height // 2, width), 128, dtype=np.uint8)  # U and V planes, packed as yuv420p rows
    options = {"movflags": "+faststart"} if faststart else {}
    container = av.open(str(path), "w", options=options)
    try:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.time_base = TIME_BASE
        stream.codec_context.time_base = TIME_BASE
        stream.codec_context.gop_size = gop
        stream.codec_context.max_b_frames = bframes
        stream.codec_context.options = {
            "preset": preset,
            "crf": str(crf),
            "g": str(gop),
            "keyint_min": str(gop),
            "sc_threshold": "0",
            "bf": str(bframes),
        }
        times = frame_times(frames, fps, vfr)
        for i in range(frames):
            planes = np.concatenate([counter_luma(i, width, height, texture, grain), chroma])
            frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
            frame.pts = round(times[i] / TIME_BASE)
            frame.time_base = TIME_BASE
            for packet in stream.encode(frame):
                container.mux(packet)
            if progress is not None:
                progress(i + 1)
        for packet in stream.encode():
            container.mux(packet)
    finally:
        container.close()
    return times
