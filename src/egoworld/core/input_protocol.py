"""Input protocols: what a request carries. ``egoworld`` (the default) is egoworld's own layout (the media of
the run's setting, then the prompt text); ``official`` is a benchmark's official harness's inputs (which
frames, in which order, as images or as one video, with which text), built by its plug-in's
``official_inputs`` hook from the media engine's `MediaSource`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from egoworld.core.model import Part
from egoworld.core.schema import Sample

if TYPE_CHECKING:
    from egoworld.core.folders.bench_folder import Benchmark

PROTOCOLS = ("egoworld", "official")
#: the run option that picks the protocol (``egoworld run --option protocol=official``)
PROTOCOL = "protocol"


def protocol_of(options: dict[str, Any]) -> str:
    """The protocol run options ask for (``egoworld`` when not given)."""
    value = options.get(PROTOCOL) or "egoworld"
    if value not in PROTOCOLS:
        raise ValueError(f"{PROTOCOL} {value!r}: expected egoworld or official")
    return str(value)


class MediaSource(Protocol):
    """What a protocol may ask of the media engine."""

    def parts(self, bench: Benchmark, sample: Sample) -> list[Part]:
        """egoworld's media parts of the sample (the run's setting)."""
        ...

    def frame_count(self, bench: Benchmark, sample: Sample) -> int:
        """Frames in the sample's whole video."""
        ...

    def frames_at(self, bench: Benchmark, sample: Sample, indices: Sequence[int], role: str) -> list[Part]:
        """Unlabelled image parts of these frames of the sample's whole video, in this order."""
        ...

    def video_file(self, bench: Benchmark, sample: Sample) -> Part:
        """The sample's video file itself, as one video part (the server samples it)."""
        ...

    def clip_video(
        self,
        bench: Benchmark,
        sample: Sample,
        last_marker: tuple[float, float] | None = None,
        marker_style: str = "ring",
    ) -> Part:
        """Every frame of the sample's clip (start_s … end_s) as one video part at the video's frame rate;
        ``last_marker``: a red marker at this pixel on the clip's last frame (``marker_style``: egoworld's
        ``ring`` or the official Beyond3D ``square``)."""
        ...


@dataclass(frozen=True)
class Inputs:
    """A request's content under a protocol: media parts, then the text."""

    parts: tuple[Part, ...]
    text: str


class OfficialInputs(Protocol):
    """A plug-in's official inputs of one sample: ``text`` is egoworld's prompt text (choices in the
    presented order), ``setting`` the run's input setting (``text``, ``frames``, ``last-frame``)."""

    def __call__(
        self, bench: Benchmark, sample: Sample, text: str, setting: str, media: MediaSource, /
    ) -> Inputs: ...
