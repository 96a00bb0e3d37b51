"""Deterministic H.264 MP4 writing with PyAV (the same frames always give the same bytes).

`VideoWriter` encodes RGB frames (``(H, W, 3)`` uint8, even sizes) with libx264 into yuv420p at a constant
frame rate. Everything that could vary between runs is pinned: the RGB → YUV 4:2:0 conversion is done here
in integer arithmetic (BT.601, limited range — what decoders assume for untagged video — so the bytes do
not depend on libswscale's version or CPU-specific code paths), one encoder thread (x264's output depends on
its thread count), x264's C code paths (``asm=0``: its SIMD routines read a few bytes past the end of a
frame buffer, whose contents are undefined, and the output then varies from run to run), a fixed keyframe
interval without scene-cut keyframes, and the muxer's ``+bitexact`` flag (no library version string, zero
creation times). The file is written to a temporary sibling and renamed
on `VideoWriter.close`, so an interrupted run leaves no half-written video behind.
"""

from __future__ import annotations

import fractions
import os
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
from numpy.typing import NDArray

DEFAULT_CRF = 20
DEFAULT_PRESET = "superfast"


class VideoWriter:
    """Write an MP4 frame by frame: ``with VideoWriter(path, fps, (w, h)) as vw: vw.write(rgb)``."""

    def __init__(
        self,
        path: str | Path,
        fps: float,
        size: tuple[int, int],
        *,
        crf: int = DEFAULT_CRF,
        preset: str = DEFAULT_PRESET,
        keyframe_s: float = 2.0,
    ) -> None:
        import av

        width, height = size
        if width % 2 or height % 2:
            raise ValueError(f"yuv420p needs even frame sizes, got {width}×{height}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.size = (width, height)
        self.frames = 0
        rate = fractions.Fraction(fps).limit_denominator(1000)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        self._tmp = Path(tmp)
        self._container: Any = av.open(str(self._tmp), "w", format="mp4", options={"fflags": "+bitexact"})
        stream = self._container.add_stream("libx264", rate=rate)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        gop = max(1, round(float(rate) * keyframe_s))
        stream.codec_context.gop_size = gop
        stream.codec_context.options = {
            "preset": preset,
            "crf": str(crf),
            "threads": "1",
            "g": str(gop),
            "keyint_min": str(gop),
            "sc_threshold": "0",
            "x264-params": "asm=0",
        }
        self._stream = stream

    def write(self, rgb: NDArray[np.uint8]) -> None:
        """Append one RGB frame ``(H, W, 3)`` uint8."""
        import av

        frame_rgb = np.asarray(rgb, dtype=np.uint8)
        if frame_rgb.shape != (self.size[1], self.size[0], 3):
            raise ValueError(f"frame is {frame_rgb.shape}, the video is {self.size[1]}×{self.size[0]}×3")
        frame = av.VideoFrame.from_ndarray(rgb_to_yuv420p(frame_rgb), format="yuv420p")
        frame.pts = self.frames
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        self.frames += 1

    def close(self) -> Path:
        """Flush the encoder and move the file into place; returns the path."""
        try:
            for packet in self._stream.encode():
                self._container.mux(packet)
        finally:
            self._container.close()
        if self.frames == 0:
            self._tmp.unlink(missing_ok=True)
            raise ValueError(f"{self.path}: no frames were written")
        os.replace(self._tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the partial file."""
        try:
            self._container.close()
        finally:
            self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def rgb_to_yuv420p(rgb: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """RGB ``(H, W, 3)`` → planar yuv420p ``(H·3/2, W)`` (BT.601 limited range, integer arithmetic)."""
    h, w = rgb.shape[:2]
    c16 = rgb.astype(np.uint16)
    y = (c16[..., 0] * 66 + c16[..., 1] * 129 + c16[..., 2] * 25 + 128) >> 8  # < 2¹⁶: exact in uint16
    quad = c16[0::2, 0::2] + c16[1::2, 0::2] + c16[0::2, 1::2] + c16[1::2, 1::2]
    q = (quad.astype(np.int32) + 2) >> 2  # 2×2 means, rounded
    r2, g2, b2 = q[..., 0], q[..., 1], q[..., 2]
    u = ((-38 * r2 - 74 * g2 + 112 * b2 + 128) >> 8) + 128
    v = ((112 * r2 - 94 * g2 - 18 * b2 + 128) >> 8) + 128
    out = np.empty(h * w * 3 // 2, np.uint8)
    out[: h * w] = (y + 16).astype(np.uint8).ravel()
    out[h * w : h * w * 5 // 4] = np.clip(u, 0, 255).astype(np.uint8).ravel()
    out[h * w * 5 // 4 :] = np.clip(v, 0, 255).astype(np.uint8).ravel()
    return out.reshape(h * 3 // 2, w)


def read_video(path: str | Path) -> NDArray[np.uint8]:
    """Decode every frame of a video to ``(T, H, W, 3)`` RGB (for tests and small checks)."""
    import av

    with av.open(str(path)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    return np.stack(frames) if frames else np.zeros((0, 0, 0, 3), np.uint8)
