"""Drawing straight onto a fisheye's own pixels (no pinhole faces, no resampling).

The primitives are cut into pieces small in angle (`egoworld.sim.tessellation`) whose vertices the
vertex shader projects through the lens model (`egoworld.sim.gl_fisheye`); the ring outside the lens'
circle is drawn first at the nearest depth so nothing there is shaded. Only the image's own pixels are
rasterised and shaded, and each is sampled at its centre: RGB, id and range come straight from the
framebuffer, row for row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import FisheyeCamera
from egoworld.sim.gl import FRAGMENT_SHADER
from egoworld.sim.gl_fisheye import (
    MASK_FRAGMENT_SHADER,
    MASK_VERTEX_SHADER,
    VERTEX_SHADER,
    circle_ring,
    uniforms,
)
from egoworld.sim.tessellation import mesh, pieces

#: widest piece, radians seen from the eye (at the piece's nearest possible point)
PIECE_ANGLE = 0.1
_INSTANCE = ("3f " * 11).strip() + "/i"
_NAMES = ("center", "rx", "ry", "rz", "half", "color", "color2", "misc", "fu", "fv", "fn")


class FisheyeDraw:
    """The GL objects that draw one fisheye camera's frames into its own framebuffer."""

    def __init__(self, ctx: Any, camera: FisheyeCamera, depth_ab: tuple[float, float], near: float) -> None:
        self._ctx, self.near = ctx, near
        self.size = (camera.width, camera.height)
        self.prog = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        for name, value in uniforms(camera).items():
            self.prog[name].value = value
        self.prog["depth_ab"].value = depth_ab
        self.fbo = ctx.framebuffer(
            color_attachments=[
                ctx.renderbuffer(self.size, 4),
                ctx.renderbuffer(self.size, 1, dtype="i4"),
                ctx.renderbuffer(self.size, 1, dtype="f4"),
            ],
            depth_attachment=ctx.depth_renderbuffer(self.size),
        )
        mask = ctx.program(vertex_shader=MASK_VERTEX_SHADER, fragment_shader=MASK_FRAGMENT_SHADER)
        ring = circle_ring(camera)
        self._mask = ctx.vertex_array(mask, [(ctx.buffer(ring.tobytes()), "2f", "ndc")])
        self._meshes: dict[tuple[str, int, int], tuple[Any, Any]] = {}
        self._vaos: dict[tuple[str, int, int], tuple[Any, Any]] = {}

    def _vao(self, key: tuple[str, int, int], rows: NDArray[np.float32]) -> Any:
        """The vertex array of mesh ``key`` with ``rows`` written as its instances."""
        entry = self._vaos.get(key)
        if entry is None or entry[1].size < rows.nbytes:
            if key not in self._meshes:
                verts, tris = mesh(key)
                self._meshes[key] = (self._ctx.buffer(verts.tobytes()), self._ctx.buffer(tris.tobytes()))
            vbo, ibo = self._meshes[key]
            buf = self._ctx.buffer(reserve=max(rows.nbytes, 4096) * 2)
            vao = self._ctx.vertex_array(
                self.prog,
                [(vbo, "3f 3f", "t_pos", "t_nrm"), (buf, _INSTANCE, *(f"i_{n}" for n in _NAMES))],
                index_buffer=ibo,
                index_element_size=4,
                skip_errors=True,
            )
            entry = (vao, buf)
            self._vaos[key] = entry
        entry[1].write(rows.tobytes())
        return entry[0]

    def draw(self, rows: NDArray[np.float32], prims: Any, eye: NDArray, camera_from_world: NDArray) -> None:
        """Draw ``prims`` (24-float rows ``rows``) seen from ``eye`` into the framebuffer (the caller has
        set the lighting uniforms and bound the grain texture)."""
        import moderngl

        ctx, fbo = self._ctx, self.fbo
        fbo.use()
        fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)  # range 0: nothing drawn
        ctx.viewport = (0, 0, *self.size)
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.CULL_FACE)
        self._mask.render(moderngl.TRIANGLES)
        ctx.enable(moderngl.CULL_FACE)
        ctx.front_face = "cw"
        self.prog["face_from_world"].write(camera_from_world.T.astype(np.float32).tobytes())
        for key, r in pieces(rows, prims, eye, PIECE_ANGLE, self.near):
            self._vao(key, np.ascontiguousarray(r)).render(moderngl.TRIANGLES, instances=len(r))
