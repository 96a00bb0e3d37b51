"""The benchmark contract (DESIGN.md §2): one `Sample` per question and the folder's `Manifest`.

A sample carries every form the three benchmarks need:

* ``answer_type="choice"``: ``choices`` (2 or more option texts, no letters) and ``answer`` = the index of the
  correct option, or a list of indices when several are acceptable;
* ``answer_type="integer"`` / ``"number"``: ``answer`` is the number (scored with MRA by default);
* ``answer_type="time_point"``: ``answer`` is a `TimePointAnswer` (acceptable time + image point candidates
  and the tolerances): Beyond3D's open steps 2/3 in the older release format;
* ``answer_type="free"``: ``answer`` is a reference (e.g. an EXPLORE final-scene annotation), scored by the
  benchmark's own scorer;
* ``media``: nothing (text only), a video clip (path, start/end), frames of that video (indices or times, with
  labels such as "Frame 1"), and/or separate images;
* ``trajectory``: a step of a multi-step trajectory whose later steps depend on earlier ones (Beyond3D).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from egoworld.core.numbers import Count, Finite, Seconds, WholeNumber, check_number

AnswerType = Literal["choice", "integer", "number", "free", "time_point"]


def _bad(field: str, reason: str) -> ValueError:
    """A whole-sample check that still names the field it concerns."""
    return ValueError(f"field '{field}': {reason}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VideoInput(_Strict):
    """A video clip; ``path`` is relative to the benchmark folder (or absolute)."""

    path: str
    start_s: Seconds | None = None
    end_s: Seconds | None = Field(default=None, description="clip end, e.g. the query time; None = video end")
    duration_s: Seconds | None = Field(default=None, description="duration of the whole video, when known")

    @model_validator(mode="after")
    def _ordered(self) -> VideoInput:
        if self.start_s is not None and self.end_s is not None and self.end_s < self.start_s:
            raise ValueError(f"end_s ({self.end_s}) is before start_s ({self.start_s})")
        return self


class FrameInput(_Strict):
    """A specific frame of the sample's video (VMR's indicated moment, VPO's query frames, a last frame)."""

    index: Count | None = None
    time_s: Seconds | None = None
    label: str | None = None
    role: str | None = Field(default=None, description="e.g. 'query', 'indicated_moment', 'last_frame'")
    view: dict[str, Finite] | None = Field(default=None, description="re-rendering, e.g. {'yaw_deg': 45}")
    marker: tuple[Finite, Finite] | None = Field(default=None, description="pixel (x, y) to mark in red")

    @model_validator(mode="after")
    def _located(self) -> FrameInput:
        if self.index is None and self.time_s is None:
            raise ValueError("a frame needs an 'index' or a 'time_s'")
        return self


class ImageInput(_Strict):
    """A separate image file; ``path`` is relative to the benchmark folder (or absolute)."""

    path: str
    label: str | None = None


class Media(_Strict):
    video: VideoInput | None = None
    frames: tuple[FrameInput, ...] = ()
    images: tuple[ImageInput, ...] = ()

    @property
    def empty(self) -> bool:
        return self.video is None and not self.frames and not self.images

    @model_validator(mode="after")
    def _frames_need_video(self) -> Media:
        if self.frames and self.video is None:
            raise ValueError("'frames' refer to the sample's video, but 'video' is missing")
        return self


class Trajectory(_Strict):
    """Position of a sample in a multi-step trajectory; ``depends_on`` lists ids of earlier steps.
    ``label`` is the producer's step id when it is not a plain number (Beyond3D's "5a", "5b", "5c")."""

    id: str
    step: Count
    label: str | None = None
    depends_on: tuple[str, ...] = ()


class TimePointCandidate(_Strict):
    """One acceptable (time, normalised image point) answer; x/y are None in time-only scoring."""

    time_s: float
    x: float | None = None
    y: float | None = None
    source: str | None = None


class TimePointAnswer(_Strict):
    """A time + point answer: correct when, for some candidate, the time error is within
    ``time_tolerance_s`` and (unless ``time_only``) the L-infinity point error within ``point_tolerance``."""

    candidates: tuple[TimePointCandidate, ...] = Field(min_length=1)
    time_tolerance_s: float = Field(ge=0)
    point_tolerance: float = Field(ge=0)
    time_only: bool = False


class Sample(_Strict):
    """One question of a benchmark."""

    id: str = Field(min_length=1)
    benchmark: str = Field(min_length=1)
    task: str = Field(min_length=1)
    episode: str | None = None
    cluster: str | None = Field(
        default=None, description="unit of clustered statistics (video id); default episode"
    )
    question: str
    answer_type: AnswerType
    choices: tuple[str, ...] | None = None
    answer: Any
    media: Media = Media()
    trajectory: Trajectory | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("choices")
    @classmethod
    def _choices_ok(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if v is None:
            return v
        if len(v) < 2:
            raise ValueError("a choice question needs at least 2 choices")
        if len(v) > 26:
            raise ValueError("at most 26 choices (A–Z) are supported")
        if any(not c.strip() for c in v):
            raise ValueError("choices must not be empty strings")
        if len({c.strip().lower() for c in v}) != len(v):
            raise ValueError("choices must be distinct")
        return v

    @model_validator(mode="after")
    def _answer_fits(self) -> Sample:
        kind, a = self.answer_type, self.answer
        if kind == "choice":
            if self.choices is None:
                raise _bad("choices", "answer_type 'choice' needs 'choices'")
            idx = a if isinstance(a, list | tuple) else [a]
            if not idx or any(isinstance(i, bool) or not isinstance(i, int) for i in idx):
                raise _bad("answer", "a choice answer is a 0-based index or a non-empty list of indices")
            if any(not 0 <= i < len(self.choices) for i in idx):
                raise _bad("answer", f"answer {a} is out of range for {len(self.choices)} choices")
            if len(set(idx)) != len(idx):
                raise _bad("answer", "answer indices must be distinct")
        elif kind in ("integer", "number"):
            if self.choices is not None:
                raise _bad("choices", f"answer_type '{kind}' takes no 'choices'")
            try:
                if not isinstance(a, int | float):  # JSON numbers only (no numpy scalars in the file)
                    raise ValueError(f"expected a number, got {type(a).__name__} {a!r}")
                check_number(a, kind="int" if kind == "integer" else "float")
            except ValueError as exc:
                article = "an" if kind == "integer" else "a"
                raise _bad(
                    "answer", f"{article} {kind} answer must be a number, whole for integers: {exc}"
                ) from None
        elif kind == "free" and a is None:
            raise _bad("answer", "a free-form answer needs a reference (text or annotation)")
        elif kind == "time_point":
            try:
                TimePointAnswer.model_validate(a)
            except ValueError as exc:
                raise _bad(
                    "answer",
                    f"a time_point answer is {{candidates, time_tolerance_s, point_tolerance}}: {exc}",
                ) from exc
        return self

    @property
    def correct_indices(self) -> tuple[int, ...]:
        """Indices of acceptable choices (choice questions only)."""
        if self.answer_type != "choice":
            raise TypeError(f"sample {self.id} is not a choice question")
        return tuple(self.answer) if isinstance(self.answer, list | tuple) else (int(self.answer),)

    @property
    def cluster_id(self) -> str:
        return self.cluster or self.episode or self.id


class TaskInfo(_Strict):
    """How a task is scored and shown; the manifest lists tasks in the order reports show them."""

    answer_type: AnswerType
    metric: str = Field(description="'accuracy', 'mra' or a metric a benchmark plug-in registers")
    title: str | None = None
    chance: Finite | None = Field(default=None, description="chance level in percent, when known")


class Manifest(BaseModel):
    """``manifest.json`` of a benchmark folder. No timestamps: the same build gives the same bytes."""

    model_config = ConfigDict(extra="forbid")

    name: str
    version: str = "1"
    description: str = ""
    egoworld_version: str
    builder: dict[str, Any] = Field(default_factory=dict, description="builder / importer parameters")
    seed: WholeNumber | None = None
    source: dict[str, Any] = Field(default_factory=dict, description="source files and their sha256")
    tasks: dict[str, TaskInfo]
    counts: dict[str, Count] = Field(default_factory=dict)
    answer_distribution: dict[str, dict[str, Count]] = Field(default_factory=dict)
    samples_file: str = "samples.jsonl"
    samples_sha256: str = ""
    media_roots: tuple[str, ...] = Field(
        default=(),
        description="where media outside the folder may live: links inside it (e.g. 'videos') or absolute "
        "folders; see egoworld.core.folders.confine",
    )

    @field_validator("media_roots")
    @classmethod
    def _roots_ok(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        from egoworld.core.folders.confine import check_root

        return tuple(check_root(r) for r in v)

    @field_validator("samples_file")
    @classmethod
    def _samples_file_ok(cls, v: str) -> str:
        from egoworld.core.folders.confine import check_name

        return check_name(v, where="manifest.json", field="samples_file")
