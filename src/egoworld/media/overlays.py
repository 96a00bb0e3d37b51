"""Pixel overlays on decoded frames: fisheye valid-circle mask, burned-in timestamp, red marker.

All drawing is deterministic (a fixed bitmap font scaled by whole pixels, integer geometry), so the same
frame and parameters give the same bytes and the cache can key on the parameters.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

MARKER_RGB = (255, 0, 0)


def output_size(width: int, height: int, max_pixels: int) -> tuple[int, int]:
    """The largest size with the video's aspect ratio and at most ``max_pixels`` pixels (0: no limit).

    Frames are only ever shrunk, never enlarged.
    """
    if max_pixels <= 0 or width * height <= max_pixels:
        return width, height
    scale = math.sqrt(max_pixels / (width * height))
    w, h = max(1, math.floor(width * scale)), max(1, math.floor(height * scale))
    while w * h > max_pixels:  # float rounding
        w, h = max(1, w - 1), max(1, h - 1)
    return w, h


def circle(width: int, height: int, radius_frac: float) -> tuple[float, float, float]:
    """Centre and radius of the fisheye valid circle: centred, ``radius_frac`` of half the short side."""
    return width / 2, height / 2, radius_frac * min(width, height) / 2


def outside_circle(width: int, height: int, radius_frac: float) -> np.ndarray:
    """Boolean mask (h, w): True where a pixel centre lies outside the valid circle."""
    cx, cy, r = circle(width, height, radius_frac)
    ys = np.arange(height)[:, None] + 0.5 - cy
    xs = np.arange(width)[None, :] + 0.5 - cx
    return xs * xs + ys * ys > r * r


def apply_fisheye_mask(rgb: np.ndarray, radius_frac: float) -> np.ndarray:
    """Black out everything outside the valid circle (in place; returns the array)."""
    rgb[outside_circle(rgb.shape[1], rgb.shape[0], radius_frac)] = 0
    return rgb


def clock(seconds: float) -> str:
    """``HH:MM:SS`` (whole seconds, floored), the format Beyond3D's timestamp choices use."""
    s = max(0, int(math.floor(seconds + 1e-9)))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


@lru_cache(maxsize=64)
def _glyphs(text: str) -> np.ndarray:
    """The text in Pillow's built-in bitmap font, as a boolean array (tight box)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default_imagefont()
    x0, y0, x1, y1 = font.getbbox(text)
    img = Image.new("L", (x1 + 1, y1 + 1))
    ImageDraw.Draw(img).text((0, 0), text, fill=255, font=font)
    a = np.asarray(img) > 127
    rows, cols = np.flatnonzero(a.any(axis=1)), np.flatnonzero(a.any(axis=0))
    return a[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def _fits(box: tuple[int, int, int, int], width: int, height: int, radius_frac: float | None) -> bool:
    x0, y0, x1, y1 = box
    if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
        return False
    if radius_frac is None:
        return True
    cx, cy, r = circle(width, height, radius_frac)
    # the box point nearest the centre must lie outside the circle
    nx, ny = min(max(cx, x0), x1), min(max(cy, y0), y1)
    return (nx - cx) ** 2 + (ny - cy) ** 2 >= r * r


def timestamp_box(
    text: str, width: int, height: int, radius_frac: float | None
) -> tuple[int, int, int] | None:
    """(x, y, scale) for the timestamp: the largest whole-pixel scale (text height ≤ ~6 % of the frame)
    whose padded box fits in a corner outside the valid circle; None when none fits."""
    glyphs = _glyphs(text)
    gh, gw = glyphs.shape
    pad = 2
    top = max(1, round(0.06 * min(width, height) / gh))
    for scale in range(top, 0, -1):
        bw, bh = gw * scale + 2 * pad, gh * scale + 2 * pad
        for x, y in ((1, 1), (width - bw - 1, 1), (1, height - bh - 1), (width - bw - 1, height - bh - 1)):
            if _fits((x, y, x + bw, y + bh), width, height, radius_frac):
                return x, y, scale
    return None


def burn_timestamp(rgb: np.ndarray, seconds: float, radius_frac: float | None) -> np.ndarray:
    """Write ``HH:MM:SS`` in white on black into a corner (outside the fisheye circle when given)."""
    text = clock(seconds)
    h, w = rgb.shape[:2]
    where = timestamp_box(text, w, h, radius_frac)
    if where is None:
        raise ValueError(
            f"the timestamp does not fit outside the fisheye circle of a {w}×{h} frame; raise --max-pixels "
            "or use a smaller circle (fisheye=0.9)"
        )
    x, y, scale = where
    glyphs = np.kron(_glyphs(text), np.ones((scale, scale), dtype=bool))
    gh, gw = glyphs.shape
    pad = 2
    rgb[y : y + gh + 2 * pad, x : x + gw + 2 * pad] = 0
    region = rgb[y + pad : y + pad + gh, x + pad : x + pad + gw]
    region[glyphs] = 255
    return rgb


#: the official Beyond3D marker: ffmpeg ``drawbox`` of an 8 px square, ``color=red@0.95:t=fill``
SQUARE_MARKER_PX = 8
SQUARE_MARKER_ALPHA = 0.95


def draw_square_marker(rgb: np.ndarray, x: float, y: float, size: int = SQUARE_MARKER_PX) -> np.ndarray:
    """The official Beyond3D marker at pixel (x, y) of this frame (in place): the centre clamped into the
    frame and rounded (Python's ``round``), a ``size`` px square from ``centre - size // 2`` kept inside
    the frame, filled red at 95 % opacity (``_extract_marked_prefix_video``'s geometry)."""
    h, w = rgb.shape[:2]
    cx = max(0.0, min(float(w - 1), x))
    cy = max(0.0, min(float(h - 1), y))
    size = max(1, size)
    left = max(0, min(max(0, w - size), round(cx) - size // 2))
    top = max(0, min(max(0, h - size), round(cy) - size // 2))
    box = rgb[top : top + size, left : left + size].astype(np.float64)
    box = SQUARE_MARKER_ALPHA * np.asarray(MARKER_RGB, np.float64) + (1 - SQUARE_MARKER_ALPHA) * box
    rgb[top : top + size, left : left + size] = np.round(box).astype(rgb.dtype)
    return rgb


def draw_marker(rgb: np.ndarray, x: float, y: float) -> np.ndarray:
    """A red ring with a red centre dot at pixel (x, y) of this frame (in place)."""
    h, w = rgb.shape[:2]
    radius = max(4.0, 0.025 * min(w, h))
    thickness = max(1.5, radius / 4)
    ys = np.arange(h)[:, None] + 0.5 - y
    xs = np.arange(w)[None, :] + 0.5 - x
    d = np.sqrt(xs * xs + ys * ys)
    paint = (np.abs(d - radius) <= thickness / 2) | (d <= max(1.5, radius / 4))
    rgb[paint] = MARKER_RGB
    return rgb
