"""The pinhole faces the rasteriser draws for a camera, laid out side by side in one framebuffer (an atlas).

* a pinhole camera is its own single face;
* a fisheye whose field of view fits in one wide pinhole (half-angle ≤ ``SINGLE_FACE_MAX_DEG``) gets a
  *fisheye layout*: a centre face for the rays within ``CENTRE_DEG`` of the axis (a square in the tangent
  plane) and up to four side faces tilted ``SIDE_TILT_DEG`` to the right, left, down and up for the ring
  around it. Each face's focal length is the smallest at which one fisheye pixel step never spans more
  than one face pixel over the rays it covers, and each face is only as large as the bounding box of
  those rays — about 0.6 of the pixels of one wide face (which oversamples a fisheye's rim: a pinhole's
  density grows as 1/cos² off axis, a fisheye's barely);
* anything wider (an equirectangular panorama, a 180° fisheye) uses the six faces of a cube.

The atlas's ``lookup`` maps every output pixel to the face pixel nearest to where its own ray lands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.geometry.transforms import rotation_about

Camera = PinholeCamera | FisheyeCamera | EquirectCamera
SINGLE_FACE_MAX_DEG = 75.0
CENTRE_DEG = 40.0
SIDE_TILT_DEG = 45.0
# target_from_face rotations of the cube's faces: front, right, back, left, up, down
CUBE = (
    np.eye(3),
    rotation_about("y", 90.0),
    rotation_about("y", 180.0),
    rotation_about("y", -90.0),
    rotation_about("x", 90.0),
    rotation_about("x", -90.0),
)


@dataclass(frozen=True)
class Face:
    """One pinhole view: ``rotation`` (target_from_face), its ``camera`` and its corner in the atlas."""

    rotation: NDArray[np.float64]
    camera: PinholeCamera
    x0: int
    y0: int


@dataclass(frozen=True)
class Atlas:
    """The faces of one camera, the framebuffer size ``(width, height)`` that holds them all, and ``lookup``:
    per valid output pixel, the atlas pixel (row-major index) nearest to where its own ray lands on the face
    that covers it. ``spare`` is an atlas pixel no face covers (never drawn)."""

    faces: tuple[Face, ...]
    width: int
    height: int
    lookup: NDArray[np.int64]

    @property
    def spare(self) -> int:
        return self.width - 1


def _pack(faces: list[tuple[NDArray[np.float64], PinholeCamera]], k: NDArray, rays: NDArray) -> Atlas:
    """Faces packed on shelves (next fit: a new shelf when the next face would pass the width of the faces
    that are taller than wide, side by side) with one spare column on the right, and each ray ``rays[i]``
    looked up on face ``k[i]``."""
    limit = max(sum(c.width for _, c in faces if c.height >= c.width), max(c.width for _, c in faces))
    placed, x, y, shelf_h, width = [], 0, 0, 0, 0
    for rotation, cam in faces:
        if x + cam.width > limit:
            x, y, shelf_h = 0, y + shelf_h, 0
        placed.append(Face(rotation, cam, x, y))
        x += cam.width
        shelf_h = max(shelf_h, cam.height)
        width = max(width, x)
    width += 1
    lut = np.zeros(len(rays), np.int64)
    for f, face in enumerate(placed):
        sel = np.flatnonzero(k == f)
        fuv, _ = face.camera.project(rays[sel] @ face.rotation)
        col = np.clip(np.rint(fuv[:, 0]), 0, face.camera.width - 1).astype(np.int64)
        row = np.clip(np.rint(fuv[:, 1]), 0, face.camera.height - 1).astype(np.int64)
        lut[sel] = (face.y0 + row) * width + face.x0 + col
    return Atlas(tuple(placed), width, y + shelf_h, lut)


def _fisheye_atlas(camera: FisheyeCamera, uv: NDArray[np.float64], rays: NDArray[np.float64]) -> Atlas:
    """The centre face and the side faces of the fisheye layout over the valid pixels ``uv`` (rays ``rays``)."""
    sides = [
        rotation_about("y", SIDE_TILT_DEG),
        rotation_about("y", -SIDE_TILT_DEG),
        rotation_about("x", SIDE_TILT_DEG),
        rotation_about("x", -SIDE_TILT_DEG),
    ]
    t = math.tan(math.radians(CENTRE_DEG))
    z = np.maximum(rays[:, 2], 1e-9)
    centre = (rays[:, 2] > 0) & (np.abs(rays[:, 0]) <= t * z) & (np.abs(rays[:, 1]) <= t * z)
    k_all = np.where(centre, 0, 1 + np.argmax(rays @ np.stack([r[:, 2] for r in sides]).T, axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        step_u = camera.unproject(uv + (1.0, 0.0))
        step_v = camera.unproject(uv + (0.0, 1.0))
    faces = []
    k = np.full(len(rays), -1, np.int64)
    for f, rotation in enumerate([np.eye(3), *sides]):
        sel = np.flatnonzero(k_all == f)
        if not len(sel):
            continue

        def plane(r: NDArray[np.float64], rot: NDArray[np.float64] = rotation) -> NDArray[np.float64]:
            q = r @ rot
            return q[:, :2] / q[:, 2:3]

        p0 = plane(rays[sel])
        jac = np.stack([plane(step_u[sel]) - p0, plane(step_v[sel]) - p0], axis=-1)
        ok = np.all(np.isfinite(jac), axis=(1, 2))
        sigma = np.linalg.svd(jac[ok], compute_uv=False)[:, 1]
        focal = 1.0 / float(sigma.min())  # one fisheye step covers ≥ 1 face pixel everywhere on the face
        lo, hi = p0.min(axis=0) * focal, p0.max(axis=0) * focal
        width, height = (int(math.ceil(v)) + 3 for v in hi - lo)
        # principal point: the bounding box starts one pixel in (nearest-pixel rounding stays inside)
        cam = PinholeCamera(width=width, height=height, fx=focal, fy=focal, cx=1.0 - lo[0], cy=1.0 - lo[1])
        k[sel] = len(faces)
        faces.append((rotation, cam))
    return _pack(faces, k, rays)


def face_atlas(camera: Camera, uv: NDArray[np.float64], rays: NDArray[np.float64]) -> Atlas:
    """The faces that cover ``camera``'s valid pixels ``uv`` ``(N, 2)`` whose rays are ``rays`` ``(N, 3)``."""
    if isinstance(camera, PinholeCamera):
        return _pack([(np.eye(3), camera)], np.zeros(len(rays), np.int64), rays)
    theta = float(np.degrees(np.arccos(np.clip(rays[:, 2], -1, 1))).max()) if len(rays) else 1.0
    if isinstance(camera, FisheyeCamera) and theta <= SINGLE_FACE_MAX_DEG:
        return _fisheye_atlas(camera, uv, rays)
    if isinstance(camera, EquirectCamera):
        density = camera.width / (2 * math.pi)
    else:
        density = max(camera.fx, camera.fy)  # type: ignore[union-attr]
    size = int(math.ceil(2 * density)) + 1
    face = PinholeCamera.from_fov(size, size, 90.0)
    k = np.argmax(rays @ np.stack([r[:, 2] for r in CUBE]).T, axis=1)  # the face whose axis is nearest
    return _pack([(r, face) for r in CUBE], k, rays)
