"""The OpenGL side of the renderer: one headless context per process and the shading programs.

The context is moderngl on EGL (Mesa's llvmpipe software rasteriser on a CPU-only machine; a GPU driver
when there is one), falling back to OSMesa. Primitives are drawn instanced: one template mesh per shape
(unit box, cylinder, sphere) and one row of per-primitive data (centre, rotation, half sizes, look, id).
One pass writes one colour attachment (``RG32UI``: the shaded RGB packed in one word, the instance id in the
other) and a 32-bit float depth buffer holding near / z (`depth_mapping`), from which the renderer recovers
the range (distance from the camera centre to the drawn surface), so ids and depth describe exactly what the
RGB shows. (Each attachment costs llvmpipe a write per fragment: three attachments — RGB, id, range — cost
about 10 % more per frame.) The fragment shader is compiled once per pattern code, lamp, haze and shape
(`fragment_shader`: boxes, whose faces are flat, get their normal-only terms from the vertex program):
llvmpipe runs every branch of a shader, so each variant carries only its own. One draw per (shape, pattern)
covers all of a fisheye's faces (`vertex_shader`: clip distances cut each instance to its face); a pinhole's
face and a panorama's six are drawn one by one, with the arithmetic of before that change (the sim walk's
odometry tests react to single levels in a few pixels). DEVELOPERS.md ("Renderer speed") has what each choice
costs in llvmpipe and what was tried and dropped.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

INSTALL_HINT = (
    "the renderer needs an OpenGL 3.3 context: `pip install moderngl` (extra 'sim') and Mesa's EGL or "
    "OSMesa libraries (Debian/Ubuntu: `apt-get install -y libegl1 libgl1-mesa-dri libosmesa6`)"
)

_VERTEX_BODY = """
in vec3 t_pos;      // template vertex (unit shape)
in vec3 t_nrm;      // template normal (before scaling by 1/half)
in vec3 i_center;
in vec3 i_rx; in vec3 i_ry; in vec3 i_rz;   // columns of world_from_part
in vec3 i_half;
in vec3 i_color; in vec3 i_color2;
in vec3 i_misc;     // face (the atlas face this instance is drawn on), pattern scale, instance id
// per face, six vectors: face_from_world's four columns (x right, y down, z forward); the projection onto the
// atlas (clip x = p.x * x + p.z * z, clip y = p.y * y + p.w * z); the face's rectangle in the atlas (x0, y0,
// x1, y1, normalised device coordinates), to which the four clip distances cut every triangle
uniform vec4 faces[6 * MAX_FACES];
#if CLIP
out float gl_ClipDistance[4];
#endif
uniform vec2 depth_ab;         // clip.z = a*z + b: window depth near / z (`depth_mapping`)
uniform vec3 eye;
uniform vec4 lamp;             // a ceiling lamp: world position, power (0: no lamp)
uniform vec4 haze;             // haze colour, distance (0: no haze)
out vec3 v_local;  // the part-local point
flat out vec3 v_half; flat out vec3 v_color; flat out vec3 v_color2; flat out vec3 v_misc;  // 1 / pattern scale, pattern scale, instance id
// the lighting, passed flat: llvmpipe loads a uniform in a fragment program lane by lane (a bounds-checked
// gather per value and 8 pixels), a flat input with one broadcast. With CLIP (the fisheye's merged draws)
// positions are relative to the eye (v_view = eye - surface point, lamp - eye: no eye input and no
// subtraction per pixel); without (pinholes, panoramas) the arithmetic is the earlier one, bit for bit: the
// sim walk's odometry tests react to changes of single levels in a few pixels (DEVELOPERS.md)
#if CLIP
out vec3 v_view;
#else
out vec3 v_world; flat out vec3 v_eye;
#endif
flat out vec4 v_lamp; flat out vec4 v_haze;  // lamp (CLIP: - eye), lamp power; haze colour, distance
#if BOX
// a box face is flat: its normal, the light that depends only on it, and which two part axes span it (the
// grain's texture coordinates and the edge distance) are the same over the whole face
out vec2 v_tuv;
flat out vec3 v_nl; flat out vec3 v_n; flat out float v_light; flat out vec2 v_thalf;
#else
out vec3 v_nrm_local; out vec3 v_nrm;
#endif
void main() {
    mat3 r = mat3(i_rx, i_ry, i_rz);
    vec3 local = t_pos * i_half;
    vec3 nl = normalize(t_nrm / i_half);
    vec3 world = i_center + r * local;
    v_local = local;
#if BOX
    vec3 n = normalize(r * nl);
    v_nl = nl; v_n = n;
    v_light = sky_key_fill(n);
    vec3 an = abs(nl);
    bool on_x = an.x > max(an.y, an.z);
    bool on_y = an.y > an.z;
    v_tuv = on_x ? local.yz : (on_y ? local.xz : local.xy);
    v_thalf = on_x ? i_half.yz : (on_y ? i_half.xz : i_half.xy);
#else
    v_nrm_local = nl; v_nrm = r * nl;
#endif
    v_half = i_half; v_color = i_color; v_color2 = i_color2;
    v_misc = vec3(1.0 / i_misc.y, i_misc.yz);  // the fragment program multiplies by 1 / scale
#if CLIP
    v_view = eye - world;
    v_lamp = vec4(lamp.xyz - eye, lamp.w);
#else
    v_world = world; v_eye = eye;
    v_lamp = lamp;
#endif
    v_haze = haze;
    int f = 6 * int(i_misc.x + 0.5);
    vec3 c = (mat4(faces[f], faces[f + 1], faces[f + 2], faces[f + 3]) * vec4(world, 1.0)).xyz;
    vec4 p = faces[f + 4];
    vec4 box = faces[f + 5];
    vec2 xy = vec2(p.x * c.x + p.z * c.z, p.y * c.y + p.w * c.z);
    gl_Position = vec4(xy, depth_ab.x * c.z + depth_ab.y, c.z);
#if CLIP
    gl_ClipDistance[0] = xy.x - box.x * c.z;
    gl_ClipDistance[1] = box.z * c.z - xy.x;
    gl_ClipDistance[2] = xy.y - box.y * c.z;
    gl_ClipDistance[3] = box.w * c.z - xy.y;
#endif
}
"""

_SKY_KEY_FILL = """
float sky_key_fill(vec3 n) {  // the light that depends only on the normal (n facing the viewer)
    float light = mix(0.30, 0.46, 0.5 + 0.5 * n.z);                         // sky / floor bounce
    light += 0.40 * max(dot(n, normalize(vec3(0.35, 0.25, 1.0))), 0.0);  // key light
    light += 0.18 * max(dot(n, normalize(vec3(-0.6, -0.7, 0.35))), 0.0); // fill light
    return light;
}
"""

_FRAGMENT_BODY = """
in vec3 v_local;
#if CLIP
in vec3 v_view;
#else
in vec3 v_world; flat in vec3 v_eye;
#endif
flat in vec3 v_half; flat in vec3 v_color; flat in vec3 v_color2; flat in vec3 v_misc;
#if BOX
in vec2 v_tuv;
flat in vec3 v_nl; flat in vec3 v_n; flat in float v_light; flat in vec2 v_thalf;
#else
in vec3 v_nrm_local; in vec3 v_nrm;
#endif
flat in vec4 v_lamp; flat in vec4 v_haze;
uniform usampler2D grain;  // tileable noise (`grain_texture`), each texel holding its 2x2 neighbourhood
layout(location = 0) out uvec2 out_rgb_id;  // RGB8 packed (r | g << 8 | b << 16), instance id

float cell_hash(vec3 c) {
    ivec3 i = ivec3(c);
    uint h = (uint(i.x) * 73856093u) ^ (uint(i.y) * 19349663u) ^ (uint(i.z) * 83492791u);
    h = (h ^ (h >> 13u)) * 1274126177u;
    return float((h ^ (h >> 16u)) & 65535u) / 65536.0;
}

float grain_at(vec2 uv) {
    // the grain filtered bilinearly (texture coordinates uv, repeating) exactly as llvmpipe filters an 8-bit
    // texture: the position in 8.8 fixed point (rounded, half a texel back), 8-bit weights, each lerp rounded
    // to 8 bits, across then down. One nearest fetch brings the four texels (`grain_quads`): in llvmpipe far
    // cheaper than its own bilinear fetch, and the same values (the sim walk's pycolmap reconstruction is
    // sensitive even to single levels: exact float weights made it fail one run in two)
    ivec2 s = ivec2(roundEven(uv * 65536.0)) - 128;
    ivec2 i0 = s >> 8;
    ivec2 w = s & 255;
    ivec4 c = ivec4(textureLod(grain, (vec2(i0) + 0.5) * (1.0 / 256.0), 0.0));
    ivec2 across = (c.rb * 256 + (c.ga - c.rb) * w.x + 128) >> 8;
    int g = (across.x * 256 + (across.y - across.x) * w.y + 128) >> 8;
    return float(g) * (1.0 / 255.0);
}

bool pattern(float s, float r, vec3 p, vec3 h, vec3 nl) {  // scale s, r = 1 / s
#if PATTERN == 1
    return fract(p.z * r) < 0.5;
#elif PATTERN == 2
    return fract(p.x * r) < 0.5;
#elif PATTERN == 3
    return mod(floor(p.x * r) + floor(p.y * r) + floor(p.z * r), 2.0) == 1.0;
#elif PATTERN == 4
    vec3 d = fract(p * r) - 0.5; return dot(d, d) < 0.27;
#elif PATTERN == 5
    return abs(p.z) < s;
#elif PATTERN == 6
    return fract(length(p.xy) * r) < 0.35;
#elif PATTERN == 7
    float fu = fract(p.x * r + p.y * r); float fz = fract(p.z * r);
    return fu > 0.25 && fu < 0.75 && fz > 0.3 && fz < 0.8;
#elif PATTERN == 8
    bvec3 inner = lessThan(abs(p), h - vec3(s));
    bvec3 face = greaterThan(abs(nl), vec3(0.9));
    return any(bvec3(!inner.x && !face.x, !inner.y && !face.y, !inner.z && !face.z));
#elif PATTERN == 9
    return cell_hash(floor(p * r)) < 0.35;
#else
    return false;
#endif
}

void main() {
#if BOX
    vec3 nl = v_nl;
    vec2 tuv = v_tuv;
    vec3 n = v_n;
#else
    vec3 nl = normalize(v_nrm_local);
    // surface texture coordinates: the two part axes across the normal
    vec3 an = abs(nl);
    vec2 tuv = an.x > max(an.y, an.z) ? v_local.yz : (an.y > an.z ? v_local.xz : v_local.xy);
    vec3 n = normalize(v_nrm);
#endif
    vec3 base = pattern(v_misc.y, v_misc.x, v_local, v_half, nl) ? v_color2 : v_color;
    // surface texture: tileable noise mapped onto the face, 32 cm tiles
    base *= 0.86 + 0.28 * grain_at(tuv * 3.1);
#if CLIP
    vec3 to_eye = v_view;
#else
    vec3 to_eye = v_eye - v_world;
#endif
    vec3 view = normalize(to_eye);
#if BOX
    float light = v_light;  // a box face drawn is a front face: n faces the viewer
#else
    if (dot(n, view) < 0.0) n = -n;
    float light = sky_key_fill(n);
#endif
    float spec = 0.0;
#if LAMP
    {
#if CLIP
        vec3 to_lamp = v_lamp.xyz + v_view;
#else
        vec3 to_lamp = v_lamp.xyz - v_world;
#endif
        float d2 = dot(to_lamp, to_lamp);
        vec3 l = to_lamp * inversesqrt(d2);
        light += v_lamp.w * max(dot(n, l), 0.0) / (1.0 + d2 / 6.0);
        float s1 = max(dot(n, normalize(l + view)), 0.0);  // Blinn-Phong, exponent 40 as products
        float s2 = s1 * s1; float s4 = s2 * s2; float s8 = s4 * s4; float s16 = s8 * s8;
        spec = 0.18 * (s16 * s16 * s8);
    }
#endif
    // contact shading along box edges (a few millimetres of bevel)
#if BOX
    vec2 e = v_thalf - abs(tuv);
    float edge = min(e.x, e.y);
#else
    vec3 e = v_half - abs(v_local);
    vec3 ef = mix(e, vec3(1e3), greaterThan(abs(nl), vec3(0.9)));
    float edge = min(min(ef.x, ef.y), ef.z);
#endif
    light *= 0.82 + 0.18 * smoothstep(0.0, 0.012, edge);
    vec3 rgb = base * light + vec3(spec);
#if HAZE
    rgb = mix(rgb, v_haze.rgb, clamp(length(to_eye) / v_haze.w, 0.0, 1.0));
#endif
    uvec3 c8 = uvec3(clamp(rgb, 0.0, 1.0) * 255.0 + 0.5);
    out_rgb_id = uvec2(c8.r | (c8.g << 8u) | (c8.b << 16u), uint(int(v_misc.z + 0.5)));
}
"""


MAX_FACES = 6  # faces in one atlas (a cube's six)


def vertex_shader(box: bool, clip: bool = True) -> str:
    """The vertex program: boxes (``box``) pass their flat face's normal, light and texture axes on. Each
    instance is one primitive on one atlas face, projected by that face's row of ``faces``; with ``clip`` (a
    fisheye's faces, drawn in one draw per shape and pattern) onto the whole atlas and cut to its face's
    rectangle by four clip distances, without (a pinhole's single face, a panorama's six) onto its face's own
    viewport."""
    head = f"#version 330\n#define BOX {int(box)}\n#define CLIP {int(clip)}\n#define MAX_FACES {MAX_FACES}\n"
    return head + _SKY_KEY_FILL + _VERTEX_BODY


def fragment_shader(pattern: int, lamp: bool, haze: bool, box: bool = False, clip: bool = False) -> str:
    """The shading program for primitives of one ``pattern`` code, with or without the lamp and the haze, for
    boxes (``box``: flat faces, whose normal-only terms come from the vertex program) or curved shapes.
    llvmpipe runs every branch of a shader (masked, even where the condition is a uniform), so a switch at
    run time costs as much as all of its cases: each variant is compiled with only its own code. ``clip``:
    positions relative to the eye, paired with `vertex_shader`'s."""
    head = (
        f"#version 330\n#define PATTERN {int(pattern)}\n#define LAMP {int(lamp)}\n#define HAZE {int(haze)}\n"
        f"#define BOX {int(box)}\n#define CLIP {int(clip)}\n"
    )
    return head + _SKY_KEY_FILL + _FRAGMENT_BODY


_CONTEXT: dict[int, Any] = {}
_BACKEND: dict[int, str | None] = {}  # the backend each process's context was made with
_ZERO_TO_ONE: dict[int, bool] = {}  # whether glClipControl set window depth = clip z / w (no remapping)

# OpenGL enums the raw calls below use (moderngl has no calls for them)
_GL_RENDERBUFFER = 0x8D41
_GL_DEPTH_COMPONENT32F = 0x8CAC
_GL_LOWER_LEFT = 0x8CA1
_GL_ZERO_TO_ONE = 0x935F


def moderngl_module() -> Any:
    """The moderngl module, or an error that says how to install it."""
    try:
        import moderngl
    except ImportError as exc:
        raise RuntimeError(INSTALL_HINT) from exc
    return moderngl


def context() -> Any:
    """This process's headless OpenGL context (created on first use; a forked child makes its own)."""
    pid = os.getpid()
    if pid not in _CONTEXT:
        moderngl = moderngl_module()
        errors = []
        for backend in ("egl", "osmesa", None):
            try:
                kw = {"backend": backend} if backend else {}
                ctx = moderngl.create_standalone_context(require=330, **kw)
                break
            except Exception as exc:  # noqa: BLE001 - each backend fails in its own way
                errors.append(f"{backend or 'default'}: {exc}")
        else:
            raise RuntimeError(f"no OpenGL context ({'; '.join(errors)}); {INSTALL_HINT}")
        # GL objects of dropped renderers are released by `collect` at a safe point (never in mid-draw)
        ctx.gc_mode = "context_gc"
        _CONTEXT.clear()
        _CONTEXT[pid] = ctx
        _BACKEND[pid] = backend
        clip_control = _gl_function("glClipControl", ctypes.c_uint, ctypes.c_uint)
        _ZERO_TO_ONE[pid] = clip_control is not None and (
            ctx.version_code >= 450 or "GL_ARB_clip_control" in ctx.extensions
        )
        if _ZERO_TO_ONE[pid]:
            clip_control(_GL_LOWER_LEFT, _GL_ZERO_TO_ONE)  # type: ignore[misc]
    return _CONTEXT[pid]


def one_rasteriser_thread() -> None:
    """Have this process's llvmpipe rasterise on the calling thread (``LP_NUM_THREADS=0``) unless the user
    set a thread count: for the worker processes of a pool, whose processes already use every core. llvmpipe
    reads the variable when the first context is made, so a process that has one keeps its threads. The
    frames are byte-identical either way; the CPU time per frame is lower without the hand-off to rasteriser
    threads (and the framebuffer is read back from the cache of the core that drew it): DEVELOPERS.md
    ("Renderer speed"). A lone process keeps llvmpipe's threads, which shorten its wall time."""
    if os.getpid() not in _CONTEXT:
        os.environ.setdefault("LP_NUM_THREADS", "0")


def _gl_function(name: str, *argtypes: Any) -> Any:
    """A raw OpenGL entry point of the current context (via the backend's GetProcAddress), or None."""
    import ctypes.util

    backend = _BACKEND.get(os.getpid())
    lib_name, getter = {
        "egl": ("EGL", "eglGetProcAddress"),
        "osmesa": ("OSMesa", "OSMesaGetProcAddress"),
    }.get(backend or "", ("GL", "glXGetProcAddressARB"))
    try:
        lib = ctypes.CDLL(ctypes.util.find_library(lib_name) or f"lib{lib_name}.so.1")
        get = getattr(lib, getter)
    except (OSError, AttributeError):
        return None
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    address = get(name.encode())
    return ctypes.CFUNCTYPE(None, *argtypes)(address) if address else None


def depth_mapping(near: float) -> tuple[tuple[float, float], bool]:
    """``(a, b)`` for the vertex shader's clip z = a·z + b (z: distance along the face's axis, w = z) so that
    the window depth is ``near / z`` — 1 at the near plane, 0 at infinity (drawn with depth test ``>``, cleared
    to 0) — and whether that depth is exact to float precision: with ``glClipControl`` (GL 4.5 or
    ARB_clip_control) clip z / w is the window depth itself, so a 32-bit float depth buffer holds near / z to
    one rounding; without it the window depth is (clip z / w + 1) / 2, rounded near 1 (about 1e-5 of z at 3 m)."""
    context()
    if _ZERO_TO_ONE[os.getpid()]:
        return (0.0, near), True
    return (-1.0, 2.0 * near), False


def depth_renderbuffer(ctx: Any, size: tuple[int, int]) -> tuple[Any, bool]:
    """A depth renderbuffer of ``size`` and whether it holds 32-bit floats (`depth_mapping`); moderngl makes
    24-bit ones, so its storage is redefined as ``GL_DEPTH_COMPONENT32F`` where the raw calls are found."""
    rb = ctx.depth_renderbuffer(size)
    bind = _gl_function("glBindRenderbuffer", ctypes.c_uint, ctypes.c_uint)
    storage = _gl_function("glRenderbufferStorage", ctypes.c_uint, ctypes.c_uint, ctypes.c_int, ctypes.c_int)
    if bind is None or storage is None:
        return rb, False
    bind(_GL_RENDERBUFFER, rb.glo)
    storage(_GL_RENDERBUFFER, _GL_DEPTH_COMPONENT32F, size[0], size[1])
    bind(_GL_RENDERBUFFER, 0)
    return rb, True


def collect() -> None:
    """Release the GL objects of renderers Python has dropped (call between draws, never during one)."""
    import gc

    gc.collect()
    context().gc()


def renderer_name() -> str:
    """The OpenGL renderer string (e.g. ``llvmpipe (LLVM 15.0.6, 256 bits)``)."""
    return str(context().info["GL_RENDERER"])


def grain_texture(size: int = 256, seed: int = 0) -> NDArray[np.uint8]:
    """A tileable greyscale noise texture ``(size, size)``: white noise low-passed (periodic, via FFT) at two
    scales and stretched to 0–255 — wood, plaster and fabric grain at a distance. Fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    f = np.fft.fftfreq(size)
    r = np.hypot(f[:, None], f[None, :])
    out = np.zeros((size, size))
    for cutoff, weight in ((0.03, 0.6), (0.12, 0.4)):
        spectrum = np.fft.fft2(rng.standard_normal((size, size))) * np.exp(-((r / cutoff) ** 2))
        layer = np.fft.ifft2(spectrum).real
        out += weight * (layer - layer.mean()) / layer.std()
    out = (out - out.min()) / (out.max() - out.min())
    return np.round(out * 255).astype(np.uint8)


def grain_quads(grain: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``(H, W, 4)``: each texel of the repeating ``grain`` with its right, lower and lower-right neighbours
    (what a bilinear fetch reads), for the fragment program's ``grain_at``."""
    right = np.roll(grain, -1, axis=1)
    return np.ascontiguousarray(
        np.stack([grain, right, np.roll(grain, -1, axis=0), np.roll(right, -1, axis=0)], axis=-1)
    )


def template_meshes(segments: int = 24, rings: int = 12) -> dict[int, NDArray[np.float32]]:
    """Unit meshes per shape code (box, cylinder, ellipsoid): ``(V, 6)`` rows of position and normal,
    three rows per triangle, counter-clockwise seen from outside."""
    from egoworld.sim.render.primitives import BOX, CYLINDER, ELLIPSOID

    def tri_rows(pos: NDArray, nrm: NDArray, tris: NDArray) -> NDArray[np.float32]:
        return np.concatenate([pos[tris.ravel()], nrm[tris.ravel()]], axis=1).astype(np.float32)

    # box: 6 faces × 2 triangles, flat normals
    rows = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            quad = []
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis], p[u], p[v] = sign, a, b
                quad.append(p)
            q = np.array(quad)
            n = np.zeros(3)
            n[axis] = sign
            order = [0, 1, 2, 0, 2, 3] if sign > 0 else [0, 2, 1, 0, 3, 2]
            rows.append(np.concatenate([q[order], np.tile(n, (6, 1))], axis=1))
    box = np.concatenate(rows).astype(np.float32)

    ang = np.linspace(0, 2 * np.pi, segments + 1)[:-1]
    ring = np.stack([np.cos(ang), np.sin(ang), np.zeros(segments)], -1)
    side_pos = np.concatenate([ring + (0, 0, -1), ring + (0, 0, 1)])
    side_n = np.concatenate([ring, ring])
    k = np.arange(segments)
    k1 = (k + 1) % segments
    side_t = np.concatenate(
        [np.stack([k, k1, k1 + segments], -1), np.stack([k, k1 + segments, k + segments], -1)]
    )
    cyl = [tri_rows(side_pos, side_n, side_t)]
    for z, flip in ((1.0, False), (-1.0, True)):
        cap = np.concatenate([[[0.0, 0.0, z]], ring + (0, 0, z)])
        t = np.stack([np.zeros(segments, int), k + 1, k1 + 1], -1)
        if flip:
            t = t[:, [0, 2, 1]]
        cyl.append(tri_rows(cap, np.tile([0.0, 0.0, z], (len(cap), 1)), t))
    cylinder = np.concatenate(cyl)

    lat = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    lon = np.linspace(0, 2 * np.pi, segments + 1)[:-1]
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    sphere = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], -1).reshape(-1, 3)
    idx = np.arange((rings + 1) * segments).reshape(rings + 1, segments)
    a, b = idx[:-1], np.roll(idx[:-1], -1, axis=1)
    c, d = idx[1:], np.roll(idx[1:], -1, axis=1)
    st = np.concatenate([np.stack([a, b, d], -1).reshape(-1, 3), np.stack([a, d, c], -1).reshape(-1, 3)])
    # the bands at the poles: one triangle of each quad has two corners at the pole (no area, never drawn)
    p = sphere[st]
    st = st[np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1) > 1e-9]
    ellipsoid = tri_rows(sphere, sphere, st)
    return {BOX: box, CYLINDER: cylinder, ELLIPSOID: ellipsoid}
