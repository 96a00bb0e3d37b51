"""The model interface: a `Request` (chat messages, presented choices, an opaque sample id) in, a
`Generation` out, and the `Backend` record a package registers to add a backend.

Every backend — HTTP servers, in-process Hugging Face models, the baseline solvers — implements
`Model.generate`. A backend sees the request only, never the sample: a solver that needs the sample (a
baseline) looks it up by ``request.sample_id`` in the benchmark of its `ModelContext`. A failure that should
be recorded (and retried on the next run) raises `ModelError`.
"""

from __future__ import annotations

import base64
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from egoworld.core.folders.bench_folder import Benchmark


@dataclass(frozen=True)
class TextPart:
    text: str

    def describe(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True)
class ImagePart:
    """An encoded image; ``sha256`` identifies its bytes (request keys use it, never the bytes); ``size``:
    their length when known (0 otherwise), for payload accounting."""

    sha256: str
    mime: str
    load: Callable[[], bytes] = field(compare=False, repr=False)
    label: str | None = None
    source: dict[str, Any] = field(default_factory=dict, compare=False)
    size: int = field(default=0, compare=False)

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.load()).decode('ascii')}"

    def describe(self) -> dict[str, Any]:
        return {"type": "image", "sha256": self.sha256, "mime": self.mime, "label": self.label, **self.source}


@dataclass(frozen=True)
class VideoPart:
    """An encoded video clip (e.g. the sampled frames as MP4) for servers that take video input;
    ``sha256`` identifies its bytes, ``source`` records the frames it holds, ``size`` is their length."""

    sha256: str
    mime: str
    load: Callable[[], bytes] = field(compare=False, repr=False)
    label: str | None = None
    source: dict[str, Any] = field(default_factory=dict, compare=False)
    size: int = field(default=0, compare=False)

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.load()).decode('ascii')}"

    def describe(self) -> dict[str, Any]:
        return {"type": "video", "sha256": self.sha256, "mime": self.mime, "label": self.label, **self.source}


class EncodedMediaCache:
    """A small LRU of per-image work a backend repeats for every request that carries the image (a data URL,
    a decoded picture), keyed by the image's sha256. Requests arrive grouped by clip and a sample's option
    orders run together, so a few hundred entries turn 24 encodings of a frame into one."""

    def __init__(self, size: int = 512):
        from collections import OrderedDict

        self.size = size
        self._d: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, kind: str, sha256: str, make: Callable[[], Any]) -> Any:
        key = (kind, sha256)
        if key in self._d:
            self._d.move_to_end(key)
            self.hits += 1
            return self._d[key]
        self.misses += 1
        value = self._d[key] = make()
        while len(self._d) > self.size:
            self._d.popitem(last=False)
        return value


Part = TextPart | ImagePart | VideoPart


@dataclass(frozen=True)
class Message:
    role: str
    content: tuple[Part, ...]

    def describe(self) -> dict[str, Any]:
        return {"role": self.role, "content": [p.describe() for p in self.content]}

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


@dataclass(frozen=True)
class Request:
    """One model call for (sample, permutation, epoch).

    ``sample_id`` names the sample without carrying it (nor its answer); ``choices`` are the options in
    presented order and ``permutation`` that order (original indices), None without choices.
    """

    key: str
    sample_id: str
    messages: tuple[Message, ...]
    choices: tuple[str, ...] | None
    permutation: tuple[int, ...] | None
    epoch: int


@dataclass
class Generation:
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    served_model: str | None = None
    reasoning_tokens: int | None = None  # where the server reports them (part of completion_tokens)


class ModelError(Exception):
    """A request that failed for good (after the backend's own retries); stored as an error row."""

    def __init__(self, reason: str, *, retryable: bool = True):
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable


class ModelUnavailable(RuntimeError):
    """The model cannot answer any request (unreachable server, weights that fail to load): fatal."""


class Model(ABC):
    """A model backend. ``identity()`` enters every request key: it must change whenever outputs could."""

    backend: str = "abstract"
    accepts_images: bool = True
    #: the preflight is cheap (a connection check), so a driver that does not run the model may call it too
    cheap_preflight: bool = True

    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """Backend, model id, revision and generation settings (JSON-serialisable)."""

    @abstractmethod
    async def generate(self, request: Request) -> Generation:
        """Answer one request, or raise `ModelError`."""

    async def aclose(self) -> None:  # noqa: B027 — optional hook
        """Release connections; called once at the end of a run."""

    async def preflight(self) -> list[str]:
        """Check once, before the first request, that the model can answer at all; return warnings.

        Raise `ModelUnavailable` when it cannot (server unreachable, weights that do not load): the command
        stops with that one error instead of storing an error row per request.
        """
        return []

    @property
    def name(self) -> str:
        return str(self.identity().get("model", self.backend))


@dataclass
class ModelContext:
    """What a backend factory may need besides its options: the benchmark being run and run-level settings.

    ``gold_reply``: the gold reply of a request, when the code that plans the requests knows it better than
    the benchmark's prompt builder (a step of a multi-step chain); the oracle solver asks it first.
    """

    benchmark: Benchmark | None = None
    seed: int = 0
    concurrency: int = 8
    gold_reply: Callable[[Request], str | None] | None = None


BackendFactory = Callable[[str, dict[str, str], ModelContext], Model]


@dataclass(frozen=True)
class Backend:
    """A model backend as registered under the ``egoworld.backends`` entry-point group: ``factory(name,
    options, context)`` makes the model of the spec ``<backend>:<name>``; ``help`` is its one-line summary
    (`egoworld models`)."""

    name: str
    factory: BackendFactory
    help: str


def check_options(options: dict[str, str], allowed: set[str], spec: str) -> dict[str, str]:
    """``options`` when every key is in ``allowed``; otherwise a ValueError naming the unknown and allowed keys."""
    unknown = set(options) - allowed
    if unknown:
        raise ValueError(
            f"{spec}: unknown option(s) {sorted(unknown)} (allowed: {sorted(allowed) or 'none'})"
        )
    return options
