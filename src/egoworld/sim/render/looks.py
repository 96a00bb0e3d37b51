"""Surface looks of rendered parts: a base colour, a second colour and a procedural pattern.

Patterns are evaluated in the part's own coordinates (metres from its centre, see `pattern_mask`), so a
look moves with its part. They keep categories apart at a glance: a striped towel, a dotted mug, a
labelled bottle, a chequered floor, the windows of a facade.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from random import Random
from typing import Any

import numpy as np
from numpy.typing import NDArray

PATTERNS = (
    "solid",  # base colour only
    "hbands",  # horizontal bands along the part's z axis, period `scale`
    "vstripes",  # vertical stripes along x, period `scale`
    "checker",  # 3D checker of cell `scale`
    "dots",  # dots on a lattice of pitch `scale`
    "label",  # a band of colour2 around the middle (|z| < scale), e.g. bottles and cans
    "rings",  # concentric rings around the z axis, period `scale` (plates, hob zones)
    "windows",  # a lattice of windows (x–z plane) of pitch `scale`, e.g. facades
    "frame",  # a border of width `scale` around every face (doors, drawer fronts)
    "speckle",  # random cells of size `scale` (granite, gravel)
)
PATTERN_CODE = {name: i for i, name in enumerate(PATTERNS)}

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Look:
    """How a part looks: ``color`` and ``color2`` (0–255 RGB), a ``pattern`` name and its ``scale`` (m)."""

    color: RGB
    color2: RGB = (0, 0, 0)
    pattern: str = "solid"
    scale: float = 0.05

    def __post_init__(self) -> None:
        if self.pattern not in PATTERN_CODE:
            raise ValueError(f"unknown pattern {self.pattern!r}; choose one of {', '.join(PATTERNS)}")
        if self.scale <= 0:
            raise ValueError(f"pattern scale must be > 0, got {self.scale}")

    @property
    def code(self) -> int:
        return PATTERN_CODE[self.pattern]

    def jittered(self, rng: Random, amount: int = 12) -> Look:
        """The same look with both colours shifted by up to ``amount`` per channel (instance variety)."""

        def shift(c: RGB) -> RGB:
            return tuple(int(np.clip(v + rng.randint(-amount, amount), 0, 255)) for v in c)  # type: ignore[return-value]

        return replace(self, color=shift(self.color), color2=shift(self.color2))

    def to_json(self) -> dict[str, Any]:
        return {
            "color": list(self.color),
            "color2": list(self.color2),
            "pattern": self.pattern,
            "scale": self.scale,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Look:
        return cls(tuple(d["color"]), tuple(d["color2"]), d["pattern"], float(d["scale"]))  # type: ignore[arg-type]


def _frac(x: NDArray) -> NDArray:
    return x - np.floor(x)


def _cell_hash(ix: NDArray, iy: NDArray, iz: NDArray) -> NDArray:
    """A deterministic pseudo-random value in [0, 1) per integer cell: the shader's ``cell_hash``, in the
    same 32-bit unsigned arithmetic (products wrap modulo 2³²)."""
    m = 0xFFFFFFFF
    h = (
        ((ix.astype(np.int64) * 73856093) & m)
        ^ ((iy.astype(np.int64) * 19349663) & m)
        ^ ((iz.astype(np.int64) * 83492791) & m)
    )
    h = ((h ^ (h >> 13)) * 1274126177) & m
    return ((h ^ (h >> 16)) & 0xFFFF).astype(np.float32) / 65536.0


def pattern_mask(code: NDArray, scale: NDArray, p: NDArray, half: NDArray) -> NDArray[np.bool_]:
    """Where ``color2`` shows: per point ``p`` ``(M, 3)`` in part coordinates with the part's half sizes."""
    m = np.zeros(len(code), dtype=bool)
    s = scale
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    for c in np.unique(code):
        sel = code == c
        name = PATTERNS[int(c)]
        xs, ys, zs, ss = x[sel], y[sel], z[sel], s[sel]
        if name == "solid":
            continue
        if name == "hbands":
            v = _frac(zs / ss) < 0.5
        elif name == "vstripes":
            v = _frac(xs / ss) < 0.5
        elif name == "checker":
            v = (np.floor(xs / ss) + np.floor(ys / ss) + np.floor(zs / ss)) % 2 == 1
        elif name == "dots":
            d = np.stack([_frac(xs / ss), _frac(ys / ss), _frac(zs / ss)], -1) - 0.5
            v = np.sum(d * d, axis=-1) < 0.3**2 * 3
        elif name == "label":
            v = np.abs(zs) < ss
        elif name == "rings":
            v = _frac(np.hypot(xs, ys) / ss) < 0.35
        elif name == "windows":
            fu, fz = _frac(xs / ss + ys / ss), _frac(zs / ss)
            v = (fu > 0.25) & (fu < 0.75) & (fz > 0.3) & (fz < 0.8)
        elif name == "frame":
            h = half[sel]
            inner = np.abs(p[sel]) < (h - ss[:, None])
            # a point on a face lies on its border when one of the two in-face coordinates is near an edge
            on_face = np.abs(p[sel]) >= h - 1e-4
            border = ~inner & ~on_face
            v = np.any(border, axis=-1)
        else:  # speckle
            v = _cell_hash(np.floor(xs / ss), np.floor(ys / ss), np.floor(zs / ss)) < 0.35
        m[sel] = v
    return m
