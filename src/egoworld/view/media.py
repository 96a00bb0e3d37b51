"""Bytes for the sample page: the exact frames a run sent (from the frame cache, re-decoded when evicted,
matched by their sha256), the benchmark's listed frames and images, and its video files."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.schema import Sample
from egoworld.runner.inputs import InputSettings


class MediaSource:
    """Rebuilds a sample's media parts with a run's input settings and hands out their bytes."""

    def __init__(self) -> None:
        self._inputs: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def _parts_for(self, bench: Benchmark, sample: Sample, settings: InputSettings) -> list[Any]:
        from egoworld.runner.inputs import open_inputs

        key = (str(bench.root), repr(settings))
        with self._lock:
            inputs = self._inputs.get(key)
            if inputs is None:
                inputs = self._inputs[key] = open_inputs(bench, settings)
        return inputs.parts(bench, sample)

    def sent_part(
        self, bench: Benchmark, sample: Sample, inputs: dict[str, Any], sha256: str
    ) -> tuple[bytes, str] | None:
        """The bytes of the part with ``sha256`` that a run with ``inputs`` sent for ``sample``."""
        names = ("setting", "frames", "frame_policy", "max_pixels", "overlays", "video_part")
        if inputs.get("setting") in (None, "text", "human"):
            return None
        if inputs.get("setting") == "image":  # EXPLORE's image setting: the sample's image files as they are
            return _image_file(bench, sample, sha256)
        settings = InputSettings(**{k: inputs[k] for k in names if k in inputs})
        for p in self._parts_for(bench, sample, settings):
            if getattr(p, "sha256", None) == sha256:
                return p.load(), p.mime
        return None

    def listed(self, bench: Benchmark, sample: Sample) -> list[Any]:
        """The sample's own inputs rendered as a model in the frames setting gets them: its listed frames
        (VPO query frames, marked frames) and images; with no listed frame, the clip's last frame with the
        sample's marker (what the last-frame setting sends)."""
        if sample.media.video is None and not sample.media.images:
            return []
        if sample.media.frames or sample.media.video is None:
            settings = InputSettings(setting="frames", frames=1, frame_policy="last")
            return self._parts_for(bench, sample, settings)[1 if sample.media.video is not None else 0 :]
        return self._parts_for(bench, sample, InputSettings(setting="last-frame"))

    def close(self) -> None:
        for inputs in self._inputs.values():
            inputs.close()
        self._inputs.clear()


def _image_file(bench: Benchmark, sample: Sample, sha256: str) -> tuple[bytes, str] | None:
    """The bytes of the sample's image whose file has ``sha256`` (sent whole, not re-encoded)."""
    import hashlib
    import mimetypes

    for img in sample.media.images:
        path = bench.resolve(img.path)
        if path.is_file():
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() == sha256:
                return data, mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return None


def video_file(bench: Benchmark, sample: Sample) -> Path | None:
    """The video file a sample lists, if it is on disk; no other file is ever served."""
    if sample.media.video is None:
        return None
    path = bench.resolve(sample.media.video.path)
    return path if path.is_file() else None
