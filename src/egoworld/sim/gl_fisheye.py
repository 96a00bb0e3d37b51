"""The shaders that draw straight onto a fisheye's pixels: each vertex goes through the lens model.

`VERTEX_SHADER` takes the instance rows of `egoworld.sim.tessellation` (pieces small in angle, so a
triangle between exactly projected corners is close to the curved image of the surface) and projects with
`egoworld.geometry.cameras.FisheyeCamera`'s model: ``r = f·(θ + k0·θ³ + …)``, FISHEYE624's tangential and
thin-prism terms, continued as a straight line beyond ``theta_lim`` (where the polynomial may turn back) so
nothing behind the lens folds onto the image. ``w`` is the range, so attributes and depth are
interpolated as for a pinhole pointed at each small triangle. `uniforms` gives the values for a camera.
The fragment shader is the pinhole one (`egoworld.sim.gl.FRAGMENT_SHADER`): the same shading.

`MASK_VERTEX_SHADER` / `MASK_FRAGMENT_SHADER` draw the ring outside the lens' circle at the nearest depth
first, so the depth test spares shading what is never shown.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import FisheyeCamera

VERTEX_SHADER = """
#version 330
in vec3 t_pos;      // mesh vertex (unit shape, or the unit square of a box face)
in vec3 t_nrm;
in vec3 i_center;
in vec3 i_rx; in vec3 i_ry; in vec3 i_rz;   // columns of world_from_part
in vec3 i_half;
in vec3 i_color; in vec3 i_color2;
in vec3 i_misc;     // pattern code, pattern scale, instance id
in vec3 i_fu; in vec3 i_fv; in vec3 i_fn;   // the mesh's frame in the unit shape
uniform mat4 face_from_world;  // camera frame (x right, y down, z forward)
uniform vec4 focal;            // fx, fy, cx, cy
uniform vec2 size;             // width, height
uniform vec3 k_lo; uniform vec3 k_hi;   // radial terms k0..k5
uniform vec2 tangential; uniform vec4 prism;
uniform vec3 theta_lim;        // θ where the straight continuation starts, r there, dr/dθ there
uniform float theta_cut;       // beyond this angle a vertex is put past the far plane
uniform vec2 depth_ab;         // clip.z = a*range + b
out vec3 v_world; out vec3 v_local; out vec3 v_nrm_local; out vec3 v_nrm;
flat out vec3 v_half; flat out vec3 v_color; flat out vec3 v_color2; flat out vec3 v_misc;
void main() {
    mat3 r = mat3(i_rx, i_ry, i_rz);
    vec3 unit = i_fu * t_pos.x + i_fv * t_pos.y + i_fn * t_pos.z;
    vec3 un = i_fu * t_nrm.x + i_fv * t_nrm.y + i_fn * t_nrm.z;
    vec3 local = unit * i_half;
    vec3 nl = normalize(un / i_half);
    v_world = i_center + r * local;
    v_local = local; v_nrm_local = nl; v_nrm = r * nl;
    v_half = i_half; v_color = i_color; v_color2 = i_color2; v_misc = i_misc;
    vec3 c = (face_from_world * vec4(v_world, 1.0)).xyz;
    float rho = length(c.xy);
    float range = max(length(c), 1e-6);
    float theta = atan(rho, c.z);
    float rd;
    if (theta < theta_lim.x) {
        float t2 = theta * theta;
        rd = theta * (1.0 + t2 * (k_lo.x + t2 * (k_lo.y + t2 * (k_lo.z + t2 * (k_hi.x + t2 * (k_hi.y
             + t2 * k_hi.z))))));
    } else {
        rd = theta_lim.y + theta_lim.z * (theta - theta_lim.x);
    }
    vec2 u = rho > 1e-9 ? c.xy * (rd / rho) : c.xy / max(c.z, 1e-9);
    float r2 = dot(u, u);
    u += 2.0 * dot(u, tangential) * u + r2 * tangential
         + vec2(prism.x * r2 + prism.y * r2 * r2, prism.z * r2 + prism.w * r2 * r2);
    vec2 ndc = (2.0 * (focal.xy * u + focal.zw) + 1.0) / size - 1.0;
    float z = theta > theta_cut ? 2.0 * range : depth_ab.x * range + depth_ab.y;
    gl_Position = vec4(ndc * range, z, range);
}
"""

MASK_VERTEX_SHADER = """
#version 330
in vec2 ndc;
void main() { gl_Position = vec4(ndc, -1.0, 1.0); }
"""

MASK_FRAGMENT_SHADER = """
#version 330
layout(location = 0) out vec4 out_rgb;
layout(location = 1) out int out_id;
layout(location = 2) out float out_range;
void main() { out_rgb = vec4(0.0); out_id = 0; out_range = 0.0; }
"""


def _radial(camera: FisheyeCamera, theta: float) -> tuple[float, float]:
    """r(θ) and dr/dθ of the radial model."""
    k = list(camera.radial)
    r = theta + sum(c * theta ** (2 * i + 3) for i, c in enumerate(k))
    dr = 1.0 + sum((2 * i + 3) * c * theta ** (2 * i + 2) for i, c in enumerate(k))
    return r, dr


def uniforms(camera: FisheyeCamera) -> dict[str, object]:
    """The vertex shader's lens uniforms for ``camera`` (everything but pose and depth)."""
    k = (list(camera.radial) + [0.0] * 6)[:6]
    top = math.radians(camera.max_angle_deg)
    # the straight continuation starts a little past the image's largest angle, before r(θ) stops growing
    lim = top
    for theta in np.linspace(top, min(math.pi, top * 1.2), 64):
        if _radial(camera, float(theta))[1] <= 0.2:
            break
        lim = float(theta)
    r, dr = _radial(camera, lim)
    return {
        "focal": (camera.fx, camera.fy, camera.cx, camera.cy),
        "size": (float(camera.width), float(camera.height)),
        "k_lo": tuple(k[:3]),
        "k_hi": tuple(k[3:]),
        "tangential": tuple(camera.tangential),
        "prism": tuple(camera.thin_prism),
        "theta_lim": (lim, r, max(dr, 0.2)),
        "theta_cut": min(math.pi * 0.9, top + math.radians(60.0)),
    }


def circle_ring(camera: FisheyeCamera, segments: int = 256) -> NDArray[np.float32]:
    """Triangles (``(6·segments, 2)`` NDC) covering the image outside its valid circle and a half-pixel
    margin: the polygon's inner edge lies wholly outside the circle."""
    cx, cy = camera.valid_center or ((camera.width - 1) / 2, (camera.height - 1) / 2)
    inner = (float(camera.valid_radius or 0.0) + 0.5) / math.cos(math.pi / segments)
    outer = 2.0 * max(camera.width, camera.height)
    a = np.linspace(0, 2 * math.pi, segments + 1)
    ring = []
    for rad in (inner, outer):
        x, y = cx + rad * np.cos(a), cy + rad * np.sin(a)
        ring.append(np.stack([(2 * x + 1) / camera.width - 1, (2 * y + 1) / camera.height - 1], -1))
    i0, i1, o0, o1 = ring[0][:-1], ring[0][1:], ring[1][:-1], ring[1][1:]
    tris = np.stack([i0, o0, o1, i0, o1, i1], 1).reshape(-1, 2)
    return tris.astype(np.float32)
