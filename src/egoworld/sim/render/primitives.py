"""Scene primitives as a struct of arrays: oriented boxes, cylinders and ellipsoids with looks and ids.

Every primitive has a ``center`` (world, m), a rotation ``rot`` (world_from_part, 3×3; the part's z axis is
a cylinder's axis), ``half`` sizes along its own axes (box: half edges; cylinder: (r, r, half height);
ellipsoid: semi-axes), an instance id ``inst`` (what the instance buffer shows; 0 = background) and a look.
Objects are built once in their own frame (`PartsBuilder`) and placed with `PrimitiveSet.transformed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from egoworld.geometry.transforms import rotation_about
from egoworld.sim.render.looks import Look

BOX, CYLINDER, ELLIPSOID = 0, 1, 2
SHAPES = {"box": BOX, "cylinder": CYLINDER, "ellipsoid": ELLIPSOID}


@dataclass(frozen=True)
class PrimitiveSet:
    """N primitives; every field is an array with N rows."""

    kind: NDArray[np.int8]
    center: NDArray[np.float64]
    rot: NDArray[np.float64]
    half: NDArray[np.float64]
    inst: NDArray[np.int32]
    color: NDArray[np.float32]
    color2: NDArray[np.float32]
    pattern: NDArray[np.int8]
    scale: NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.kind)

    @staticmethod
    def empty() -> PrimitiveSet:
        return PrimitiveSet(
            np.zeros(0, np.int8),
            np.zeros((0, 3)),
            np.zeros((0, 3, 3)),
            np.zeros((0, 3)),
            np.zeros(0, np.int32),
            np.zeros((0, 3), np.float32),
            np.zeros((0, 3), np.float32),
            np.zeros(0, np.int8),
            np.zeros(0, np.float32),
        )

    @staticmethod
    def concat(sets: Sequence[PrimitiveSet]) -> PrimitiveSet:
        sets = [s for s in sets if len(s)]
        if not sets:
            return PrimitiveSet.empty()
        if len(sets) == 1:
            return sets[0]
        return PrimitiveSet(
            *(np.concatenate([getattr(s, f) for s in sets]) for f in PrimitiveSet.__dataclass_fields__)
        )

    def transformed(self, world_from_local: ArrayLike) -> PrimitiveSet:
        """The set moved by a rigid 4×4 transform (parts built in an object's frame → world)."""
        t = np.asarray(world_from_local, dtype=np.float64)
        r = t[:3, :3]
        return PrimitiveSet(
            self.kind,
            self.center @ r.T + t[:3, 3],
            np.einsum("ij,njk->nik", r, self.rot),
            self.half,
            self.inst,
            self.color,
            self.color2,
            self.pattern,
            self.scale,
        )

    def with_inst(self, inst: int) -> PrimitiveSet:
        """The same parts, all with instance id ``inst``."""
        return PrimitiveSet(
            self.kind,
            self.center,
            self.rot,
            self.half,
            np.full(len(self), inst, np.int32),
            self.color,
            self.color2,
            self.pattern,
            self.scale,
        )

    def take(self, index: ArrayLike) -> PrimitiveSet:
        idx = np.asarray(index)
        return PrimitiveSet(*(getattr(self, f)[idx] for f in PrimitiveSet.__dataclass_fields__))

    def bounding_radius(self) -> NDArray[np.float64]:
        """Radius of a sphere around each primitive's centre that contains it."""
        return np.linalg.norm(self.half, axis=-1)


class PartsBuilder:
    """Collects parts, then `build` gives a `PrimitiveSet`."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, ArrayLike, NDArray, ArrayLike, int, Look]] = []

    def add(
        self,
        shape: str,
        center: ArrayLike,
        half: ArrayLike,
        look: Look,
        *,
        inst: int = 0,
        rot: ArrayLike | None = None,
        yaw_deg: float = 0.0,
    ) -> PartsBuilder:
        """Add one part; ``rot`` (3×3 world_from_part) wins over ``yaw_deg`` (about +z)."""
        r = np.asarray(rot, dtype=np.float64) if rot is not None else rotation_about("z", yaw_deg)
        self._rows.append((SHAPES[shape], center, r, half, inst, look))
        return self

    def box_min_max(self, lo: ArrayLike, hi: ArrayLike, look: Look, *, inst: int = 0) -> PartsBuilder:
        """An axis-aligned box from its corners."""
        a, b = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        return self.add("box", (a + b) / 2, np.abs(b - a) / 2, look, inst=inst)

    def extend(self, other: PartsBuilder) -> PartsBuilder:
        self._rows.extend(other._rows)
        return self

    def __len__(self) -> int:
        return len(self._rows)

    def build(self) -> PrimitiveSet:
        if not self._rows:
            return PrimitiveSet.empty()
        kinds, centers, rots, halves, insts, looks = zip(*self._rows, strict=True)
        return PrimitiveSet(
            np.asarray(kinds, np.int8),
            np.asarray(centers, np.float64).reshape(-1, 3),
            np.asarray(rots, np.float64).reshape(-1, 3, 3),
            np.maximum(np.asarray(halves, np.float64).reshape(-1, 3), 1e-4),
            np.asarray(insts, np.int32),
            np.asarray([lk.color for lk in looks], np.float32) / 255.0,
            np.asarray([lk.color2 for lk in looks], np.float32) / 255.0,
            np.asarray([lk.code for lk in looks], np.int8),
            np.asarray([lk.scale for lk in looks], np.float32),
        )


def primitives_to_json(p: PrimitiveSet) -> dict[str, list]:
    """A JSON-able dict of the set (floats kept exactly; colours as 0–1 floats)."""
    return {f: getattr(p, f).tolist() for f in PrimitiveSet.__dataclass_fields__}


def primitives_from_json(d: dict[str, list]) -> PrimitiveSet:
    """Inverse of `primitives_to_json`."""
    types = {
        "kind": np.int8,
        "center": np.float64,
        "rot": np.float64,
        "half": np.float64,
        "inst": np.int32,
        "color": np.float32,
        "color2": np.float32,
        "pattern": np.int8,
        "scale": np.float32,
    }
    shapes = {"center": (-1, 3), "rot": (-1, 3, 3), "half": (-1, 3), "color": (-1, 3), "color2": (-1, 3)}
    return PrimitiveSet(
        **{f: np.asarray(d[f], dtype=t).reshape(shapes.get(f, (-1,))) for f, t in types.items()}
    )
