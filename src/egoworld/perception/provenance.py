"""Provenance of a perceived field: which backend made it, its version and its settings.

Every perceived file an episode lists (poses, appearances, place visits, detections) has one record in
``episode.json`` ``meta["perception"][field]``, so a number in a benchmark built from it can be traced to the
model and settings that produced it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any


def package_version(name: str) -> str | None:
    """The installed version of distribution ``name`` (None when it is not installed)."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


@dataclass(frozen=True)
class Provenance:
    """``backend``: e.g. ``pycolmap``, ``opencv-odometry``, ``owlv2``; ``library``: the distribution whose
    version is recorded; ``settings``: every option that changes the output (JSON-serialisable)."""

    backend: str
    library: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    weights: str | None = None  # a local weights folder's name or a served model id

    def record(self) -> dict[str, Any]:
        out = asdict(self)
        out["version"] = package_version(self.library) if self.library else None
        return out
