"""Decode exactly the requested frames of a video with PyAV, doing the least decoding.

The targets (ascending) are planned as *runs*: a run starts with a seek to a keyframe and decodes on to its
targets; a target joins the running run when continuing decodes fewer frames than seeking to its
keyframe, counting a seek as `seek_cost` extra frames (a frame-threaded decoder's pipeline refills after a
flush; a single-threaded one loses nothing). A dense request turns into one sequential pass, a sparse one
into one short run per target. At the end of a run the decoder is drained as soon as every frame up to its
last target has been sent, so the packets that would only fill the B-frame reorder delay are not decoded.
Frames are identified by their presentation timestamp, so B-frames and variable frame rates give the exact
frame. Only target frames are converted, straight to RGB at the output size (swscale resizes while it
converts, with one scaler per decoder on the decoder's own thread: a 1080p frame is never held as RGB).

Frames that no other frame references (the non-reference B-frames of typical x264 output) are discarded by
the decoder while the next target is still ahead: the decoder's ``skip_frame`` is set to ``NONREF`` for
each run of packets that are not targets and back to ``DEFAULT`` for a target's packet, so a target that
is itself a non-reference frame is still decoded, and every reference frame is decoded as before (the
pixels are identical). Only H.264 is decoded this way (``index.SKIP_CODECS``: there ``nal_ref_idc == 0`` means
no other picture refers to it); other codecs decode every frame.

`FrameDecoder` keeps one container open across runs (the parallel decoder hands each worker run after run);
`DecodeStats` records what it did and where its CPU time went (per phase, in thread CPU seconds).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np

from egoworld.media.index import SKIP_CODECS, VideoIndex
from egoworld.media.media_error import MediaError

#: frames a seek is worth to a frame-threaded decoder: a flush empties its thread and reorder pipeline
SEEK_COST = 8


def seek_cost(threads: int) -> int:
    """Frames a seek is worth: `SEEK_COST` with frame threads (``threads`` 0 or > 1), none on one thread
    (a flush there only drops the reorder buffer, which draining has emptied already)."""
    return 0 if threads == 1 else SEEK_COST


def plan_continues(last: int, keyframe: int, cost: int = SEEK_COST) -> bool:
    """Continue from frame ``last`` rather than seek to ``keyframe`` (both before the target)?"""
    return last >= keyframe - 1 - cost


def plan_runs(index: VideoIndex, targets: list[int], cost: int = SEEK_COST) -> list[tuple[list[int], int]]:
    """The one-decoder plan as runs: (targets of the run, frames it decodes: the non-reference frames
    passed on the way to a target are not decoded). Each run starts with a seek."""
    runs: list[tuple[list[int], int]] = []
    last: int | None = None
    for t in targets:
        key = index.keyframes[index.keyframe_slot(t)]
        if last is None or not plan_continues(last, key, cost):
            runs.append(([t], t - key + 1 - index.nonref_in(key, t - 1)))
        else:
            members, run_cost = runs[-1]
            runs[-1] = ([*members, t], run_cost + t - last - index.nonref_in(last + 1, t - 1))
        last = t
    return runs


@dataclass
class DecodeStats:
    """What one decode did: packets fed to the decoder, frames it produced, seeks, frames converted, and
    per phase (seek, demux, decode, convert) its thread CPU seconds (``<phase>_s``) and wall seconds
    (``<phase>_wall_s``), plus wall seconds spent waiting to hand a frame over (``wait_s``, the parallel
    decoder's queue). The parallel decoder also fills one entry per worker in the ``worker_*`` lists."""

    packets: int = 0
    frames: int = 0
    seeks: int = 0
    converted: int = 0
    skip_runs: int = 0  # runs of packets fed with non-reference frames discarded
    drains: int = 0  # runs ended by draining the decoder (no packet decoded past the last target's)
    seek_s: float = 0.0
    demux_s: float = 0.0
    decode_s: float = 0.0
    convert_s: float = 0.0
    seek_wall_s: float = 0.0
    demux_wall_s: float = 0.0
    decode_wall_s: float = 0.0
    convert_wall_s: float = 0.0
    wait_s: float = 0.0
    worker_cpu_s: list[float] = field(default_factory=list)  # per parallel worker: its thread CPU seconds
    worker_wall_s: list[float] = field(default_factory=list)
    worker_start_s: list[float] = field(default_factory=list)  # wall seconds from the call to its first run
    worker_runqueue_s: list[float] = field(default_factory=list)  # waiting for a core (`runqueue_wait_s`)
    worker_runs: list[int] = field(default_factory=list)
    worker_packets: list[int] = field(default_factory=list)

    def spend(self, phase: str, wall0: float, cpu0: float) -> None:
        """Add the wall and thread CPU seconds since ``wall0`` / ``cpu0`` (`clocks`) to ``phase``."""
        cpu_name, wall_name = phase + "_s", phase + "_wall_s"
        setattr(self, cpu_name, getattr(self, cpu_name) + time.thread_time() - cpu0)
        setattr(self, wall_name, getattr(self, wall_name) + time.perf_counter() - wall0)

    def merge(self, other: DecodeStats) -> None:
        """Add ``other``'s counts and seconds to these."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


def clocks() -> tuple[float, float]:
    """Wall and thread CPU clocks now (for `DecodeStats.spend`)."""
    return time.perf_counter(), time.thread_time()


def scaler_options() -> dict[str, int]:
    """``reformat`` keywords: one thread (PyAV >= 17 otherwise starts one swscale thread per core for every
    scaler, on top of the decoders that already take every core; the pixels are the same)."""
    import av

    return {"threads": 1} if int(av.__version__.split(".")[0]) >= 17 else {}


def interpolation() -> Any:
    """Area averaging with bit-exact, accurately rounded swscale output (the same pixels on every CPU)."""
    from av.video.reformatter import Interpolation

    flags = Interpolation.AREA
    for name in ("ACCURATE_RND", "BITEXACT"):  # option flags of PyAV >= 15; older versions use plain AREA
        flags |= getattr(Interpolation, name, 0)
    return flags


def check_targets(path: str | Path, index: VideoIndex, wanted: list[int]) -> None:
    if wanted and (wanted[0] < 0 or wanted[-1] >= index.count):
        bad = wanted[0] if wanted[0] < 0 else wanted[-1]
        raise MediaError(
            path, f"the video has {index.count} frames", frame=bad, fix="ask for frames 0 … count-1"
        )


class FrameDecoder:
    """One open video decoding runs of targets (see the module docstring); use as a context manager.

    ``size`` is the output (width, height) (default: the video's); ``threads`` 0 lets FFmpeg choose;
    ``skip_nonref`` discards non-reference frames that are not targets (same output, less decoding).
    """

    def __init__(
        self,
        path: str | Path,
        index: VideoIndex,
        *,
        size: tuple[int, int] | None = None,
        threads: int = 0,
        stats: DecodeStats | None = None,
        skip_nonref: bool = True,
    ):
        import av
        from av.video.reformatter import VideoReformatter

        self.path, self.index, self.threads = path, index, threads
        self.stats = stats if stats is not None else DecodeStats()
        self.width, self.height = size or (index.width, index.height)
        self._interp = interpolation()
        self._scaler = VideoReformatter()
        self._scaler_options = scaler_options()
        try:
            self._container = av.open(str(path))
        except (av.error.FFmpegError, OSError) as exc:
            raise MediaError(path, f"cannot open the video ({exc})") from exc
        self._stream = self._container.streams.video[0]
        self._stream.thread_type = "AUTO"
        self._stream.codec_context.thread_count = threads
        self._skipping_nonref = skip_nonref and index.codec in SKIP_CODECS
        self._mode = "DEFAULT"

    def __enter__(self) -> FrameDecoder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._container.close()

    def frames(self, targets: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(frame index, RGB array of shape (h, w, 3))`` for each distinct target, ascending.

        A frame that cannot be produced raises `MediaError` naming the file and the frame.
        """
        wanted = sorted(set(targets))
        check_targets(self.path, self.index, wanted)
        for members, _ in plan_runs(self.index, wanted, seek_cost(self.threads)):
            yield from self.run(members)

    def run(self, members: list[int]) -> Iterator[tuple[int, np.ndarray]]:
        """Decode one run: seek to the keyframe of its first target, decode on to each target in turn."""
        import av

        index, stats = self.index, self.stats
        ahead = set(members)  # targets not yielded yet: their packets are always decoded in full
        slot = index.keyframe_slot(members[0])
        frames = self._from_keyframe(slot, members[-1], ahead)
        fresh = True  # nothing decoded since the seek
        last = -1  # position of the last frame this run produced
        for t in members:
            while True:
                try:
                    frame = next(frames, None)
                except av.error.FFmpegError as exc:
                    raise MediaError(
                        self.path, f"decoding failed after frame {last} ({exc})", frame=t
                    ) from exc
                if frame is None:
                    raise MediaError(
                        self.path,
                        f"the decoder stopped at frame {last} of {index.count} before reaching this frame "
                        "(the file is truncated or damaged)",
                        frame=t,
                    )
                stats.frames += 1
                pos = index.position(frame.pts) if frame.pts is not None else None
                if pos is None:
                    raise MediaError(
                        self.path,
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
                        frames = self._from_keyframe(slot, members[-1], ahead)
                        continue
                    raise MediaError(
                        self.path,
                        f"the decoder skipped this frame (went from frame {last} to {pos}); it is damaged",
                        frame=t,
                    )
                if frame.is_corrupt:
                    raise MediaError(self.path, "the decoder marked this frame as corrupt", frame=t)
                last = pos
                fresh = False
                ahead.discard(t)
                yield t, self._convert(frame)
                break

    def _convert(self, frame: Any) -> np.ndarray:
        w0, c0 = clocks()
        rgb = self._scaler.reformat(
            frame,
            width=self.width,
            height=self.height,
            format="rgb24",
            interpolation=self._interp,
            **self._scaler_options,
        )
        image = rgb.to_ndarray()
        self.stats.spend("convert", w0, c0)
        self.stats.converted += 1
        return image

    def _set_mode(self, pos: int | None, ahead: set[int]) -> None:
        """NONREF for a packet that is not a target still ahead, DEFAULT for one that is."""
        want: Literal["NONREF", "DEFAULT"] = "NONREF" if pos is not None and pos not in ahead else "DEFAULT"
        if want != self._mode:
            self._stream.codec_context.skip_frame = want
            self._mode = want
            self.stats.skip_runs += want == "NONREF"

    def _from_keyframe(self, slot: int, end: int, ahead: set[int]) -> Iterator[Any]:
        """Frames decoded from keyframe ``slot`` on; once every frame from the keyframe to ``end`` has been
        sent, the decoder is drained and the run ends (frames up to ``end`` all come out)."""
        index, stats, stream = self.index, self.stats, self._stream
        ctx = stream.codec_context
        key = index.keyframes[slot]
        key_pts = index.pts[key]
        w0, c0 = clocks()
        self._container.seek(index.seek_ts[slot], stream=stream, backward=True)  # flushes the decoder
        stats.spend("seek", w0, c0)
        stats.seeks += 1
        # Demuxers may land a keyframe early (MP4 with varying B-frame delay does): packets before the
        # wanted keyframe are skipped undecoded. Landing late is caught by `run` (it steps back).
        skipping = True
        unsent = end - key + 1  # frames key … end not sent to the decoder yet
        packets = self._container.demux(stream)
        while True:
            w0, c0 = clocks()
            packet = next(packets, None)
            stats.spend("demux", w0, c0)
            if packet is None:
                return
            if skipping and packet.size:
                if not (packet.is_keyframe and packet.pts is not None and packet.pts >= key_pts):
                    continue
                skipping = False
            pos = index.position(packet.pts) if packet.pts is not None else None
            if packet.size:
                stats.packets += 1
                if self._skipping_nonref:
                    self._set_mode(pos, ahead)
            w0, c0 = clocks()
            decoded = packet.decode()
            stats.spend("decode", w0, c0)
            yield from decoded
            if packet.size and pos is not None and key <= pos <= end:
                unsent -= 1
                if unsent == 0:  # everything up to ``end`` is in the decoder: drain it, decode no more
                    w0, c0 = clocks()
                    rest = ctx.decode(None)
                    stats.spend("decode", w0, c0)
                    stats.drains += 1
                    yield from rest
                    return


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
    """Yield ``(frame index, RGB array of shape (h, w, 3))`` for each distinct target, ascending (one
    `FrameDecoder`; see its arguments). A frame that cannot be produced raises `MediaError`."""
    wanted = sorted(set(targets))
    if not wanted:
        return
    check_targets(path, index, wanted)
    try:
        decoder = FrameDecoder(path, index, size=size, threads=threads, stats=stats, skip_nonref=skip_nonref)
    except MediaError as exc:
        raise MediaError(path, exc.reason, frame=wanted[0]) from exc.__cause__
    with decoder:
        yield from decoder.frames(wanted)
