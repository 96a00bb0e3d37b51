"""Meshes fine enough to be projected vertex by vertex through a curved (fisheye) lens.

A fisheye bends straight edges, so a primitive drawn with its corners projected exactly is only right where
its triangles are small in angle. Here every primitive is cut into pieces no wider than ``angle`` radians
seen from the eye (at its nearest possible point), on a few fixed levels so the meshes are shared:

* a box is drawn as its faces that look at the eye, each an ``nu × nv`` grid of the unit square
  (``grid_mesh``), placed by three vectors of the unit box (``fu``, ``fv`` across it, ``fn`` its normal);
* a cylinder as ``segments`` around and ``rows`` along its axis (``cylinder_mesh``), an ellipsoid as
  ``segments × rings`` (``ellipsoid_mesh``), both with the identity as their frame.

`pieces` turns a primitive set seen from one eye into groups keyed by mesh, each with its instance rows
(the renderer's 24 floats per primitive, then ``fu, fv, fn``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from egoworld.sim.primitives import BOX, CYLINDER, ELLIPSOID, PrimitiveSet

LEVELS = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64])
ROUND = (24, 48, 96)  # segments around a cylinder or an ellipsoid
ROW = 24 + 9  # floats per instance row
Mesh = tuple[NDArray[np.float32], NDArray[np.int32]]  # (V, 6) position + normal, (T, 3) indices
_IDENTITY = np.array([1, 0, 0, 0, 1, 0, 0, 0, 1], np.float32)


def _level(n: NDArray[np.float64], levels: NDArray = LEVELS) -> NDArray[np.int64]:
    """The smallest level ≥ ``n`` (the largest where none is)."""
    return levels[np.minimum(np.searchsorted(levels, np.ceil(n - 1e-9)), len(levels) - 1)]


@lru_cache(maxsize=None)
def grid_mesh(nu: int, nv: int) -> Mesh:
    """The unit square ``[-1, 1]²`` at z = 1 cut into ``nu × nv`` cells, counter-clockwise seen from +z."""
    s, t = np.meshgrid(np.linspace(-1, 1, nu + 1), np.linspace(-1, 1, nv + 1), indexing="ij")
    pos = np.stack([s.ravel(), t.ravel(), np.ones(s.size)], -1)
    nrm = np.tile([0.0, 0.0, 1.0], (len(pos), 1))
    idx = np.arange((nu + 1) * (nv + 1)).reshape(nu + 1, nv + 1)
    a, b, c, d = idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]
    tris = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    return np.concatenate([pos, nrm], 1).astype(np.float32), tris.astype(np.int32)


@lru_cache(maxsize=None)
def cylinder_mesh(segments: int, rows: int) -> Mesh:
    """The unit cylinder (radius 1, z in ``[-1, 1]``): side cut into ``rows`` along z, two capping fans."""
    ang = np.linspace(0, 2 * np.pi, segments + 1)[:-1]
    ring = np.stack([np.cos(ang), np.sin(ang), np.zeros(segments)], -1)
    zs = np.linspace(-1, 1, rows + 1)
    side = np.concatenate([ring + (0, 0, z) for z in zs])
    k = np.arange(segments)
    k1 = (k + 1) % segments
    tris = []
    for r in range(rows):
        lo, hi = r * segments, (r + 1) * segments
        tris += [np.stack([lo + k, lo + k1, hi + k1], -1), np.stack([lo + k, hi + k1, hi + k], -1)]
    pos, nrm = [side], [np.concatenate([ring] * (rows + 1))]
    base = len(side)
    for z, flip in ((1.0, False), (-1.0, True)):
        cap = np.concatenate([[[0.0, 0.0, z]], ring + (0, 0, z)])
        t = base + np.stack([np.zeros(segments, int), k + 1, k1 + 1], -1)
        tris.append(t[:, [0, 2, 1]] if flip else t)
        pos.append(cap)
        nrm.append(np.tile([0.0, 0.0, z], (len(cap), 1)))
        base += len(cap)
    rows_ = np.concatenate([np.concatenate(pos), np.concatenate(nrm)], 1)
    return rows_.astype(np.float32), np.concatenate(tris).astype(np.int32)


@lru_cache(maxsize=None)
def ellipsoid_mesh(segments: int, rings: int) -> Mesh:
    """The unit sphere: ``rings`` bands of latitude, ``segments`` of longitude."""
    lat = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    lon = np.linspace(0, 2 * np.pi, segments + 1)[:-1]
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    sphere = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], -1).reshape(-1, 3)
    idx = np.arange((rings + 1) * segments).reshape(rings + 1, segments)
    a, b = idx[:-1], np.roll(idx[:-1], -1, axis=1)
    c, d = idx[1:], np.roll(idx[1:], -1, axis=1)
    tris = np.concatenate([np.stack([a, b, d], -1).reshape(-1, 3), np.stack([a, d, c], -1).reshape(-1, 3)])
    return np.concatenate([sphere, sphere], 1).astype(np.float32), tris.astype(np.int32)


def mesh(key: tuple[str, int, int]) -> Mesh:
    """The mesh of a group key from `pieces`."""
    build: dict[str, Callable[[int, int], Mesh]] = {
        "grid": grid_mesh,
        "cylinder": cylinder_mesh,
        "ellipsoid": ellipsoid_mesh,
    }
    return build[key[0]](key[1], key[2])


def _box_faces(rows: NDArray[np.float32], p: PrimitiveSet, eye: NDArray, angle: float, near: float) -> list:
    """(key, rows) of the box faces that look at ``eye``."""
    e = np.einsum("nji,nj->ni", p.rot, eye - p.center)  # the eye in each box's own frame
    h = p.half
    out = []
    for axis in range(3):
        for sign in (1.0, -1.0):
            facing = np.flatnonzero(sign * e[:, axis] > h[:, axis])
            if not len(facing):
                continue
            u, v = ((axis + 1) % 3, (axis + 2) % 3) if sign > 0 else ((axis + 2) % 3, (axis + 1) % 3)
            ef, hf = e[facing], h[facing]
            q = np.clip(ef, -hf, hf)
            q[:, axis] = sign * hf[:, axis]
            d = np.maximum(np.linalg.norm(ef - q, axis=1), near) * angle
            nu, nv = _level(2 * hf[:, u] / d), _level(2 * hf[:, v] / d)
            frame = np.zeros((len(facing), 9), np.float32)
            frame[:, u] = frame[:, 3 + v] = 1.0
            frame[:, 6 + axis] = sign
            r = np.concatenate([rows[facing], frame], 1)
            out += [(("grid", int(a), int(b)), r, facing) for a, b, r in _split(nu, nv, r)]
    return out


def _split(a: NDArray, b: NDArray, rows: NDArray) -> list[tuple[int, int, NDArray]]:
    keys = a * 1000 + b
    return [(k // 1000, k % 1000, rows[keys == k]) for k in np.unique(keys)]


def pieces(
    rows: NDArray[np.float32], p: PrimitiveSet, eye: NDArray, angle: float, near: float
) -> list[tuple[tuple[str, int, int], NDArray[np.float32]]]:
    """Groups ``(mesh key, instance rows (n, ROW))`` that draw ``p`` (whose 24-float rows are ``rows``) in
    pieces at most ``angle`` radians wide seen from ``eye``; box faces turned away are left out."""
    out: list[tuple[tuple[str, int, int], NDArray[np.float32]]] = []
    box = np.flatnonzero(p.kind == BOX)
    if len(box):
        out += [(k, r) for k, r, _ in _box_faces(rows[box], p.take(box), eye, angle, near)]
    for kind, name in ((CYLINDER, "cylinder"), (ELLIPSOID, "ellipsoid")):
        sel = np.flatnonzero(p.kind == kind)
        if not len(sel):
            continue
        q = p.take(sel)
        d = np.maximum(np.linalg.norm(q.center - eye, axis=1) - q.bounding_radius(), near) * angle
        rad = q.half[:, :2].max(axis=1) if kind == CYLINDER else q.half.max(axis=1)
        seg = _level(2 * math.pi * rad / d, np.array(ROUND))
        second = _level(2 * q.half[:, 2] / d) if kind == CYLINDER else seg // 2
        r = np.concatenate([rows[sel], np.tile(_IDENTITY, (len(sel), 1))], 1)
        out += [((name, int(a), int(b)), g) for a, b, g in _split(seg, second, r)]
    return out
