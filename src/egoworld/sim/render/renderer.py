"""The rasteriser: RGB, depth (range, metres) and per-pixel instance ids of a scene for any camera model.

`Renderer(camera)` draws the primitives with OpenGL (`egoworld.sim.render.gl`: moderngl, headless) into one or
more pinhole *faces* laid out in one framebuffer (`egoworld.sim.render.faces`: a pinhole is its own face, a
fisheye a centre face and four side faces each sampled at least as finely as the fisheye over the rays it
covers, a panorama the six faces of a cube) and resamples them onto the camera's pixels.

Each output pixel takes the face pixel nearest to where its own ray (``camera.unproject``) lands, for
RGB, instance id and range alike: the three images come from one draw and the same samples, so visibility
read off the id or depth buffer is exact with respect to what the RGB shows. Background pixels (no
primitive nearer than the background's surface along the pixel's ray) take the background's colour and
distance (`egoworld.sim.render.backgrounds`).

`Frame.depth` holds the **range** (distance from the camera centre to the drawn surface), as
``egoworld.geometry.visibility`` expects with ``depth_kind="range"``; ``inf`` where only sky is seen,
``nan`` outside the image circle. `Frame.ids` holds instance ids (0 = background or outside).
Primitives whose bounding sphere lies entirely beyond ``far`` are not drawn; a camera inside a solid sees
nothing of it (back faces are culled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.sim.render.backgrounds import Background, Lighting
from egoworld.sim.render.faces import Atlas, face_atlas
from egoworld.sim.render.gl import (
    MAX_FACES,
    collect,
    context,
    depth_mapping,
    depth_renderbuffer,
    fragment_shader,
    grain_quads,
    grain_texture,
    moderngl_module,
    template_meshes,
    vertex_shader,
)
from egoworld.sim.render.primitives import BOX, PrimitiveSet
from egoworld.sim.render.remap import load as load_remap
from egoworld.sim.render.remap import remap

Camera = PinholeCamera | FisheyeCamera | EquirectCamera
_STRIDE = 24  # floats per primitive row
_LIGHTING = ("eye", "lamp", "haze")
_GL_CLIP_DISTANCE0 = 0x3000


@dataclass(frozen=True)
class Frame:
    """One rendered image: ``rgb (H, W, 3)`` uint8, ``depth (H, W)`` float32 range, ``ids (H, W)`` int32."""

    rgb: NDArray[np.uint8]
    depth: NDArray[np.float32]
    ids: NDArray[np.int32]


class Renderer:
    """Rasteriser for one camera model (reuse it for every frame of a video)."""

    def __init__(self, camera: Camera, *, near: float = 0.02, far: float = 200.0) -> None:
        moderngl = moderngl_module()
        self.camera = camera
        self.near, self.far = near, far
        h, w = camera.height, camera.width
        jj, ii = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        uv = np.stack([jj, ii], axis=-1)
        valid = camera.in_image(uv)
        with np.errstate(invalid="ignore", divide="ignore"):
            rays = camera.unproject(uv)
        valid &= np.all(np.isfinite(rays), axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            valid &= camera.project(np.where(valid[..., None], rays, (0.0, 0.0, 1.0)))[1]
        rays[~valid] = (0.0, 0.0, 1.0)
        self._valid = valid
        valid_flat = np.flatnonzero(valid.ravel())
        self._atlas = face_atlas(camera, uv.reshape(-1, 2)[valid_flat], rays.reshape(-1, 3)[valid_flat])
        # every output pixel's atlas pixel; pixels outside the image read the spare one (never drawn)
        self._lut_full = np.full(h * w, self._atlas.spare, np.int64)
        self._lut_full[valid_flat] = self._atlas.lookup
        self._rays_full = rays.reshape(-1, 3).astype(np.float32)
        collect()  # free what earlier renderers left behind before allocating
        ctx = context()
        self._ctx = ctx
        # one program per (pattern code, lamp, haze, box): made on first use
        self._programs: dict[tuple[int, bool, bool, bool], Any] = {}
        self._lighting_names: dict[int, list[str]] = {}  # the lighting uniforms each program uses
        size = (self._atlas.width, self._atlas.height)
        # one colour attachment (RGB8 packed and the instance id: one write and one read per pixel) and the
        # depth buffer, from which the range is recovered (`depth_mapping`: window depth near / z)
        self._depth_ab, exact = depth_mapping(near)
        depth, float_depth = depth_renderbuffer(ctx, size)
        self.exact_depth = exact and float_depth  # else the range is good to about 1e-5 of itself
        self._fbo = ctx.framebuffer(
            color_attachments=[ctx.renderbuffer(size, 2, dtype="u4")], depth_attachment=depth
        )
        self._fbo.clear(depth=0.0)  # once: the spare pixel (never drawn) stays id 0, black
        n_atlas = size[0] * size[1]
        self._words = np.empty(n_atlas, np.uint64)  # read-back buffers, reused
        self._dbuf = np.empty(n_atlas, np.float32)
        # per output pixel: range = near * |ray through the centre of the face pixel it reads| / depth, where
        # that ray is (x, y, 1) in the face's frame; nan outside the image
        norm = np.zeros((size[1], size[0]))
        for face in self._atlas.faces:
            fc = face.camera
            x = (np.arange(fc.width) - fc.cx) / fc.fx
            y = (np.arange(fc.height) - fc.cy) / fc.fy
            norm[face.y0 : face.y0 + fc.height, face.x0 : face.x0 + fc.width] = np.sqrt(
                1.0 + x[None, :] ** 2 + y[:, None] ** 2
            )
        range_k = np.full(h * w, np.nan, np.float32)
        range_k[valid_flat] = near * norm.ravel()[self._atlas.lookup]
        self._range_k = range_k
        load_remap()  # the compiled remap (numba), here rather than in the first frame
        grain = grain_texture()
        self._grain = ctx.texture(grain.shape[::-1], 4, grain_quads(grain).tobytes(), dtype="u1")
        # each texel with its 2x2 neighbourhood, as integers: the fragment program filters it bilinearly the
        # way llvmpipe filters an 8-bit texture, from one nearest fetch (`gl.grain_at`). Nearest-texel grain
        # would be cheaper, but its texel steps flicker as the camera moves and OpenCV odometry on a sim walk
        # lost accuracy (ATE 8.3 -> 10.2 % of the path)
        self._grain.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self._grain.repeat_x = self._grain.repeat_y = True
        # indexed template meshes: the vertex program runs once per distinct vertex (a sphere's 1,728 triangle
        # corners are 312 vertices), not once per triangle corner
        self._templates = {}
        for kind, mesh in template_meshes().items():
            vertices, index = np.unique(mesh, axis=0, return_inverse=True)
            self._templates[kind] = (
                ctx.buffer(vertices.astype(np.float32).tobytes()),
                ctx.buffer(index.astype(np.uint32).ravel().tobytes()),
                len(mesh),
            )
        self._inst_buf: dict[tuple[int, int], object] = {}
        self._vaos: dict[tuple[int, int, bool, bool], object] = {}
        self._moderngl = moderngl
        self._proj = [
            (
                2 * f.camera.fx / f.camera.width,
                2 * f.camera.fy / f.camera.height,
                (2 * f.camera.cx + 1) / f.camera.width - 1,
                (2 * f.camera.cy + 1) / f.camera.height - 1,
            )
            for f in self._atlas.faces
        ]
        # per face: its projection and its rectangle in the atlas (the vertex program's `faces`). A fisheye's
        # faces are drawn together, one draw per (shape, pattern): projected onto the whole atlas and cut to
        # their rectangles by clip distances. A pinhole's single face and a panorama's six are drawn each in
        # its own viewport, as before the draws were merged: their frames stay bit for bit what they were (the
        # sim walk's odometry tests react to single levels in a few pixels; DEVELOPERS.md)
        if len(self._atlas.faces) > MAX_FACES:
            raise ValueError(f"{len(self._atlas.faces)} faces: the vertex program holds at most {MAX_FACES}")
        self._clip = isinstance(camera, FisheyeCamera) and len(self._atlas.faces) > 1
        width, height = self._atlas.width, self._atlas.height
        onto_atlas = []
        for f, (px, py, pz, pw) in zip(self._atlas.faces, self._proj, strict=True):
            if not self._clip:
                onto_atlas.append((px, py, pz, pw, -1.0, -1.0, 1.0, 1.0))
                continue
            sx, sy = f.camera.width / width, f.camera.height / height
            x0, y0 = 2 * f.x0 / width - 1, 2 * f.y0 / height - 1
            onto_atlas.append(
                (px * sx, py * sy, pz * sx + x0 + sx, pw * sy + y0 + sy, x0, y0, x0 + 2 * sx, y0 + 2 * sy)
            )
        self._onto_atlas = np.array(onto_atlas, np.float32)
        self._viewports = [(f.x0, f.y0, f.camera.width, f.camera.height) for f in self._atlas.faces]
        # per face, the unit normals (face frame) of the planes through the camera centre that bound its view
        # volume, pointing inwards: x/z and y/z at the bounds where the projection puts them at the viewport's
        # edges, and z = 0
        planes = []
        for proj in self._proj:
            face_planes = [(0.0, 0.0, 1.0)]
            for axis, scale, offset in ((0, proj[0], proj[2]), (1, proj[1], proj[3])):
                for bound, sign in (((-1 - offset) / scale, 1.0), ((1 - offset) / scale, -1.0)):
                    normal = np.zeros(3)
                    normal[axis], normal[2] = sign, -sign * bound
                    face_planes.append(tuple(normal / np.hypot(1.0, bound)))
            planes.append(face_planes)
        self._face_planes = np.array(planes)  # (F, 5, 3)

    def _program(self, pattern: int, lamp: bool, haze: bool, box: bool) -> Any:
        """The shading program of one pattern code with or without lamp and haze, for boxes or curved shapes
        (compiled once)."""
        key = (pattern, lamp, haze, box)
        prog = self._programs.get(key)
        if prog is None:
            prog = self._ctx.program(
                vertex_shader=vertex_shader(box, self._clip),
                fragment_shader=fragment_shader(pattern, lamp, haze, box, self._clip),
            )
            prog["grain"].value = 0
            prog["depth_ab"].value = self._depth_ab
            self._programs[key] = prog
            self._lighting_names[id(prog)] = [n for n in _LIGHTING if n in set(prog)]
        return prog

    @property
    def atlas(self) -> Atlas:
        """The faces this renderer draws and where each output pixel reads them."""
        return self._atlas

    @property
    def valid_mask(self) -> NDArray[np.bool_]:
        """Pixels that belong to the image (inside the fisheye circle)."""
        return self._valid.copy()

    def _vao(self, key: tuple[int, int], mode: tuple[bool, bool], rows: NDArray[np.float32]) -> object:
        """The vertex array of ``key`` = (shape kind, pattern code) drawn with lamp and haze ``mode``, with
        ``rows`` as its instances (one instance buffer per key: a buffer is never rewritten while an earlier
        draw may still read it)."""
        buf = self._inst_buf.get(key)
        if buf is None or buf.size < rows.nbytes:  # type: ignore[attr-defined]
            buf = self._ctx.buffer(reserve=max(rows.nbytes, 4096) * 2)
            self._inst_buf[key] = buf
            for k in [k for k in self._vaos if k[:2] == key]:
                del self._vaos[k]
        vkey = (*key, *mode)
        if vkey not in self._vaos:
            vertices, index, corners = self._templates[key[0]]
            vao = self._ctx.vertex_array(
                self._program(key[1], *mode, key[0] == BOX),
                [
                    (vertices, "3f 3f", "t_pos", "t_nrm"),
                    (
                        buf,
                        "3f 3f 3f 3f 3f 3f 3f 3f/i",
                        "i_center",
                        "i_rx",
                        "i_ry",
                        "i_rz",
                        "i_half",
                        "i_color",
                        "i_color2",
                        "i_misc",
                    ),
                ],
                index_buffer=index,
                skip_errors=True,
            )
            vao.vertices = corners  # moderngl counts the vertex buffer's rows, not the indices
            self._vaos[vkey] = vao
        buf.write(rows)  # type: ignore[attr-defined]
        return self._vaos[vkey]

    def _draw(self, prims: PrimitiveSet, pose: NDArray, lt: Lighting) -> tuple[NDArray, NDArray]:
        """Draw every face; the atlas's buffers ``(words (N,) uint64, depth (N,) float32)``: per pixel RGB8 packed
        in the low 24 bits and the instance id in the high 32, and the window depth near / z (0: nothing drawn).
        Both are reused by the next call."""
        ctx, mgl = self._ctx, self._moderngl
        origin = pose[:3, 3]
        rel, radius = prims.center - origin, prims.bounding_radius()
        within_far = np.linalg.norm(rel, axis=-1) - radius < self.far
        fbo = self._fbo
        fbo.use()
        fbo.clear(depth=0.0)  # depth 0: infinitely far, nothing drawn
        ctx.enable(mgl.DEPTH_TEST | mgl.CULL_FACE)
        ctx.depth_func = ">"
        ctx.front_face = "cw"
        self._grain.use(location=0)
        mode = (lt.lamp_power > 0, lt.haze_m > 0)
        lighting = {
            "eye": tuple(float(x) for x in origin),
            "lamp": (*(float(x) for x in lt.lamp), float(lt.lamp_power)),
            "haze": (*(float(x) for x in lt.haze_color), float(lt.haze_m)),
        }
        lit: set[int] = set()
        rows = np.empty((len(prims), _STRIDE), np.float32)
        rows[:, 0:3] = prims.center
        rows[:, 3:12] = prims.rot.transpose(0, 2, 1).reshape(-1, 9)  # columns of R, one after the other
        rows[:, 12:15] = prims.half
        rows[:, 15:18] = prims.color
        rows[:, 18:21] = prims.color2
        rows[:, 22] = prims.scale  # column 21: the face, per instance below
        rows[:, 23] = prims.inst
        group = prims.kind.astype(np.int64) * 16 + prims.pattern
        # every face's view volume at once: a primitive is drawn on a face when its bounding sphere reaches
        # past each of the face's planes (four sides and z = 0, through the camera centre)
        # (F, 3, 3), face by face: the same float64 arithmetic as when each face was drawn on its own, so
        # the walk's frames stay bit for bit what they were
        world_from_face = np.stack([pose[:3, :3] @ face.rotation for face in self._atlas.faces])
        normals = np.einsum("fij,fpj->fpi", world_from_face, self._face_planes)  # world directions
        n_faces, n_planes = self._face_planes.shape[:2]
        reach = (rel @ normals.reshape(-1, 3).T).reshape(-1, n_faces, n_planes) > -radius[:, None, None]
        drawn = reach.all(axis=2) & within_far[:, None]
        face_of, prim_of = np.nonzero(drawn.T)  # face by face, scene order within a face
        # one instance per primitive and face it reaches; grouped by (shape, pattern), then by face, in scene
        # order within a face (depth ties resolve the same): one draw per group for a fisheye's faces, else
        # one per group and face
        keys = group[prim_of] * 16 + face_of
        order = np.argsort(keys, kind="stable")
        instances = rows[prim_of[order]]
        instances[:, 21] = face_of[order]
        draw_keys = keys[order] if not self._clip else keys[order] >> 4 << 4
        starts = np.flatnonzero(np.r_[True, draw_keys[1:] != draw_keys[:-1]])[: len(draw_keys)].tolist()
        ends = [*starts[1:], len(instances)][: len(starts)]  # (none when nothing reaches a face)
        faces = np.zeros((MAX_FACES, 6, 4), np.float32)  # face_from_world's columns, projection, rectangle
        faces[:n_faces, :3, :3] = world_from_face
        faces[:n_faces, 3, :3] = [-r.T @ origin for r in world_from_face]
        faces[:n_faces, 3, 3] = 1.0
        faces[:n_faces, 4:, :] = self._onto_atlas.reshape(-1, 2, 4)
        if self._clip:
            ctx.viewport = (0, 0, self._atlas.width, self._atlas.height)
            for i in range(4):
                ctx.enable_direct(_GL_CLIP_DISTANCE0 + i)
        for a, b in zip(starts, ends, strict=True):
            key = int(draw_keys[a])
            if not self._clip:
                ctx.viewport = self._viewports[key & 15]
            vao = self._vao((key >> 8, (key >> 4) & 15), mode, instances[a:b])
            prog = vao.program  # type: ignore[attr-defined]
            if id(prog) not in lit:
                lit.add(id(prog))
                for name in self._lighting_names[id(prog)]:
                    prog[name].value = lighting[name]
                prog["faces"].write(faces)
            vao.render(mgl.TRIANGLES, instances=b - a)  # type: ignore[attr-defined]
        if self._clip:
            for i in range(4):
                ctx.disable_direct(_GL_CLIP_DISTANCE0 + i)
        ctx.finish()
        fbo.read_into(self._words, components=2, attachment=0, dtype="u4")
        fbo.read_into(self._dbuf, attachment=-1, dtype="f4")
        return self._words, self._dbuf

    def render(self, prims: PrimitiveSet, world_from_camera: NDArray, background: Background) -> Frame:
        """Render the primitives (and background) seen from pose ``world_from_camera`` (4×4)."""
        pose = np.asarray(world_from_camera, dtype=np.float64)
        # the background last: the depth test then skips shading most of it (drawn over by the scene)
        scene = PrimitiveSet.concat([prims, background.parts(pose[:3, 3], self.far)])
        words_f, depth_f = self._draw(scene, pose, background.lighting())
        # every output pixel's RGB, id and range (nan outside the image, inf where nothing was drawn)
        rgb, ids, depth, undrawn = remap(words_f, depth_f, self._lut_full, self._range_k)
        if len(undrawn):  # the sky (or a crack between background slabs): the background's own colour
            ids[undrawn] = 0
            r = pose[:3, :3].astype(np.float32)
            d = self._rays_full[undrawn]
            dirs = d[:, 0:1] * r[:, 0] + d[:, 1:2] * r[:, 1] + d[:, 2:3] * r[:, 2]
            t = background.distance(pose[:3, 3], dirs)
            t = np.where(t > self.near, t, np.inf).astype(np.float32)
            rgb[undrawn] = np.clip(background.color(pose[:3, 3], dirs, t) * 255 + 0.5, 0, 255).astype(
                np.uint8
            )
            depth[undrawn] = t
        h, w = self.camera.height, self.camera.width
        return Frame(rgb.reshape(h, w, 3), depth.reshape(h, w), ids.reshape(h, w))
