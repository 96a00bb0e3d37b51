"""Decode exactly the requested frames of a video with PyAV, doing the least decoding.

For each target (ascending) the decoder either continues from where it is or seeks to the target's
preceding keyframe, whichever decodes fewer frames, counting a seek as `SEEK_COST` extra frames (the
decoder's pipeline refills after a flush): a dense request turns into one sequential pass, a sparse one
into one short run per target, and a full decode happens only when it is the cheaper plan.
Frames are identified by their presentation timestamp, so B-frames and variable frame rates give the exact
frame. Only target frames are converted, straight to RGB at the output size (swscale resizes while it
converts: a 1080p frame is never held as RGB). Decoding is threaded (frame + slice threads).

Frames that no other frame references (the non-reference B-frames of typical x264 output) are discarded by
the decoder while the next target is still ahead: the decoder's ``skip_frame`` is set to ``NONREF`` for
each run of packets that are not targets and back to ``DEFAULT`` for a target's packet, so a target that
is itself a non-reference frame is still decoded, and every reference frame is decoded as before (the
pixels are identical). Only H.264 is decoded this way (``index.SKIP_CODECS``: there ``nal_ref_idc == 0`` means
no other picture refers to it); other codecs decode every frame.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.media.errors import MediaError
from egoworld.media.index import SKIP_CODECS, VideoIndex

#: frames a seek is worth: a flush empties the frame-thread and B-frame reorder pipeline
SEEK_COST = 8


def plan_continues(last: int, keyframe: int) -> bool:
    """Continue from frame ``last`` rather than seek to ``keyframe`` (both before the target)?"""
    return last >= keyframe - 1 - SEEK_COST


@dataclass
class DecodeStats:
    """What one decode did: packets fed to the decoder, frames it produced, seeks, frames converted."""

    packets: int = 0
    frames: int = 0
    seeks: int = 0
    converted: int = 0
    skip_runs: int = 0  # runs of packets fed with non-reference frames discarded


def interpolation() -> Any:
    """Area averaging with bit-exact, accurately rounded swscale output (the same pixels on every CPU)."""
    from av.video.reformatter import Interpolation

    flags = Interpolation.AREA
    for name in ("ACCURATE_RND", "BITEXACT"):  # option flags of PyAV >= 15; older versions use plain AREA
        flags |= getattr(Interpolation, name, 0)
    return flags


def decode_frames(
    path: str | Path,
    index: VideoIndex,
    targets: Iterable[int],
    *,
    size: tuple[int, int] | None = None,
    threads: int = 0,
    stats: DecodeStats | None = None,
    skip_nonref: bool = True,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(frame index, RGB array of shape (h, w, 3))`` for each distinct target, ascending.

    ``size`` is the output (width, height) (default: the video's); ``threads`` 0 lets FFmpeg choose;
    ``skip_nonref`` discards non-reference frames that are not targets (same output, less decoding).
    A frame that cannot be produced raises `MediaError` naming the file and the frame.
    """
    import av

    wanted = sorted(set(targets))
    if not wanted:
        return
    if wanted[0] < 0 or wanted[-1] >= index.count:
        bad = wanted[0] if wanted[0] < 0 else wanted[-1]
        raise MediaError(
            path, f"the video has {index.count} frames", frame=bad, fix="ask for frames 0 … count-1"
        )
    stats = stats if stats is not None else DecodeStats()
    width, height = size or (index.width, index.height)
    interp = interpolation()
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError) as exc:
        raise MediaError(path, f"cannot open the video ({exc})", frame=wanted[0]) from exc
    try:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        stream.codec_context.thread_count = threads
        ctx = stream.codec_context
        skipping_nonref = skip_nonref and index.codec in SKIP_CODECS
        ahead = set(wanted)  # targets not yielded yet: their packets are always decoded in full
        mode = ["DEFAULT"]

        def set_mode(packet: Any) -> None:
            """NONREF for a packet that is not a target still ahead, DEFAULT for one that is."""
            pos = index.position(packet.pts) if packet.pts is not None else None
            want = "NONREF" if pos is not None and pos not in ahead else "DEFAULT"
            if want != mode[0]:
                ctx.skip_frame = want
                mode[0] = want
                stats.skip_runs += want == "NONREF"

        def run_from(slot: int) -> Iterator[Any]:
            # Demuxers may land a keyframe early (MP4 with varying B-frame delay does): packets before the
            # wanted keyframe are skipped undecoded. Landing late is caught by the caller (it steps back).
            key_pts = index.pts[index.keyframes[slot]]
            container.seek(index.seek_ts[slot], stream=stream, backward=True)
            stats.seeks += 1
            skipping = True
            for packet in container.demux(stream):
                if skipping and packet.size:
                    if not (packet.is_keyframe and packet.pts is not None and packet.pts >= key_pts):
                        continue
                    skipping = False
                if packet.size:
                    stats.packets += 1
                    if skipping_nonref:
                        set_mode(packet)
                yield from packet.decode()

        frames: Iterator[Any] | None = None
        last = -1  # position of the last frame the running decode produced
        for t in wanted:
            slot = index.keyframe_slot(t)
            fresh = frames is None or last >= t or not plan_continues(last, index.keyframes[slot])
            if fresh:
                frames = run_from(slot)
            while True:
                try:
                    frame = next(frames, None)
                except av.error.FFmpegError as exc:
                    raise MediaError(path, f"decoding failed after frame {last} ({exc})", frame=t) from exc
                if frame is None:
                    raise MediaError(
                        path,
                        f"the decoder stopped at frame {last} of {index.count} before reaching this frame "
                        "(the file is truncated or damaged)",
                        frame=t,
                    )
                stats.frames += 1
                pos = index.position(frame.pts) if frame.pts is not None else None
                if pos is None:
                    raise MediaError(
                        path,
                        f"the decoder produced a frame (pts {frame.pts}) that is not in the frame table",
                        frame=t,
                    )
                if pos < t:
                    last = pos
                    fresh = False
                    continue
                if pos > t:
                    if fresh and slot > 0:  # the seek landed past the target's keyframe: go back one more
                        slot -= 1
                        frames = run_from(slot)
                        continue
                    raise MediaError(
                        path,
                        f"the decoder skipped this frame (went from frame {last} to {pos}); it is damaged",
                        frame=t,
                    )
                if frame.is_corrupt:
                    raise MediaError(path, "the decoder marked this frame as corrupt", frame=t)
                last = pos
                ahead.discard(t)
                image = frame.to_ndarray(width=width, height=height, format="rgb24", interpolation=interp)
                stats.converted += 1
                yield t, image
                break
    finally:
        container.close()
