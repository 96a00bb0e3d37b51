"""Reference only (bench): the numpy ray caster the synthetic worlds used before the OpenGL rasteriser.

`bench/sim_render.py` measures `egoworld.sim.render.renderer.Renderer` against it on the same scenes. Same
interface: ``RaycastRenderer(camera).render(prims, world_from_camera, background) -> Frame``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.sim.render.backgrounds import Background
from egoworld.sim.render.looks import pattern_mask
from egoworld.sim.render.primitives import BOX, CYLINDER, ELLIPSOID, PrimitiveSet
from egoworld.sim.render.renderer import Frame

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


Camera = PinholeCamera | FisheyeCamera | EquirectCamera
LIGHT_1 = np.array([0.35, 0.25, 1.0]) / np.linalg.norm([0.35, 0.25, 1.0])
_SIGNS = np.array([[sx, sy, sz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)], float)
LIGHT_2 = np.array([-0.6, -0.7, 0.35]) / np.linalg.norm([-0.6, -0.7, 0.35])


def _rows_times(a: NDArray, m: NDArray) -> NDArray:
    """``a @ m`` for ``a (N, 3)`` and ``m (3, 3)`` without BLAS (its threads only slow this size down)."""
    out = np.empty(a.shape, dtype=np.result_type(a, m))
    for j in range(3):
        out[:, j] = a[:, 0] * m[0, j] + a[:, 1] * m[1, j] + a[:, 2] * m[2, j]
    return out


class RaycastRenderer:
    """Ray caster for one camera model (reuse it for every frame of a video)."""

    def __init__(self, camera: Camera, *, tile: int = 8, near: float = 0.02, far: float = 200.0) -> None:
        self.camera = camera
        self.near, self.far, self.tile = near, far, tile
        h, w = camera.height, camera.width
        hp, wp = -(-h // tile) * tile, -(-w // tile) * tile
        jj, ii = np.meshgrid(np.arange(wp, dtype=np.float64), np.arange(hp, dtype=np.float64))
        uv = np.stack([jj, ii], axis=-1)
        valid = (ii < h) & (jj < w) & camera.in_image(uv)
        with np.errstate(invalid="ignore", divide="ignore"):
            rays = camera.unproject(uv)
        valid &= np.all(np.isfinite(rays), axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            valid &= camera.project(np.where(valid[..., None], rays, (0.0, 0.0, 1.0)))[1]
        rays[~valid] = (0.0, 0.0, 1.0)
        ty, tx = hp // tile, wp // tile

        def tiles(a: NDArray) -> NDArray:
            shape = a.shape[2:]
            return a.reshape(ty, tile, tx, tile, *shape).swapaxes(1, 2).reshape(ty * tx, tile * tile, *shape)

        t_rays, t_valid = tiles(rays), tiles(valid)
        keep = t_valid.any(axis=1)
        self._tile_pos = np.flatnonzero(keep)
        rays_k = t_rays[keep]
        self._valid = t_valid[keep]
        self._rays = rays_k.astype(np.float32)  # (T, S, 3) camera frame
        self._comp = tuple(np.ascontiguousarray(self._rays[..., i]) for i in range(3))
        axis = np.where(self._valid[..., None], rays_k, 0).sum(axis=1)
        axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
        cos = np.einsum("tsk,tk->ts", rays_k, axis)
        self._alpha = np.arccos(np.clip(np.where(self._valid, cos, 1.0), -1, 1)).max(axis=1) + 2e-3
        self._cos_a, self._sin_a = np.cos(self._alpha), np.sin(self._alpha)
        self._axis = axis
        self._grid = (ty, tx, hp, wp)

    @property
    def valid_mask(self) -> NDArray[np.bool_]:
        """Pixels that belong to the image (inside the fisheye circle)."""
        return self._untile(self._valid, False)

    def _untile(self, a: NDArray, fill: object) -> NDArray:
        ty, tx, hp, wp = self._grid
        s = self.tile
        full = np.full((ty * tx, s * s, *a.shape[2:]), fill, dtype=a.dtype)
        full[self._tile_pos] = a
        img = full.reshape(ty, tx, s, s, *a.shape[2:]).swapaxes(1, 2).reshape(hp, wp, *a.shape[2:])
        return img[: self.camera.height, : self.camera.width]

    def _pairs(self, prims: PrimitiveSet, pose: NDArray) -> tuple[NDArray, NDArray]:
        """(tile, primitive) pairs whose view cones meet, sorted by tile.

        A primitive's cone has its axis towards its centre and just contains the directions to the 8
        corners of its box (so the whole convex part); tiles are cones around their rays."""
        r, origin = pose[:3, :3], pose[:3, 3]
        v = _rows_times(prims.center - origin, r)  # camera frame
        dist = np.sqrt((v * v).sum(axis=-1))
        rho = prims.bounding_radius()
        idx = np.flatnonzero((dist - rho) < self.far)
        v, dist, rho = v[idx], dist[idx], rho[idx]
        axis = v / np.maximum(dist, 1e-12)[:, None]
        # corner offsets in the camera frame: sum_j s_j h_j (R_p[:, j] in camera coordinates)
        rc = np.stack([_rows_times(prims.rot[idx][:, :, j], r) for j in range(3)], axis=1)  # (P, 3 axes, 3)
        sh = _SIGNS[None, :, :] * prims.half[idx][:, None, :]  # (P, 8, 3)
        cdir = v[:, None, :] + sum(sh[:, :, j, None] * rc[:, None, j, :] for j in range(3))
        cdir /= np.maximum(np.sqrt((cdir * cdir).sum(axis=-1, keepdims=True)), 1e-12)
        cos_c = (cdir * axis[:, None, :]).sum(axis=-1).min(axis=1)
        beta = np.minimum(np.arccos(np.clip(cos_c, -1, 1)) + 1e-3, math.radians(85))
        wide = (dist <= rho * 1.0001) | (beta >= math.radians(85))
        ta = self._axis
        # angle(tile axis, primitive axis) ≤ α + β  ⇔  cos(angle) ≥ cos α cos β − sin α sin β  (α + β < π)
        cos_between = (
            ta[:, 0, None] * axis[None, :, 0]
            + ta[:, 1, None] * axis[None, :, 1]
            + ta[:, 2, None] * axis[None, :, 2]
        )
        thresh = self._cos_a[:, None] * np.cos(beta)[None, :] - self._sin_a[:, None] * np.sin(beta)[None, :]
        mask = cos_between >= thresh - 1e-7
        mask[:, wide] = True
        tile_i, prim_j = np.nonzero(mask)
        return tile_i, idx[prim_j]

    def render(self, prims: PrimitiveSet, world_from_camera: NDArray, background: Background) -> Frame:
        """Render the primitives (and background) seen from pose ``world_from_camera`` (4×4)."""
        pose = np.asarray(world_from_camera, dtype=np.float64)
        r, origin = pose[:3, :3], pose[:3, 3]
        n_tiles, s = self._valid.shape
        flat = _rows_times(self._rays.reshape(-1, 3), r.T.astype(np.float32))
        t_bg = background.distance(origin, flat)
        t_bg = np.where(t_bg > self.near, t_bg, np.inf).astype(np.float32)
        best_t = t_bg.reshape(n_tiles, s).copy()
        best_p = np.full((n_tiles, s), -1, np.int64)
        if len(prims):
            tile_i, prim_j = self._pairs(prims, pose)
            if len(tile_i):
                comp = tuple(c[tile_i] for c in self._comp)
                t = intersect(prims, prim_j, pose, comp, self.near)  # type: ignore[arg-type]
                starts = np.flatnonzero(np.r_[True, tile_i[1:] != tile_i[:-1]])
                tiles_hit = tile_i[starts]
                # one reduction finds the nearest hit and, among equal distances, the last pair: the key
                # is the distance's bit pattern (monotonic for t ≥ 0) above the reversed pair index
                pair = np.arange(len(tile_i), dtype=np.int64)
                key = (t.view(np.int32).astype(np.int64) << 32) | (0xFFFFFFFF - pair)[:, None]
                best = np.minimum.reduceat(key, starts, axis=0)
                t_min = (best >> 32).astype(np.int32).view(np.float32)
                win = 0xFFFFFFFF - (best & 0xFFFFFFFF)
                closer = (t_min < best_t[tiles_hit]) & np.isfinite(t_min)
                best_t[tiles_hit] = np.where(closer, t_min, best_t[tiles_hit])
                best_p[tiles_hit] = np.where(closer, prim_j[np.minimum(win, len(tile_i) - 1)], -1)
        best_t = best_t.reshape(-1)
        best_p = best_p.reshape(-1)
        hit = np.flatnonzero(best_p >= 0)
        ids = np.zeros(len(best_p), np.int32)
        rgb = np.zeros((len(best_p), 3), np.float32)
        bg = np.flatnonzero((best_p < 0) & self._valid.reshape(-1))
        if len(bg):
            rgb[bg] = background.color(origin, flat[bg], best_t[bg])
        if len(hit):
            k = best_p[hit]
            ids[hit] = prims.inst[k]
            rgb[hit] = self._shade(prims, k, origin, flat[hit], best_t[hit])
        valid = self._valid.reshape(-1)
        rgb8 = np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8)
        rgb8[~valid] = 0
        ids[~valid] = 0
        depth = np.where(valid, best_t, np.nan).astype(np.float32)
        return Frame(
            self._untile(rgb8.reshape(n_tiles, s, 3), 0),
            self._untile(depth.reshape(n_tiles, s), np.float32(np.nan)),
            self._untile(ids.reshape(n_tiles, s), 0),
        )

    @staticmethod
    def _shade(prims: PrimitiveSet, k: NDArray, origin: NDArray, dirs: NDArray, t: NDArray) -> NDArray:
        """Colour of the hit points: pattern in part coordinates, two directional lights and ambient."""
        rot_all = prims.rot.astype(np.float32)
        # light directions in each part's frame (R^T L), so normals can stay in part coordinates
        lights = [np.einsum("nji,j->ni", rot_all, lvec.astype(np.float32)) for lvec in (LIGHT_1, LIGHT_2)]
        rel = (origin[None, :] - prims.center).astype(np.float32)
        rot = rot_all[k]
        hit = rel[k] + t[:, None] * dirs
        hx, hy, hz = hit[:, 0], hit[:, 1], hit[:, 2]
        p = np.empty_like(hit)
        for i in range(3):  # part coordinates: R^T (hit - centre)
            p[:, i] = hx * rot[:, 0, i] + hy * rot[:, 1, i] + hz * rot[:, 2, i]
        half = prims.half.astype(np.float32)[k]
        nl = local_normals(prims.kind[k], p, half)
        light = np.full(len(k), np.float32(0.45), np.float32)
        for lp, weight in zip(lights, (0.42, 0.2), strict=True):
            lk = lp[k]
            dot = nl[:, 0] * lk[:, 0] + nl[:, 1] * lk[:, 1] + nl[:, 2] * lk[:, 2]
            light += np.float32(weight) * np.maximum(dot, 0)
        m = pattern_mask(prims.pattern[k], prims.scale[k], p, half)
        base = np.where(m[:, None], prims.color2[k], prims.color[k])
        return base * light[:, None]
