"""Preprocessing of a decoded frame: the pixel budget, the overlays and the image format, as one hashable value.

`Prep` is what the cache keys on besides the video and the frame index, so it holds exactly the
parameters that change the bytes sent (and a version that changes when the drawing code does).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from egoworld.media import overlays

#: bump when decoding, resizing or drawing changes the pixels for the same parameters
PREP_VERSION = "1"
OVERLAYS = ("timestamp", "fisheye")
MARKER_STYLES = ("ring", "square")


@dataclass(frozen=True)
class Prep:
    """``max_pixels`` (0: native size), fisheye mask radius (fraction of half the short side, or None),
    timestamp burned in, red marker at a source-pixel position (``marker_style``: egoworld's ``ring`` or the
    official Beyond3D ``square``), ``image_format`` (a canonical spec of
    `egoworld.media.formats`: png, jpeg:Q, webp:Q)."""

    max_pixels: int = 0
    fisheye: float | None = None
    timestamp: bool = False
    marker: tuple[float, float] | None = None
    image_format: str = "png"
    marker_style: str = "ring"

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"v": PREP_VERSION, "max_pixels": self.max_pixels}
        if self.fisheye is not None:
            d["fisheye"] = self.fisheye
        if self.timestamp:
            d["timestamp"] = True
        if self.marker is not None:
            d["marker"] = [float(self.marker[0]), float(self.marker[1])]
            if self.marker_style != "ring":  # ring keys stay as they were before styles existed
                d["marker_style"] = self.marker_style
        if self.image_format != "png":  # png keys stay as they were before formats existed
            d["format"] = self.image_format
        return d

    def with_marker(self, marker: tuple[float, float] | None, style: str = "ring") -> Prep:
        if style not in MARKER_STYLES:
            raise ValueError(f"marker style {style!r}: expected one of {', '.join(MARKER_STYLES)}")
        return replace(self, marker=marker, marker_style=style)

    @property
    def draws(self) -> bool:
        return self.fisheye is not None or self.timestamp or self.marker is not None

    def apply(self, rgb: np.ndarray, *, time_s: float, source_size: tuple[int, int]) -> np.ndarray:
        """Overlays on an already resized frame (mask, then timestamp, then marker)."""
        if not self.draws:
            return rgb
        rgb = np.array(rgb, copy=True)
        if self.fisheye is not None:
            overlays.apply_fisheye_mask(rgb, self.fisheye)
        if self.timestamp:
            overlays.burn_timestamp(rgb, time_s, self.fisheye)
        if self.marker is not None:
            sx = rgb.shape[1] / source_size[0]
            sy = rgb.shape[0] / source_size[1]
            draw = overlays.draw_square_marker if self.marker_style == "square" else overlays.draw_marker
            draw(rgb, self.marker[0] * sx, self.marker[1] * sy)
        return rgb


def parse_overlays(spec: str | tuple[str, ...] | None) -> tuple[bool, float | None]:
    """``"timestamp,fisheye"`` / ``"fisheye=0.95"`` → (timestamp, fisheye radius fraction or None)."""
    if not spec:
        return False, None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    timestamp, fisheye = False, None
    for raw in items:
        item = raw.strip().lower()
        if not item:
            continue
        name, _, arg = item.partition("=")
        if name == "timestamp" and not arg:
            timestamp = True
        elif name == "fisheye":
            try:
                fisheye = float(arg) if arg else 1.0
            except ValueError:
                fisheye = -1.0
            if not 0 < fisheye <= 1.5:
                raise ValueError(
                    f"overlay {raw!r}: the fisheye radius is a fraction in (0, 1.5], e.g. fisheye=0.95"
                )
        else:
            raise ValueError(
                f"unknown overlay {raw!r}; known: timestamp, fisheye[=R] (e.g. --overlays fisheye,timestamp)"
            )
    return timestamp, fisheye
