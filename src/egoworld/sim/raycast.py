"""Ray–primitive intersection, vectorised over (primitive, ray bundle) pairs, and normals at hits.

Each pair ``k`` intersects a bundle of S rays with primitive ``pair_prim[k]``. Rays are given by their
components in the *camera* frame (``cx, cy, cz``: ``(K, S)`` each) plus the camera pose; they are taken
straight into each primitive's frame with one 3×3 matrix per pair (part_from_camera). `intersect` returns
the ray parameter of the first hit beyond ``near`` (metres along the unit ray = range) or ``inf``.
Rays start outside the primitives (a camera inside a solid sees nothing of it).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from egoworld.sim.primitives import BOX, CYLINDER, ELLIPSOID, PrimitiveSet

F32 = NDArray[np.float32]
_TINY = np.float32(1e-12)
Comp = tuple[F32, F32, F32]


def _safe_inv(x: F32) -> F32:
    """1/x (±inf at 0; a resulting NaN slab bound makes the ray miss, which only happens on an edge)."""
    with np.errstate(divide="ignore"):
        return np.float32(1.0) / x


def _max3(a: F32, b: F32, c: F32) -> F32:
    return np.maximum(np.maximum(a, b), c)


def _min3(a: F32, b: F32, c: F32) -> F32:
    return np.minimum(np.minimum(a, b), c)


def _box(o: Comp, d: Comp, h: Comp, near: float) -> F32:
    tn: list[F32] = []
    tf: list[F32] = []
    for oi, di, hi in zip(o, d, h, strict=True):
        inv = _safe_inv(di)
        t1 = (-hi - oi) * inv
        t2 = (hi - oi) * inv
        tn.append(np.minimum(t1, t2))
        tf.append(np.maximum(t1, t2))
    t_near = _max3(*tn)
    t_far = _min3(*tf)
    return np.where((t_far >= t_near) & (t_near > near), t_near, np.float32(np.inf))


def _cylinder(o: Comp, d: Comp, h: Comp, near: float) -> F32:
    ox, oy = o[0] / h[0], o[1] / h[1]
    dx, dy = d[0] / h[0], d[1] / h[1]
    a = dx * dx + dy * dy
    b = ox * dx + oy * dy
    c = ox * ox + oy * oy - 1.0
    disc = b * b - a * c
    root = np.sqrt(np.maximum(disc, 0.0))
    inv_a = 1.0 / np.maximum(a, _TINY)
    parallel = a < 1e-10
    inside = c <= 0
    ts0 = np.where(parallel, np.where(inside, -np.inf, np.inf), (-b - root) * inv_a)
    ts1 = np.where(parallel, np.where(inside, np.inf, -np.inf), (-b + root) * inv_a)
    inv = _safe_inv(d[2])
    z1 = (-h[2] - o[2]) * inv
    z2 = (h[2] - o[2]) * inv
    tn = np.maximum(ts0, np.minimum(z1, z2))
    tf = np.minimum(ts1, np.maximum(z1, z2))
    ok = (disc >= 0) & (tf >= tn) & (tn > near)
    return np.where(ok, tn, np.float32(np.inf)).astype(np.float32)


def _ellipsoid(o: Comp, d: Comp, h: Comp, near: float) -> F32:
    os_ = [oi / hi for oi, hi in zip(o, h, strict=True)]
    ds = [di / hi for di, hi in zip(d, h, strict=True)]
    a = ds[0] * ds[0] + ds[1] * ds[1] + ds[2] * ds[2]
    b = os_[0] * ds[0] + os_[1] * ds[1] + os_[2] * ds[2]
    c = os_[0] * os_[0] + os_[1] * os_[1] + os_[2] * os_[2] - 1.0
    disc = b * b - a * c
    tn = (-b - np.sqrt(np.maximum(disc, 0.0))) / np.maximum(a, _TINY)
    return np.where((disc >= 0) & (tn > near), tn, np.float32(np.inf)).astype(np.float32)


_KERNELS = {BOX: _box, CYLINDER: _cylinder, ELLIPSOID: _ellipsoid}


def intersect(
    prims: PrimitiveSet,
    pair_prim: NDArray[np.int64],
    world_from_camera: NDArray,
    rays_cam: Comp,
    near: float,
) -> F32:
    """First-hit distances ``(K, S)``: ray bundle ``rays_cam[·][k]`` against primitive ``pair_prim[k]``."""
    out = np.full(rays_cam[0].shape, np.inf, np.float32)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        _intersect_into(out, prims, pair_prim, world_from_camera, rays_cam, near)
    return out


def _intersect_into(
    out: F32,
    prims: PrimitiveSet,
    pair_prim: NDArray[np.int64],
    world_from_camera: NDArray,
    rays_cam: Comp,
    near: float,
) -> None:
    r_wc = world_from_camera[:3, :3]
    origin = world_from_camera[:3, 3]
    kinds = prims.kind[pair_prim]
    for kind, kernel in _KERNELS.items():
        sel = np.flatnonzero(kinds == kind)
        if len(sel) == 0:
            continue
        pp = pair_prim[sel]
        r = prims.rot[pp]
        m = np.einsum("ji,kjl->kil", r_wc, r).astype(np.float32)  # part_from_camera^T: cam → part rows
        o_local = np.einsum("kj,kji->ki", origin[None, :] - prims.center[pp], r).astype(np.float32)
        cx, cy, cz = (c[sel] for c in rays_cam)
        d = tuple(cx * m[:, 0, i, None] + cy * m[:, 1, i, None] + cz * m[:, 2, i, None] for i in range(3))
        o = tuple(o_local[:, i, None] for i in range(3))
        h32 = prims.half[pp].astype(np.float32)
        h = tuple(h32[:, i, None] for i in range(3))
        out[sel] = kernel(o, d, h, near)  # type: ignore[arg-type]


def local_normals(kind: NDArray, p: F32, half: F32) -> F32:
    """Outward unit normals ``(M, 3)`` in part coordinates at surface points ``p`` of each kind."""
    # boxes (most pixels): the face whose axis the point is relatively farthest along
    q = np.abs(p) / half
    axis = np.where(
        q[:, 0] >= q[:, 1], np.where(q[:, 0] >= q[:, 2], 0, 2), np.where(q[:, 1] >= q[:, 2], 1, 2)
    )
    n = np.empty_like(p)
    zero = np.float32(0)
    for i in range(3):
        n[:, i] = np.where(axis == i, np.sign(p[:, i]), zero)
    cyl = np.flatnonzero(kind == CYLINDER)
    if len(cyl):
        pc, hc = p[cyl], half[cyl]
        cap = np.abs(pc[:, 2]) >= hc[:, 2] * (1 - 1e-3)
        side = np.stack(
            [pc[:, 0] / hc[:, 0] ** 2, pc[:, 1] / hc[:, 1] ** 2, np.zeros(len(pc), np.float32)], -1
        )
        side /= np.maximum(np.sqrt(side[:, 0] ** 2 + side[:, 1] ** 2), 1e-12)[:, None]
        capn = np.zeros_like(pc)
        capn[:, 2] = np.sign(pc[:, 2])
        n[cyl] = np.where(cap[:, None], capn, side)
    ell = np.flatnonzero(kind == ELLIPSOID)
    if len(ell):
        e = p[ell] / half[ell] ** 2
        n[ell] = e / np.maximum(np.sqrt(e[:, 0] ** 2 + e[:, 1] ** 2 + e[:, 2] ** 2), 1e-12)[:, None]
    return n
