"""The rasteriser: objects land on the pixels the camera models predict; depth is range; ids are exact."""

from __future__ import annotations

import numpy as np
import pytest

from egoworld.geometry.cameras import EquirectCamera, PinholeCamera
from egoworld.geometry.transforms import apply_transform, look_at, world_to_camera
from egoworld.geometry.visibility import OCCLUDED, VISIBLE, visibility_codes
from egoworld.sim.render.backgrounds import RoomBackground, SkyBackground
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.world_cameras import aria_fisheye, pinhole

POSE = look_at((1.0, -2.0, 1.6), (1.5, 1.0, 0.9))  # a tilted camera somewhere in the world
ROOM = RoomBackground(
    (-10.0, -10.0, 0.0), (10.0, 10.0, 5.0), Look((90, 90, 90)), Look((120, 120, 120)), Look((150, 150, 150))
)
CAMERAS = {
    "pinhole": PinholeCamera.from_fov(160, 120, 80.0),
    "fisheye": aria_fisheye(192),
    "equirect": EquirectCamera(width=512, height=256),
}
# points in the camera frame, well inside each model's field of view
POINTS = {
    "pinhole": (0.35, -0.2, 2.0),
    "fisheye": (1.1, 0.6, 1.4),  # about 44° off axis
    "equirect": (-1.5, 0.3, -1.2),  # behind, to the left
}


@pytest.mark.parametrize("model", sorted(CAMERAS))
def test_object_at_known_point_lands_where_project_predicts(model: str) -> None:
    camera = CAMERAS[model]
    p_cam = np.asarray(POINTS[model])
    p_world = apply_transform(POSE, p_cam)
    radius = 0.08
    prims = (
        PartsBuilder()
        .add("ellipsoid", p_world, (radius, radius, radius), Look((250, 20, 20)), inst=7)
        .build()
    )
    frame = Renderer(camera).render(prims, POSE, ROOM)
    uv, ok = camera.project(p_cam)
    assert ok
    col, row = int(np.rint(uv[0])), int(np.rint(uv[1]))
    assert frame.ids[row, col] == 7
    mask = frame.ids == 7
    assert mask.sum() > 10
    rows, cols = np.nonzero(mask)
    centroid = np.array([cols.mean(), rows.mean()])
    print(f"{model}: project {uv.round(2)}, instance centroid {centroid.round(2)}, {mask.sum()} px")
    assert np.linalg.norm(centroid - uv) < 1.0
    # depth is range: the sphere's near surface along the centre ray
    assert frame.depth[row, col] == pytest.approx(np.linalg.norm(p_cam) - radius, abs=0.01)
    # the red of the object shows on its pixels
    assert frame.rgb[row, col, 0] > 2 * frame.rgb[row, col, 1]


def test_fisheye_outside_the_circle_is_black_and_empty() -> None:
    camera = aria_fisheye(128)
    frame = Renderer(camera).render(PartsBuilder().build(), POSE, ROOM)
    outside = ~camera.in_image(np.stack(np.meshgrid(np.arange(128.0), np.arange(128.0)), -1))
    assert outside[0, 0] and not outside[64, 64]
    assert np.all(frame.rgb[outside] == 0) and np.all(frame.ids[outside] == 0)
    assert np.all(np.isnan(frame.depth[outside])) and np.all(np.isfinite(frame.depth[~outside]))


@pytest.mark.parametrize("shape", ["box", "cylinder", "ellipsoid"])
def test_depth_of_a_face_is_the_range_to_it(shape: str) -> None:
    """A big primitive 3 m ahead: every pixel on it has range = plane distance / cos(angle to axis)."""
    camera = PinholeCamera.from_fov(64, 64, 40.0)
    pose = look_at((0.0, 0.0, 1.0), (0.0, 5.0, 1.0))  # looking along +y
    half = (4.0, 0.5, 4.0) if shape == "box" else (4.0, 4.0, 0.5)
    rot = (
        np.eye(3) if shape == "box" else np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])
    )  # cylinder axis along y
    if shape == "ellipsoid":
        half, rot = (3.0, 0.5, 3.0), np.eye(3)
    prims = PartsBuilder().add(shape, (0.0, 3.5, 1.0), half, Look((200, 200, 200)), inst=1, rot=rot).build()
    frame = Renderer(camera).render(prims, pose, SkyBackground(Look((0, 0, 0)), ground_z=-100.0))
    rays = camera.unproject(np.stack(np.meshgrid(np.arange(64.0), np.arange(64.0)), -1))
    centre = frame.depth[32, 32]
    assert centre == pytest.approx(3.0, abs=1e-3)
    if shape != "ellipsoid":  # flat face: range = 3 / cos(angle)
        np.testing.assert_allclose(frame.depth, 3.0 / rays[..., 2], rtol=1e-4)
    assert np.all(frame.ids == 1)


def test_depth_buffer_agrees_with_geometry_occlusion_test() -> None:
    """A point behind a wall is occluded by `geometry.visibility`, one in front is visible."""
    camera = pinhole(96, 72, 70.0)
    pose = look_at((0.0, 0.0, 1.5), (0.0, 4.0, 1.5))
    wall = PartsBuilder().add("box", (0.0, 3.0, 1.5), (0.6, 0.05, 0.6), Look((100, 100, 200)), inst=3).build()
    frame = Renderer(camera).render(wall, pose, SkyBackground(Look((0, 0, 0))))
    pts = world_to_camera(np.array([[0.0, 4.0, 1.5], [0.0, 2.0, 1.5]]), pose)
    codes = visibility_codes(camera, pts, frame.depth, depth_kind="range")
    assert codes.tolist() == [OCCLUDED, VISIBLE]


def test_nearest_surface_wins_and_ties_are_deterministic() -> None:
    camera = pinhole(64, 48, 60.0)
    pose = look_at((0.0, 0.0, 1.0), (0.0, 5.0, 1.0))
    b = PartsBuilder()
    b.add("box", (0.0, 4.0, 1.0), (1.0, 0.1, 1.0), Look((0, 0, 255)), inst=1)
    b.add("box", (0.0, 2.0, 1.0), (0.2, 0.1, 0.2), Look((255, 0, 0)), inst=2)
    r = Renderer(camera)
    f1 = r.render(b.build(), pose, SkyBackground(Look((0, 0, 0))))
    f2 = r.render(b.build(), pose, SkyBackground(Look((0, 0, 0))))
    assert f1.ids[24, 32] == 2 and f1.ids[12, 32] == 1
    np.testing.assert_array_equal(f1.rgb, f2.rgb)
    np.testing.assert_array_equal(f1.ids, f2.ids)


@pytest.mark.parametrize(
    "pattern",
    ["solid", "hbands", "vstripes", "checker", "dots", "label", "rings", "windows", "frame", "speckle"],
)
def test_each_pattern_variant_draws_its_own_pattern(pattern: str) -> None:
    """Every pattern code has its own shader variant: where colour2 shows on a box face agrees with the numpy
    `pattern_mask` at the surface point of each pixel's ray."""
    from egoworld.sim.render.looks import PATTERN_CODE, pattern_mask

    camera = pinhole(96, 96, 60.0)
    pose = look_at((0.0, -2.0, 1.0), (0.0, 0.0, 1.0))
    half = np.array([0.5, 0.2, 0.5])
    look = Look((250, 10, 10), (10, 10, 250), pattern, 0.13)
    prims = PartsBuilder().add("box", (0.0, 0.0, 1.0), half, look, inst=3).build()
    frame = Renderer(camera).render(prims, pose, SkyBackground(Look((0, 0, 0))))
    on_box = frame.ids == 3
    assert on_box.sum() > 2000
    rows, cols = np.nonzero(on_box)
    rays = camera.unproject(np.stack([cols, rows], -1).astype(float))
    world = pose[:3, 3] + (rays @ pose[:3, :3].T) * ((-0.2 - pose[1, 3]) / (rays @ pose[:3, :3].T)[:, 1:2])
    local = world - (0.0, 0.0, 1.0)  # the box is unrotated
    n = len(local)
    want = pattern_mask(np.full(n, PATTERN_CODE[pattern]), np.full(n, 0.13), local, np.tile(half, (n, 1)))
    got = frame.rgb[rows, cols, 2].astype(int) > frame.rgb[rows, cols, 0].astype(int)
    print(f"{pattern}: colour2 on {got.mean():.3f} of the face, agreement {np.mean(got == want):.4f}")
    assert np.mean(got == want) > 0.97
    assert got.any() == want.any()


def test_a_scene_with_nothing_in_view_renders_the_background() -> None:
    """No primitive reaches any face (an empty scene under a sky, its ground far below): no draw at all, every
    pixel the background's."""
    for camera in (aria_fisheye(96), pinhole(64, 48, 60.0)):
        sky = SkyBackground(Look((0, 0, 0)), ground_z=-1e4)
        frame = Renderer(camera).render(PartsBuilder().build(), POSE, sky)
        seen = ~np.isnan(frame.depth)
        assert np.all(frame.ids == 0) and seen.sum() > 0 and np.all(frame.depth[seen] > 1e3)
