"""The runner's `MediaInputs`: the media parts of a sample for the ``frames`` and ``last-frame`` settings.

Parts come in this order, before the question text (so servers with prefix caching reuse the prefill
across questions and option orders):

* ``frames``: the frames the policy samples from the sample's video clip (or one video part with them),
  then the sample's listed frames, each labelled ("Frame 1" … unless the sample names it; the label goes
  as a text part, not into the pixels), with their red marker when they have one, then the images;
* ``last-frame``: the frame at the clip end (the query time), or the sample's listed frame whose role is
  ``last_frame``, with its red marker, then the images.

Every image part records where it came from (video path, frame index, time, policy) in ``source``, which
the request store keeps. A sample's parts are built once and shared by its option orders and epochs.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.model import ImagePart, Part, VideoPart
from egoworld.core.schema import FrameInput, Sample
from egoworld.media.cache import FrameCache
from egoworld.media.engine import Encoded, MediaEngine, Memo, Video
from egoworld.media.formats import canonical_image_format
from egoworld.media.index import TimeOutsideVideo
from egoworld.media.media_error import MediaError
from egoworld.media.policies import Clip, Policy, parse_policy
from egoworld.media.prep import Prep, parse_overlays
from egoworld.runner.inputs import InputSettings

LAST_FRAME_ROLE = "last_frame"


class MediaParts:
    """`MediaInputs` backed by a `MediaEngine`."""

    def __init__(self, settings: InputSettings, engine: MediaEngine):
        if settings.setting not in ("frames", "last-frame"):
            raise ValueError(
                f"the media engine serves the frames and last-frame settings, not {settings.setting!r}"
            )
        if settings.frames < 1:
            raise ValueError(f"--frames must be at least 1, got {settings.frames}")
        if settings.max_pixels < 0:
            raise ValueError(f"--max-pixels must be 0 (keep the size) or positive, got {settings.max_pixels}")
        self.settings = settings
        self.engine = engine
        self.policy: Policy = parse_policy(settings.frame_policy)
        timestamp, fisheye = parse_overlays(settings.overlays)
        self.prep = Prep(
            max_pixels=settings.max_pixels,
            fisheye=fisheye,
            timestamp=timestamp,
            image_format=canonical_image_format(settings.image_format),
        )
        #: frames sampled per sample, where fewer than --frames (a short clip): sample id → frames sent
        self.short: dict[str, int] = {}
        self._parts = Memo(64)  # a sample's option orders and epochs run together (clip order)
        self._locks = [threading.Lock() for _ in range(16)]

    def parts(self, bench: Benchmark, sample: Sample) -> list[Part]:
        memo_key = (str(bench.root), sample.id)
        done = self._parts.get(memo_key)
        if done is None:
            lock = self._locks[sum(sample.id.encode()) % len(self._locks)]
            with lock:  # option orders of one sample wait for the first build instead of repeating it
                done = self._parts.get(memo_key)
                if done is None:
                    done = tuple(self._build(bench, sample))
                    self._parts.put(memo_key, done)
        return list(done)

    def close(self) -> None:
        self.engine.cache.close()

    # -- what an input protocol asks for (`egoworld.core.input_protocol.MediaSource`) ---------------------
    def _video(self, bench: Benchmark, sample: Sample) -> tuple[str, Video]:
        if sample.media.video is None:
            raise MediaError(Path(sample.id), f"sample {sample.id} has no video", fix="list media.video")
        path = sample.media.video.path
        return path, self.engine.video(bench.resolve(path))

    def frame_count(self, bench: Benchmark, sample: Sample) -> int:
        return self._video(bench, sample)[1].index.count

    def frames_at(self, bench: Benchmark, sample: Sample, indices: Sequence[int], role: str) -> list[Part]:
        path, video = self._video(bench, sample)
        encs = self.engine.frames(video, [(i, self.prep) for i in indices])
        out: list[Part] = []
        for i, enc in zip(indices, encs, strict=True):
            source = {"video": path, "frame": i, "time_s": round(video.index.time_of(i), 6), "role": role}
            out.append(self._frame_part(video, i, self.prep, enc, None, source))
        return out

    def video_file(self, bench: Benchmark, sample: Sample) -> Part:
        path, video = self._video(bench, sample)
        size = video.path.stat().st_size
        source = {"video": path, "role": "video-file", "frames": video.index.count}
        return VideoPart(video.sha256, "video/mp4", video.path.read_bytes, None, source, size=size)

    def clip_video(
        self,
        bench: Benchmark,
        sample: Sample,
        last_marker: tuple[float, float] | None = None,
        marker_style: str = "ring",
    ) -> Part:
        path, video = self._video(bench, sample)
        media = sample.media.video
        assert media is not None
        clip = Clip.of(video.index, media.start_s, media.end_s)
        indices = list(range(clip.first, clip.last + 1))
        times = [video.index.time_of(i) for i in indices]
        preps = [self.prep] * (len(indices) - 1) + [self.prep.with_marker(last_marker, marker_style)]
        encs = self.engine.frames(video, list(zip(indices, preps, strict=True)))
        enc = self.engine.clip(video, encs, times)
        load = partial(self.engine.load, enc, partial(self.engine.clip, video, encs, times))
        source: dict[str, Any] = {"video": path, "role": "clip", "first": clip.first, "last": clip.last}
        if last_marker is not None:
            source["marker"] = [float(last_marker[0]), float(last_marker[1])]
            if marker_style != "ring":
                source["marker_style"] = marker_style
        return VideoPart(enc.sha256, enc.mime, load, None, source, size=enc.size)

    # -- building -----------------------------------------------------------------------------------------
    def _build(self, bench: Benchmark, sample: Sample) -> list[Part]:
        media = sample.media
        parts: list[Part] = []
        if media.video is not None:
            video = self.engine.video(bench.resolve(media.video.path))
            try:
                clip = Clip.of(video.index, media.video.start_s, media.video.end_s)
            except TimeOutsideVideo as exc:
                raise MediaError(
                    video.path,
                    f"sample {sample.id}: {exc}",
                    fix="fix media.video.start_s / end_s in samples.jsonl, or the video file",
                ) from None
            if self.settings.setting == "frames":
                parts.extend(self._frames(sample, video, clip))
            else:
                parts.extend(self._last_frame(sample, video, clip))
        for img in media.images:
            make = partial(
                self.engine.image, bench.resolve(img.path), self.settings.max_pixels, self.prep.image_format
            )
            enc = make()
            load = partial(self.engine.load, enc, make)
            source = {"image": img.path, "role": "image"}
            parts.append(ImagePart(enc.sha256, enc.mime, load, img.label, source, size=enc.size))
        return parts

    def _frames(self, sample: Sample, video: Video, clip: Clip) -> list[Part]:
        """Sampled frames, then listed frames; all decoded in one pass."""
        try:
            sel = self.policy.select(video.index, clip, self.settings.frames)
        except ValueError as exc:
            raise MediaError(video.path, f"sample {sample.id}: {exc}", fix="change --frame-policy") from exc
        if len(sel.indices) < self.settings.frames:
            self.short[sample.id] = len(sel.indices)
        listed = list(sample.media.frames)
        extra = [(self._locate(sample, video, f), self.prep.with_marker(f.marker)) for f in listed]
        encs = self.engine.frames(video, [(i, self.prep) for i in sel.indices] + extra)
        sampled_encs, listed_encs = encs[: len(sel.indices)], encs[len(sel.indices) :]
        path = sample.media.video.path if sample.media.video else str(video.path)
        out: list[Part] = []
        if self.settings.video_part:
            enc = self.engine.clip(video, sampled_encs, list(sel.times))
            source = {"video": path, "role": "sampled", **sel.describe()}
            remake = partial(self.engine.clip, video, sampled_encs, list(sel.times))
            load = partial(self.engine.load, enc, remake)
            out.append(VideoPart(enc.sha256, enc.mime, load, None, source, size=enc.size))
        else:
            for i, t, enc in zip(sel.indices, sel.times, sampled_encs, strict=True):
                source = {
                    "video": path,
                    "frame": i,
                    "time_s": round(t, 6),
                    "policy": sel.policy,
                    "role": "sampled",
                }
                out.append(self._frame_part(video, i, self.prep, enc, None, source))
        for k, (f, (i, prep), enc) in enumerate(zip(listed, extra, listed_encs, strict=True), start=1):
            source = {
                "video": path,
                "frame": i,
                "time_s": round(video.index.time_of(i), 6),
                "role": f.role or "frame",
            }
            if f.marker is not None:
                source["marker"] = [float(f.marker[0]), float(f.marker[1])]
            out.append(self._frame_part(video, i, prep, enc, f.label or f"Frame {k}", source))
        return out

    def _last_frame(self, sample: Sample, video: Video, clip: Clip) -> list[Part]:
        chosen = [f for f in sample.media.frames if f.role == LAST_FRAME_ROLE]
        if chosen:
            f = chosen[-1]
            i, marker = self._locate(sample, video, f), f.marker
        else:
            markers = [f.marker for f in sample.media.frames if f.marker is not None]
            i, marker = clip.last, (markers[-1] if markers else None)
        prep = self.prep.with_marker(marker)
        (enc,) = self.engine.frames(video, [(i, prep)])
        path = sample.media.video.path if sample.media.video else str(video.path)
        source: dict[str, Any] = {"video": path, "frame": i, "time_s": round(video.index.time_of(i), 6)}
        source.update(policy="last", role="last-frame")
        if marker is not None:
            source["marker"] = [float(marker[0]), float(marker[1])]
        return [self._frame_part(video, i, prep, enc, None, source)]

    def _locate(self, sample: Sample, video: Video, f: FrameInput) -> int:
        if f.view:
            raise MediaError(
                video.path,
                f"sample {sample.id} asks for a re-rendered view {f.view} of this frame, which needs the "
                "panorama, not this video",
                frame=f.index,
                fix="render the view into an image and list it under media.images",
            )
        if f.index is not None:
            if f.index >= video.index.count:
                raise MediaError(
                    video.path,
                    f"sample {sample.id} lists frame {f.index}, but the video has {video.index.count} frames",
                    frame=f.index,
                    fix="fix the frame index in samples.jsonl or the video file",
                )
            return f.index
        assert f.time_s is not None
        try:
            return video.index.frame_at(f.time_s, "listed frame time_s")
        except TimeOutsideVideo as exc:
            raise MediaError(
                video.path,
                f"sample {sample.id}: {exc}",
                fix="fix the frame's time_s in samples.jsonl or the video file",
            ) from None

    def _frame_part(
        self, video: Video, i: int, prep: Prep, enc: Encoded, label: str | None, source: dict[str, Any]
    ) -> ImagePart:
        remake = partial(self.engine.frames, video, [(i, prep)])
        load = partial(self.engine.load, enc, remake)
        return ImagePart(enc.sha256, enc.mime, load, label, source, size=enc.size)


def open_media_inputs(bench: Benchmark, settings: InputSettings) -> MediaParts:
    """Media inputs for a run over ``bench`` (the cache lives in ``$EGOWORLD_CACHE/media`` or
    ``~/.cache/egoworld/media``; ``EGOWORLD_MEDIA_CACHE_GB`` caps it, default 10)."""
    try:
        import av  # noqa: F401
        import PIL  # noqa: F401
    except ModuleNotFoundError as exc:
        raise RuntimeError(
            f"setting {settings.setting!r} needs PyAV and Pillow ({exc.name} is missing): pip install 'egoworld[video]'"
        ) from exc
    return MediaParts(settings, MediaEngine(FrameCache()))
