"""Process-wide media counters (decoded frames, encoded images, cache hits …), for benches and tests."""

from __future__ import annotations

import threading
from collections import Counter

FIELDS = (
    "videos_probed",  # frame tables built by demuxing
    "decode_calls",  # decoder runs (one per group of missing frames of one video)
    "packets_decoded",  # packets fed to a decoder
    "frames_decoded",  # frames a decoder produced
    "seeks",
    "frames_converted",  # frames converted to RGB at the output size
    "images_encoded",  # PNG / MP4 encodes (each distinct frame × preprocessing once)
    "cache_hits",  # images found in the cache
    "cache_misses",  # images that had to be made
    "cache_evicted",
    "bytes_loaded",  # image bytes read back for sending
)


class MediaStats:
    """Thread-safe counters; `snapshot()` gives a dict, `since(before)` the difference."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._c: Counter[str] = Counter()

    def add(self, **counts: int) -> None:
        with self._lock:
            self._c.update(counts)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {f: self._c.get(f, 0) for f in FIELDS}

    def since(self, before: dict[str, int]) -> dict[str, int]:
        now = self.snapshot()
        return {k: now[k] - before.get(k, 0) for k in now}


#: the counters of this process
STATS = MediaStats()
