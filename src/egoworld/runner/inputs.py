"""Input settings: what media a request carries besides its text.

``text``: none. ``frames`` (N frames sampled from the sample's video, plus its listed frames and images) and
``last-frame`` (the frame at the clip end / query time) read media through `egoworld.media`, which
implements `MediaInputs`. Before a run starts, `check_media` lists every missing file in one error.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from egoworld.benchmarks.folder import Benchmark
from egoworld.benchmarks.schema import Sample
from egoworld.common.files import InputFileError
from egoworld.models.base import Part

SETTINGS = ("text", "frames", "last-frame")


@dataclass(frozen=True)
class InputSettings:
    setting: str = "text"
    frames: int = 128
    frame_policy: str = "uniform"

    def describe(self) -> dict:
        if self.setting == "text":
            return {"setting": "text"}
        return {"setting": self.setting, "frames": self.frames, "frame_policy": self.frame_policy}


class MediaInputs(Protocol):
    """Builds the media parts of a request (implemented by the media engine)."""

    def parts(self, bench: Benchmark, sample: Sample) -> list[Part]: ...

    def close(self) -> None: ...


class _NoMedia:
    def parts(self, bench: Benchmark, sample: Sample) -> list[Part]:
        return []

    def close(self) -> None:
        return None


def media_paths(bench: Benchmark, sample: Sample) -> list[str]:
    paths = []
    if sample.media.video is not None:
        paths.append(sample.media.video.path)
    paths.extend(img.path for img in sample.media.images)
    return paths


def check_media(bench: Benchmark, samples: Sequence[Sample], settings: InputSettings) -> None:
    """Raise one `InputFileError` listing every media file a non-text setting needs and cannot find."""
    if settings.setting == "text":
        return
    without = [s.id for s in samples if s.media.empty]
    if without:
        raise InputFileError(
            f"setting {settings.setting!r} needs media, but {len(without)} sample(s) have none "
            f"(first: {without[:3]}); run them with --setting text"
        )
    missing = sorted({p for s in samples for p in media_paths(bench, s) if not bench.resolve(p).is_file()})
    if missing:
        shown = "\n  ".join(missing)
        raise InputFileError(
            f"setting {settings.setting!r}: {len(missing)} media file(s) are missing (paths relative to "
            f"{bench.root}):\n  {shown}\nfix: put the files there (for VSI-Super-Wild: `egoworld import vsi-wild-qa FILE "
            "--videos DIR`), or run with --setting text"
        )


def open_inputs(bench: Benchmark, settings: InputSettings) -> MediaInputs:
    if settings.setting == "text":
        return _NoMedia()
    if settings.setting not in SETTINGS:
        raise ValueError(f"unknown setting {settings.setting!r} (known: {', '.join(SETTINGS)})")
    try:
        module = importlib.import_module("egoworld.media.inputs")
    except ModuleNotFoundError as exc:
        raise RuntimeError(
            f"setting {settings.setting!r} needs the media engine (egoworld.media with PyAV): "
            "install egoworld[video] — this build has no media engine yet"
        ) from exc
    return module.open_media_inputs(bench, settings)
