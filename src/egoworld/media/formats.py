"""Image formats of request payloads: ``png`` (lossless, the default), ``jpeg[:Q]`` and ``webp[:Q]``.

A format is a short spec string; `parse_image_format` checks it and returns the canonical form (``jpeg`` →
``jpeg:90``), which is what request keys, cache keys and the run manifest record. No heavy imports here: the
runner validates ``--image-format`` before any media library loads.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_FORMAT = "png"
DEFAULT_QUALITY = 90
_MIMES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
_ALIASES = {"jpg": "jpeg"}
EXAMPLE = "png | jpeg[:Q] | webp[:Q] with Q in 1…100, e.g. --image-format jpeg:85"


@dataclass(frozen=True)
class ImageFormat:
    """``name``: png | jpeg | webp; ``quality``: 1…100 for the lossy ones (None for png)."""

    name: str
    quality: int | None = None

    @property
    def mime(self) -> str:
        return _MIMES[self.name]

    @property
    def lossless(self) -> bool:
        return self.name == "png"

    def spec(self) -> str:
        return self.name if self.quality is None else f"{self.name}:{self.quality}"


def parse_image_format(spec: str | None) -> ImageFormat:
    """``"png"``, ``"jpeg"``, ``"jpeg:85"``, ``"webp:80"`` … → `ImageFormat`; a clear ValueError otherwise."""
    raw = (spec or DEFAULT_FORMAT).strip().lower()
    name, sep, q = raw.partition(":")
    name = _ALIASES.get(name, name)
    if name not in _MIMES:
        raise ValueError(f"--image-format {spec!r}: unknown format {name!r}; expected {EXAMPLE}")
    if name == "png":
        if sep:
            raise ValueError(
                f"--image-format {spec!r}: png is lossless and takes no quality; expected {EXAMPLE}"
            )
        return ImageFormat("png")
    if not sep:
        return ImageFormat(name, DEFAULT_QUALITY)
    if not q.isdigit() or not 1 <= int(q) <= 100:
        raise ValueError(
            f"--image-format {spec!r}: quality must be a whole number in 1…100; expected {EXAMPLE}"
        )
    return ImageFormat(name, int(q))


def canonical_image_format(spec: str | None) -> str:
    """The canonical spec string (``JPG`` → ``jpeg:90``)."""
    return parse_image_format(spec).spec()
