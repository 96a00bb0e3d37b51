"""Sampled frames as one MP4 clip, for servers that take a video part (vLLM, SGLang ``video_url``).

The clip holds exactly the frames the policy chose (already resized and overlaid), so the server sees the
same frames as with image parts; it is encoded once, single-threaded (byte-exact for the same software),
nearly lossless (H.264, CRF 12), and cached like any frame.
"""

from __future__ import annotations

import fractions
import io

import numpy as np

CLIP_VERSION = "1"


def clip_fps(times: list[float]) -> float:
    """The clip's nominal rate: frames over the time they span (1 fps for one frame), to 3 decimals."""
    if len(times) < 2 or times[-1] <= times[0]:
        return 1.0
    return round((len(times) - 1) / (times[-1] - times[0]), 3)


def encode_clip(frames: list[np.ndarray], fps: float) -> bytes:
    """MP4 (H.264, yuv420p) of RGB frames of one size; odd sizes lose their last row / column."""
    import av

    if not frames:
        raise ValueError("a clip needs at least one frame")
    h, w = frames[0].shape[:2]
    w2, h2 = w - w % 2, h - h % 2
    rate = fractions.Fraction(fps).limit_denominator(1001)
    buf = io.BytesIO()
    container = av.open(buf, "w", format="mp4")
    try:
        stream = container.add_stream("libx264", rate=rate)
        stream.width, stream.height, stream.pix_fmt = w2, h2, "yuv420p"
        stream.codec_context.options = {"crf": "12", "preset": "medium", "threads": "1"}
        stream.codec_context.thread_count = 1
        container.metadata["encoder"] = "egoworld"
        for rgb in frames:
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb[:h2, :w2]), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    finally:
        container.close()
    return buf.getvalue()
