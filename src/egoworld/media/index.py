"""A video's frame table, built by demuxing (reading packet headers), never by decoding.

Frame ``i`` is the i-th frame in presentation order (sorted presentation timestamps), the numbering decord,
lmms-eval and the benchmarks' ``frame_indices`` use. Its time is ``(pts_i - pts_0) * time_base`` seconds, so
frame 0 is at 0.0 s, also for variable-frame-rate videos. Keyframes are kept with the timestamp to seek to
(its presentation timestamp: FFmpeg's MP4 and Matroska demuxers seek by presentation time; the decoder
checks where a seek landed and steps back a keyframe if it landed late). For H.264 the table also lists the
non-reference frames (from the NAL headers, `egoworld.media.nal`), which the decoder may discard.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from egoworld.media.media_error import MediaError
from egoworld.media.nal import is_nonref, length_size

INDEX_VERSION = "2"
#: codecs whose non-reference frames are listed (and skipped by the decoder)
SKIP_CODECS = ("h264",)
_REMUX = "remux it into MP4 or MKV (`ffmpeg -i IN -c copy OUT.mp4`), or re-encode it"


class TimeOutsideVideo(ValueError):
    """A clip or frame time that lies after the end of the video (or before its start)."""


@dataclass(frozen=True)
class VideoIndex:
    """Presentation timestamps of every frame, keyframe positions and their seek timestamps."""

    pts: tuple[int, ...]
    keyframes: tuple[int, ...]  # presentation positions of keyframes, ascending
    seek_ts: tuple[int, ...]  # per keyframe: the timestamp to seek to (stream time base)
    time_base: Fraction
    width: int
    height: int
    codec: str
    nonref: tuple[int, ...] = ()  # presentation positions of non-reference frames, ascending
    _times: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_times", tuple(float((p - self.pts[0]) * self.time_base) for p in self.pts))

    @property
    def count(self) -> int:
        return len(self.pts)

    @property
    def duration_s(self) -> float:
        """Time of the last frame (a video of one frame lasts 0 s here)."""
        return self.time_of(self.count - 1)

    @property
    def avg_fps(self) -> float:
        return (self.count - 1) / self.duration_s if self.count > 1 and self.duration_s > 0 else 0.0

    def time_of(self, i: int) -> float:
        return self._times[i]

    def nearest(self, t: float) -> int:
        """The frame nearest to time ``t`` (ties go to the later frame); clamped to the video."""
        times = self._times
        j = bisect.bisect_left(times, t)
        if j <= 0:
            return 0
        if j >= len(times):
            return len(times) - 1
        return j if times[j] - t <= t - times[j - 1] + 1e-9 else j - 1  # ties (within 1 ns) → later

    @property
    def end_s(self) -> float:
        """Where the video ends: the last frame's time plus one frame interval (it stays on screen until
        then), i.e. the nominal duration, ``count / fps`` for a constant rate; one-frame videos end at 0 s."""
        return self.duration_s + (self.duration_s / (self.count - 1) if self.count > 1 else 0.0)

    def frame_at(self, t: float, what: str = "time") -> int:
        """The frame nearest ``t``, refusing a time outside the video: the one clamping policy.

        A time is inside the video when ``0 ≤ t ≤ end_s`` (+1 µs for rounding): up to one frame interval
        after the last frame's timestamp, the tolerance that keeps a clip ending at the stated duration
        valid. Anything later is `TimeOutsideVideo`, never silently the last frame.
        """
        if not 0 <= t <= self.end_s + 1e-6:
            raise TimeOutsideVideo(
                f"{what} {t:g} s is outside the video (0 to {self.end_s:.3f} s: {self.count} frames, last at "
                f"{self.duration_s:.3f} s, tolerance one frame interval)"
            )
        return self.nearest(t)

    def position(self, pts: int) -> int | None:
        """Presentation position of a frame with timestamp ``pts``, or None when no frame has it."""
        j = bisect.bisect_left(self.pts, pts)
        return j if j < len(self.pts) and self.pts[j] == pts else None

    def keyframe_slot(self, i: int) -> int:
        """Index into ``keyframes`` of the last keyframe at or before frame ``i``."""
        return max(0, bisect.bisect_right(self.keyframes, i) - 1)

    def nonref_in(self, first: int, last: int) -> int:
        """Non-reference frames among frames ``first`` … ``last``."""
        if last < first:
            return 0
        return bisect.bisect_right(self.nonref, last) - bisect.bisect_left(self.nonref, first)

    def theoretical_minimum(self, targets: list[int]) -> int:
        """Frames any decoder must decode for ``targets``: in the union of [preceding keyframe, target],
        the reference frames and the targets themselves."""
        wanted = sorted(set(targets))
        covered = 0
        end = -1
        for t in wanted:
            start = max(self.keyframes[self.keyframe_slot(t)], end + 1)
            if t >= start:
                covered += t - start + 1 - self.nonref_in(start, t)
            end = max(end, t)
        skipped_targets = sum(1 for t in wanted if self.nonref_in(t, t))
        return covered + skipped_targets

    def to_json(self) -> dict[str, Any]:
        return {
            "version": INDEX_VERSION,
            "pts": list(self.pts),
            "keyframes": list(self.keyframes),
            "seek_ts": list(self.seek_ts),
            "time_base": [self.time_base.numerator, self.time_base.denominator],
            "width": self.width,
            "height": self.height,
            "codec": self.codec,
            "nonref": list(self.nonref),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VideoIndex:
        return cls(
            pts=tuple(d["pts"]),
            keyframes=tuple(d["keyframes"]),
            seek_ts=tuple(d["seek_ts"]),
            time_base=Fraction(*d["time_base"]),
            width=int(d["width"]),
            height=int(d["height"]),
            codec=str(d["codec"]),
            nonref=tuple(d.get("nonref", ())),
        )


#: FFmpeg demuxers that render any text file as "video" (ANSI art and its kin): never a real video container
TEXT_DEMUXERS = {"tty", "bin", "xbin", "adf", "idf"}


def probe(path: str | Path) -> VideoIndex:
    """Read the frame table of the first video stream of ``path`` (demux only)."""
    import av

    path = Path(path)
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError) as exc:
        raise MediaError(path, f"cannot open the video; the file is damaged or truncated ({exc})") from exc
    try:
        fmt = container.format.name
        if set(fmt.split(",")) & TEXT_DEMUXERS:
            raise MediaError(
                path,
                f"is not a video: FFmpeg reads it only as text art ({fmt} demuxer, "
                f"{container.format.long_name or 'text'})",
                fix="pass a video file (mp4, mkv, mov, …)",
            )
        if not container.streams.video:
            raise MediaError(path, "has no video stream", fix="point the sample at a video file")
        stream = container.streams.video[0]
        ctx = stream.codec_context
        parse_nal = ctx.name in SKIP_CODECS
        prefix = length_size(bytes(ctx.extradata or b"")) if parse_nal else None
        rows: list[tuple[int, bool, bool]] = []  # (pts, keyframe, non-reference)
        try:
            for packet in container.demux(stream):
                if packet.size == 0 or packet.is_discard:
                    continue
                if packet.pts is None:
                    raise MediaError(path, "has frames without presentation timestamps", fix=_REMUX)
                key = bool(packet.is_keyframe)
                nonref = parse_nal and not key and is_nonref(memoryview(packet), prefix)
                rows.append((packet.pts, key, nonref))
        except av.error.FFmpegError as exc:
            raise MediaError(
                path, f"the file is damaged after frame {len(rows)} ({exc})", frame=len(rows)
            ) from exc
        if not rows:
            raise MediaError(path, "has no video frames")
        if stream.frames and stream.frames > len(rows):
            raise MediaError(
                path,
                f"the file is truncated: its header lists {stream.frames} frames, but only {len(rows)} are present",
                frame=len(rows),
                fix="download or copy the file again (or re-encode what is left)",
            )
        rows.sort(key=lambda r: r[0])
        pts = [r[0] for r in rows]
        if len(set(pts)) != len(pts):
            raise MediaError(path, "has several frames with the same timestamp", fix=_REMUX)
        keys = [i for i, r in enumerate(rows) if r[1]]
        if not keys or keys[0] != 0:
            # an open-GOP start: frames before the first keyframe decode from it onwards
            keys = [0, *keys]
        return VideoIndex(
            pts=tuple(pts),
            keyframes=tuple(keys),
            seek_ts=tuple(pts[k] for k in keys),
            time_base=Fraction(stream.time_base),
            width=int(ctx.width),
            height=int(ctx.height),
            codec=str(ctx.name),
            nonref=tuple(i for i, r in enumerate(rows) if r[2]),
        )
    finally:
        container.close()
