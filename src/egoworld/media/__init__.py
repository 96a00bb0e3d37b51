"""The media engine: exact frame sampling, least-work decoding, overlays, and a decoded-frame cache.

Modules, one idea each:

* `index` — a video's frame table (presentation timestamps, keyframes), read by demuxing, never decoding;
* `policies` — named sampling rules (``uniform``, ``fps:1``, ``last`` …) that turn a clip into exact frame indices;
* `decoder` — PyAV decoding of exactly the requested frames, continuing or seeking per target, resized as decoded;
* `parallel` — the same plan split over one single-threaded decoder per core;
* `overlays` / `prep` — pixel-budget resize, fisheye mask, burned-in timestamp, red marker;
* `cache` — a content-addressed SQLite (WAL) store of encoded frames shared by runs, models and processes;
* `engine` — ties them together, once per distinct (video, frame, preprocessing), safe under threads;
* `inputs` — the runner's `MediaInputs`: a sample's media parts for the ``frames`` and ``last-frame`` settings;
* `encode` (PNG, image files), `clip` (MP4 video parts), `stats` (counters), `testvideo` (counter-pattern
  videos for tests and benches), `cli` (``egoworld media probe|cache``).
"""

from egoworld.media.media_error import MediaError

__all__ = ["MediaError"]
