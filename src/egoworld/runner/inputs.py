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

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.input_protocol import PROTOCOL, protocol_of
from egoworld.core.model import Part
from egoworld.core.schema import Sample
from egoworld.media.formats import canonical_image_format

SETTINGS = ("text", "frames", "last-frame")


#: default pixel budget per frame (448 × 448); 0 keeps the video's size
DEFAULT_MAX_PIXELS = 448 * 448


@dataclass(frozen=True)
class InputSettings:
    """What media a request carries. ``frame_policy``: see `egoworld.media.policies` (``uniform`` …);
    ``max_pixels``: pixel budget per frame; ``overlays``: ``timestamp``, ``fisheye[=R]`` (comma-separated);
    ``video_part``: send the sampled frames as one MP4 video part instead of images; ``image_format``: png
    (lossless) | jpeg[:Q] | webp[:Q], kept in canonical form (``jpeg`` → ``jpeg:90``)."""

    setting: str = "text"
    frames: int = 128
    frame_policy: str = "uniform"
    max_pixels: int = DEFAULT_MAX_PIXELS
    overlays: str = ""
    video_part: bool = False
    image_format: str = "png"

    def __post_init__(self) -> None:
        object.__setattr__(self, "image_format", canonical_image_format(self.image_format))

    @classmethod
    def from_config(cls, cfg: object) -> InputSettings:
        """The input settings of a `RunConfig` (fields it lacks keep their defaults)."""
        names = ("setting", "frames", "frame_policy", "max_pixels", "overlays", "video_part", "image_format")
        return cls(**{n: getattr(cfg, n) for n in names if hasattr(cfg, n)})

    def describe(self) -> dict:
        if self.setting == "text":
            return {"setting": "text"}
        d = {"setting": self.setting, "frames": self.frames, "frame_policy": self.frame_policy}
        d["max_pixels"] = self.max_pixels
        if self.overlays:
            d["overlays"] = ",".join(sorted(o.strip() for o in self.overlays.split(",") if o.strip()))
        if self.video_part:
            d["video_part"] = True
        if self.image_format != "png":  # png runs keep the keys they had before formats existed
            d["image_format"] = self.image_format
        return d


def run_inputs(cfg: object) -> dict:
    """run.json's ``inputs`` (part of every request key): the input settings, and ``protocol`` when it is
    not ``egoworld`` (egoworld-protocol runs keep the keys they had before protocols existed)."""
    d = InputSettings.from_config(cfg).describe()
    protocol = protocol_of(getattr(cfg, "options", None) or {})
    if protocol != "egoworld":
        d[PROTOCOL] = protocol
    return d


class MediaInputs(Protocol):
    """Builds the media parts of a request (implemented by the media engine; a `MediaSource`)."""

    def parts(self, bench: Benchmark, sample: Sample) -> list[Part]: ...

    def close(self) -> None: ...


class _NoMedia:
    """The text setting: no media at all."""

    def parts(self, bench: Benchmark, sample: Sample) -> list[Part]:
        return []

    def _none(self, *args: object) -> list[Part]:
        raise ValueError("the text setting sends no media; this protocol needs --setting frames")

    frame_count = frames_at = video_file = clip_video = _none

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
    paths = {p for s in samples for p in media_paths(bench, s)}
    odd = sorted(p for p in paths if bench.resolve(p).exists() and not bench.resolve(p).is_file())
    empty = sorted(p for p in paths if bench.resolve(p).is_file() and bench.resolve(p).stat().st_size == 0)
    for bad, problem in ((odd, "folder(s), not file(s)"), (empty, "empty (0 bytes)")):
        if bad:
            raise InputFileError(
                f"setting {settings.setting!r}: {len(bad)} media path(s) of {bench.root} are {problem}:\n  "
                + "\n  ".join(bad)
                + "\nfix: put the media files themselves there, or run with --setting text"
            )
    missing = sorted(p for p in paths if not bench.resolve(p).is_file())
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
        module = importlib.import_module("egoworld.runner.media_inputs")
    except ModuleNotFoundError as exc:
        raise RuntimeError(
            f"setting {settings.setting!r} needs the media engine (egoworld.media with PyAV): "
            "install egoworld[video] — this build has no media engine yet"
        ) from exc
    return module.open_media_inputs(bench, settings)
