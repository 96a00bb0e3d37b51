"""The media engine: each distinct (video, frame, preprocessing) is decoded and encoded once.

Lookups go memo → cache → decode. Missing frames of one video are decoded in one least-work pass under that
video's lock, so concurrent workers asking for the same clip (8 questions at one moment, 24 option orders)
wait for the first one instead of decoding again, and then find everything in the cache. Bytes are not held:
a part's ``load`` reads them from the cache when the request is sent (and re-makes them if evicted).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.hashing import sha256_json
from egoworld.media.cache import FrameCache
from egoworld.media.counters import STATS
from egoworld.media.decoder import DecodeStats
from egoworld.media.encode import encode_image, image_file, png_pixels
from egoworld.media.formats import parse_image_format
from egoworld.media.index import INDEX_VERSION, VideoIndex, probe
from egoworld.media.media_error import MediaError
from egoworld.media.overlays import output_size
from egoworld.media.parallel import decode_parallel
from egoworld.media.prep import Prep

_STRIPES = 64


@dataclass(frozen=True)
class Video:
    """A video file with its content hash and frame table."""

    path: Path
    sha256: str
    index: VideoIndex


@dataclass(frozen=True)
class Encoded:
    """An encoded image (or clip) in the cache: ``key`` finds it, ``sha256`` identifies its bytes, ``size``
    is their length."""

    key: str
    sha256: str
    mime: str
    size: int = 0


class Memo:
    """A small thread-safe LRU map."""

    def __init__(self, size: int):
        self.size = size
        self._d: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            value = self._d.get(key)
            if value is not None:
                self._d.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                self._d.popitem(last=False)


def _stripe(locks: list[threading.Lock], name: str) -> threading.Lock:
    return locks[int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % len(locks)]


def frame_key(video_sha: str, index: int, prep: Prep) -> str:
    return sha256_json({"kind": "frame", "video": video_sha, "frame": index, "prep": prep.describe()})


class MediaEngine:
    """Videos, frames and images through one cache. Thread-safe; ``workers``: decoders per video (default:
    one per core, see `egoworld.media.parallel`)."""

    def __init__(self, cache: FrameCache, *, workers: int | None = None, memo_size: int = 8192):
        self.cache = cache
        self.workers = workers
        self._videos = Memo(256)
        self._encoded = Memo(memo_size)
        self._locks = [threading.Lock() for _ in range(_STRIPES)]

    # -- videos -------------------------------------------------------------------------------------------
    def video(self, path: str | Path) -> Video:
        """Hash and frame table of a video (each computed once per content, then cached on disk)."""
        path = Path(path)
        try:
            st = path.stat()
        except OSError as exc:
            raise MediaError(
                path, "the video file is missing", fix="put the file there or fix the sample's path"
            ) from exc
        memo_key = (str(path), st.st_size, st.st_mtime_ns)
        found = self._videos.get(memo_key)
        if found is not None:
            return found
        with _stripe(self._locks, "video:" + str(path)):
            found = self._videos.get(memo_key)
            if found is not None:
                return found
            sha = self.cache.file_sha256(path)
            stored = self.cache.get_index(sha)
            if stored is not None and stored.get("version") == INDEX_VERSION:
                index = VideoIndex.from_json(stored)
            else:
                index = probe(path)
                STATS.add(videos_probed=1)
                self.cache.put_index(sha, index.to_json())
            video = Video(path=path, sha256=sha, index=index)
            self._videos.put(memo_key, video)
            return video

    # -- frames -------------------------------------------------------------------------------------------
    def frames(self, video: Video, wanted: list[tuple[int, Prep]]) -> list[Encoded]:
        """Encoded images of ``(frame index, preprocessing)`` pairs, in the order asked."""
        keys = [frame_key(video.sha256, i, prep) for i, prep in wanted]
        out: dict[str, Encoded] = {}
        missing = self._known(keys, out)
        if missing:
            with _stripe(self._locks, "frames:" + video.sha256):
                missing = self._known(missing, out)
                if missing:
                    gone = set(missing)
                    todo = {k: w for k, w in zip(keys, wanted, strict=True) if k in gone}
                    self._make(video, todo, out)
        return [out[k] for k in keys]

    def _known(self, keys: list[str], out: dict[str, Encoded]) -> list[str]:
        """Fill ``out`` from the memo and the cache; return the keys found in neither."""
        rest = []
        for k in dict.fromkeys(keys):
            hit = self._encoded.get(k)
            if hit is not None:
                out[k] = hit
            else:
                rest.append(k)
        if rest:
            found = self.cache.lookup(rest)
            for k, (sha, mime, size) in found.items():
                enc = Encoded(k, sha, mime, size)
                self._encoded.put(k, enc)
                out[k] = enc
            STATS.add(cache_hits=len(found))
            rest = [k for k in rest if k not in found]
        return rest

    def _make(self, video: Video, todo: dict[str, tuple[int, Prep]], out: dict[str, Encoded]) -> None:
        """Decode the frames of ``todo`` in one pass per output size, apply overlays, encode, store."""
        STATS.add(cache_misses=len(todo))
        src = (video.index.width, video.index.height)
        by_size: dict[tuple[int, int], dict[int, list[tuple[str, Prep]]]] = {}
        for key, (i, prep) in todo.items():
            size = output_size(*src, prep.max_pixels)
            by_size.setdefault(size, {}).setdefault(i, []).append((key, prep))
        for size, per_frame in by_size.items():
            stats = DecodeStats()
            try:
                for i, rgb in decode_parallel(
                    video.path, video.index, per_frame, size=size, workers=self.workers, stats=stats
                ):
                    t = video.index.time_of(i)
                    for key, prep in per_frame[i]:
                        try:
                            image = prep.apply(rgb, time_s=t, source_size=src)
                        except ValueError as exc:
                            raise MediaError(
                                video.path, str(exc), frame=i, fix="change --max-pixels or --overlays"
                            ) from exc
                        fmt = parse_image_format(prep.image_format)
                        data = encode_image(image, fmt)
                        enc = Encoded(key, self.cache.put(key, data, fmt.mime), fmt.mime, len(data))
                        self._encoded.put(key, enc)
                        out[key] = enc
                        STATS.add(images_encoded=1)
            finally:
                STATS.add(
                    decode_calls=1,
                    packets_decoded=stats.packets,
                    frames_decoded=stats.frames,
                    seeks=stats.seeks,
                    frames_converted=stats.converted,
                )

    # -- images and clips ---------------------------------------------------------------------------------
    def image(self, path: str | Path, max_pixels: int, image_format: str = "png") -> Encoded:
        """An image file within the pixel budget (byte-exact when it already fits and is compact for the
        format), in ``image_format`` otherwise."""
        path = Path(path)
        if not path.is_file():
            raise MediaError(
                path, "the image file is missing", fix="put the file there or fix the sample's path"
            )
        spec: dict[str, Any] = {
            "kind": "image",
            "file": self.cache.file_sha256(path),
            "max_pixels": max_pixels,
        }
        if image_format != "png":
            spec["format"] = image_format
        key = sha256_json(spec)
        out: dict[str, Encoded] = {}
        if not self._known([key], out):
            return out[key]
        data, mime = image_file(path, max_pixels, parse_image_format(image_format))
        enc = Encoded(key, self.cache.put(key, data, mime), mime, len(data))
        STATS.add(cache_misses=1, images_encoded=1)
        self._encoded.put(key, enc)
        return enc

    def clip(self, video: Video, frames: list[Encoded], times: list[float]) -> Encoded:
        """The given frames as one MP4 (for servers that take a video part), encoded once."""
        from egoworld.media.clip import CLIP_VERSION, clip_fps, encode_clip

        fps = clip_fps(times)
        key = sha256_json({"kind": "clip", "v": CLIP_VERSION, "frames": [f.key for f in frames], "fps": fps})
        out: dict[str, Encoded] = {}
        if not self._known([key], out):
            return out[key]
        with _stripe(self._locks, "clip:" + key):
            if not self._known([key], out):
                return out[key]
            data = encode_clip([png_pixels(self.load(f)) for f in frames], fps)
            enc = Encoded(key, self.cache.put(key, data, "video/mp4"), "video/mp4", len(data))
            STATS.add(cache_misses=1, images_encoded=1)
            self._encoded.put(key, enc)
            return enc

    # -- bytes --------------------------------------------------------------------------------------------
    def load(self, enc: Encoded, remake: Callable[[], Any] | None = None) -> bytes:
        """The bytes of an entry; when it was evicted, ``remake()`` makes it again first."""
        data = self.cache.get(enc.key)
        if data is None and remake is not None:
            self._encoded_drop(enc.key)
            remake()
            data = self.cache.get(enc.key)
        if data is None:
            raise MediaError(
                self.cache.path,
                f"cache entry {enc.key[:12]} is gone and cannot be re-made",
                fix="rerun; the run resumes and makes it again",
            )
        if hashlib.sha256(data).hexdigest() != enc.sha256:
            raise MediaError(
                self.cache.path,
                f"cache entry {enc.key[:12]} was re-made with different bytes",
                fix="clear the media cache (`egoworld media cache --clear`) and rerun",
            )
        STATS.add(bytes_loaded=len(data))
        return data

    def _encoded_drop(self, key: str) -> None:
        self._encoded.put(key, None)
