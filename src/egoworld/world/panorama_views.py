"""Panorama → the four perspective views (front, right, back, left), each its own video.

The views are pinhole cameras inside the panorama's camera frame at the yaws of
`egoworld.geometry.equirect.FOUR_VIEWS` (+ turns right): front 0°, right 90°, back 180°, left −90°, with the
same FOV (90° by default) so together they cover the horizon once. A view's pose is ``pose @ R_y(yaw)``.

Geometry that follows (and is tested): when the walker turns right by 90°, what was ahead is seen in
the **left** view (and what was on the right comes ahead). The issue's wording ("seen in the right view")
has the direction backwards.

`cut_views` turns a user's own equirectangular recording into the four view videos (PyAV decoding,
`geometry.equirect` sampling, the deterministic `media.writer.VideoWriter`); `render_view` re-renders one
panorama frame at any yaw (VPO's rotated query images).
"""

from __future__ import annotations

import fractions
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from numpy.typing import NDArray

from egoworld.geometry.equirect import FOUR_VIEWS, PerspectiveSampler, perspective_sampler, view_camera

VIEW_ORDER = ("front", "right", "back", "left")


def view_samplers(
    pano_hw: tuple[int, int],
    size: int,
    fov_deg: float = 90.0,
    mode: Literal["bilinear", "nearest"] = "bilinear",
) -> dict[str, PerspectiveSampler]:
    """One sampler per view for panoramas of ``pano_hw`` → ``size × size`` views."""
    return {
        v: perspective_sampler(pano_hw, (size, size), yaw_deg=FOUR_VIEWS[v], fov_deg=fov_deg, mode=mode)
        for v in VIEW_ORDER
    }


def render_view(pano: NDArray, yaw_deg: float, size: int, fov_deg: float = 90.0) -> NDArray:
    """A ``size × size`` perspective view at ``yaw_deg`` (+ right of the panorama's forward) of one frame."""
    hw = (int(pano.shape[0]), int(pano.shape[1]))
    return perspective_sampler(hw, (size, size), yaw_deg=yaw_deg, fov_deg=fov_deg)(pano)


def _stream_rate(stream: Any) -> fractions.Fraction:
    rate = stream.average_rate or stream.guessed_rate or stream.base_rate
    if not rate:
        raise ValueError("the panorama video has no frame rate")
    return fractions.Fraction(rate).limit_denominator(1000)


def _cut_one(writer: Any, sampler: PerspectiveSampler, rgb: NDArray) -> None:
    writer.write(sampler(rgb))


def cut_views(
    pano_video: str | Path,
    out_dir: str | Path,
    *,
    size: int = 512,
    fov_deg: float = 90.0,
    crf: int = 20,
    progress: Callable[[int], None] | None = None,
    on_frame: Callable[[int, NDArray], None] | None = None,
) -> dict[str, Any]:
    """Write ``front/right/back/left.mp4`` of an equirectangular video into ``out_dir``.

    Returns the views' metadata (the same fields a synthetic walk keeps in ``meta["views"]``): yaw, pitch,
    FOV, video file name, size, frames, duration and pinhole camera. Output is constant frame rate at the
    panorama's average rate; the same input gives the same bytes. ``on_frame(index, rgb)`` sees each decoded
    panorama frame (so a caller that needs the frames too decodes the video once).
    """
    import av

    from egoworld.core.folders.files import InputFileError
    from egoworld.media.writer import VideoWriter

    if size % 2:
        raise ValueError(f"view size must be even (yuv420p), got {size}")
    pano_video, out_dir = Path(pano_video), Path(out_dir)
    try:
        container = av.open(str(pano_video))
    except (av.error.FFmpegError, OSError) as exc:
        raise InputFileError(f"{pano_video}: cannot open the panorama video ({exc})") from exc
    writers: dict[str, VideoWriter] = {}
    frames = 0
    pool = ThreadPoolExecutor(max_workers=min(len(VIEW_ORDER), len(os.sched_getaffinity(0))))
    last: dict[str, Future] = {}  # per view, the frame in flight: each view's frames stay in order
    try:
        stream = container.streams.video[0]
        rate = _stream_rate(stream)
        samplers: dict[str, PerspectiveSampler] = {}
        for frame in container.decode(stream):
            rgb = frame.to_ndarray(format="rgb24")
            if not samplers:
                h, w = rgb.shape[:2]
                if abs(w - 2 * h) > 2:
                    raise InputFileError(f"{pano_video}: {w}×{h} is not an equirectangular (2:1) panorama")
                samplers = view_samplers((h, w), size, fov_deg)
                writers = {
                    v: VideoWriter(out_dir / f"{v}.mp4", float(rate), (size, size), crf=crf)
                    for v in VIEW_ORDER
                }
            if on_frame is not None:
                on_frame(frames, rgb)
            for v in VIEW_ORDER:  # sampling and x264 release the GIL: the views are cut side by side
                if v in last:
                    last[v].result()
                last[v] = pool.submit(_cut_one, writers[v], samplers[v], rgb)
            frames += 1
            if progress is not None:
                progress(frames)
        for f in last.values():
            f.result()
        if not frames:
            raise InputFileError(f"{pano_video}: no video frames")
        for w_ in writers.values():
            w_.close()
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        for w_ in writers.values():
            w_.abort()
        raise
    finally:
        pool.shutdown(wait=True)
        container.close()
    duration = round(frames / float(rate), 6)
    camera = view_camera((size, size), fov_deg).model_dump(mode="json")
    return {
        v: {
            "yaw_deg": FOUR_VIEWS[v],
            "pitch_deg": 0.0,
            "fov_deg": fov_deg,
            "video": f"{v}.mp4",
            "width": size,
            "height": size,
            "frames": frames,
            "duration_s": duration,
            "camera": camera,
        }
        for v in VIEW_ORDER
    }
