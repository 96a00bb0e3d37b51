"""Triangle meshes of a scene and line-of-sight tests against them (ray casting with trimesh).

`SceneMesh` holds world-frame vertices and triangles; every triangle belongs to a named *part* (for a
kitchen's digital twin: the fixture it models). `SceneMesh.first_hit` casts the segment from each origin
towards its target and returns the distance to the first surface on it, skipping the triangles of the
parts a caller excludes for that segment (e.g. the fixture an object stands on). `SceneMesh.blocked`
turns that into the occlusion test: a surface lies more than ``margin`` in front of the target.

Ray casting is trimesh's (``mesh.ray``: Embree when installed, else its numpy ray–triangle test over an
R-tree of the triangles); install with ``pip install 'egoworld[mesh]'``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

F64 = NDArray[np.float64]


def _trimesh():
    try:
        import trimesh
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
        raise ModuleNotFoundError(
            "mesh occlusion needs trimesh and rtree: pip install 'egoworld[mesh]' (or build with --depth boxes)",
            name=exc.name,
        ) from exc
    return trimesh


class SceneMesh:
    """Vertices ``(V, 3)``, triangles ``(M, 3)`` and the part index of each triangle ``(M,)``."""

    def __init__(
        self, vertices: ArrayLike, triangles: ArrayLike, part_of_triangle: ArrayLike, parts: Sequence[str]
    ):
        self.vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        self.triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
        self.part_of_triangle = np.asarray(part_of_triangle, dtype=np.int64).reshape(-1)
        self.parts = tuple(parts)
        if len(self.part_of_triangle) != len(self.triangles):
            raise ValueError("part_of_triangle needs one entry per triangle")
        if len(self.triangles) and (self.triangles.min() < 0 or self.triangles.max() >= len(self.vertices)):
            raise ValueError("triangle indices must point into the vertices")
        self._mesh = None

    @classmethod
    def from_parts(cls, parts: Sequence[tuple[str, ArrayLike, ArrayLike]]) -> SceneMesh:
        """Concatenate ``(name, vertices, triangles)`` parts into one mesh."""
        verts, tris, owner, base = [], [], [], 0
        for i, (_, v, t) in enumerate(parts):
            v = np.asarray(v, dtype=np.float64).reshape(-1, 3)
            t = np.asarray(t, dtype=np.int64).reshape(-1, 3)
            verts.append(v)
            tris.append(t + base)
            owner.append(np.full(len(t), i, dtype=np.int64))
            base += len(v)
        if not parts:
            return cls(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64), ())
        return cls(np.concatenate(verts), np.concatenate(tris), np.concatenate(owner), [p[0] for p in parts])

    @property
    def trimesh(self):
        """The mesh as a ``trimesh.Trimesh`` (triangle order kept: no merging or repair)."""
        if self._mesh is None:
            self._mesh = _trimesh().Trimesh(vertices=self.vertices, faces=self.triangles, process=False)
        return self._mesh

    def first_hit(
        self, origins: ArrayLike, targets: ArrayLike, excluded: NDArray[np.bool_] | None = None
    ) -> F64:
        """Distance from each origin ``(N, 3)`` to the first surface on the segment to its target ``(N, 3)``
        (``inf`` when none lies before the target). ``excluded`` ``(N, P)``: parts whose triangles
        segment ``n`` passes through."""
        o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        seg = np.asarray(targets, dtype=np.float64).reshape(-1, 3) - o
        length = np.linalg.norm(seg, axis=1)
        out = np.full(len(o), np.inf)
        ok = length > 1e-9
        if not ok.any() or not len(self.triangles):
            return out
        rays = np.nonzero(ok)[0]
        dirs = seg[rays] / length[rays, None]
        locations, ray, tri = self.trimesh.ray.intersects_location(o[rays], dirs, multiple_hits=True)
        if not len(ray):
            return out
        dist = np.einsum("ij,ij->i", locations - o[rays][ray], dirs[ray])
        keep = (dist > 0) & (dist <= length[rays][ray])
        if excluded is not None:
            keep &= ~np.asarray(excluded, dtype=bool)[rays[ray], self.part_of_triangle[tri]]
        np.minimum.at(out, rays[ray[keep]], dist[keep])
        return out

    def blocked(
        self,
        origins: ArrayLike,
        targets: ArrayLike,
        margin: float,
        excluded: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.bool_]:
        """Whether a surface lies on each segment more than ``margin`` in front of its target."""
        o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        length = np.linalg.norm(np.asarray(targets, dtype=np.float64).reshape(-1, 3) - o, axis=1)
        return self.first_hit(o, targets, excluded) < length - margin
