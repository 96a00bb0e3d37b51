"""Frustum, behind-camera and depth-buffer occlusion tests on a ray-cast wall."""

from __future__ import annotations

import numpy as np
import pytest

from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.geometry.visibility import (
    OCCLUDED,
    OUT_OF_VIEW,
    VISIBLE,
    behind_camera,
    in_view,
    occluded,
    sample_depth,
    visibility_codes,
)


def _wall_depth(
    camera: PinholeCamera | FisheyeCamera | EquirectCamera, z_wall: float, kind: str
) -> np.ndarray:
    """Depth map of an infinite wall at z = z_wall (inf where rays miss it)."""
    jj, ii = np.meshgrid(np.arange(camera.width, dtype=float), np.arange(camera.height, dtype=float))
    rays = camera.unproject(np.stack([jj, ii], -1))
    with np.errstate(divide="ignore"):
        rng = np.where(rays[..., 2] > 1e-9, z_wall / rays[..., 2], np.inf)
    return rng if kind == "range" else np.where(np.isfinite(rng), z_wall, np.inf)


@pytest.mark.parametrize(
    "camera",
    [
        PinholeCamera.from_fov(160, 120, 90.0),
        FisheyeCamera.equidistant(160, 180.0),
        EquirectCamera(width=320, height=160),
    ],
    ids=["pinhole", "fisheye", "equirect"],
)
def test_wall_occludes_what_is_behind_it(camera: PinholeCamera | FisheyeCamera | EquirectCamera) -> None:
    depth = _wall_depth(camera, 2.0, "range")
    pts = np.array([[0.3, 0.2, 1.5], [0.3, 0.2, 3.0], [0.3, 0.2, 2.02], [0.0, 0.0, -3.0]])
    codes = visibility_codes(camera, pts, depth)
    behind_wall = OCCLUDED
    expected_last = (
        OUT_OF_VIEW if not isinstance(camera, EquirectCamera) else VISIBLE
    )  # the wall is ahead only
    assert codes.tolist() == [VISIBLE, behind_wall, VISIBLE, expected_last]  # 2 cm behind is within tolerance
    assert behind_camera(pts).tolist() == [False, False, False, True]


def test_z_depth_buffer_and_out_of_view() -> None:
    cam = PinholeCamera.from_fov(160, 120, 60.0)
    depth = _wall_depth(cam, 2.0, "z")
    pts = np.array([[0.5, 0.3, 3.0], [0.5, 0.3, 1.0], [10.0, 0.0, 3.0]])
    assert occluded(cam, pts, depth, depth_kind="z").tolist() == [True, False, False]
    assert in_view(cam, pts).tolist() == [True, True, False]
    # a range test against a z-buffer would wrongly call the near point occluded off-axis
    far_off_axis = np.array([[1.0, 0.0, 1.98]])  # just in front of the wall, 27° off axis
    assert not occluded(cam, far_off_axis, depth, depth_kind="z")[0]
    assert occluded(cam, far_off_axis, depth, depth_kind="range")[0]


def test_sample_depth_and_bad_shape() -> None:
    d = np.arange(12.0).reshape(3, 4)
    assert sample_depth(d, [[1.2, 2.4], [3.0, 0.0], [np.nan, 0], [4.0, 0.0]]).tolist()[:2] == [9.0, 3.0]
    assert np.isnan(sample_depth(d, [[np.nan, 0], [4.0, 0.0]])).all()
    cam = PinholeCamera.from_fov(4, 3, 60.0)
    with pytest.raises(ValueError, match="depth map"):
        occluded(cam, [[0, 0, 1.0]], np.zeros((4, 4)))
    # missing depth (inf / 0 / nan) never occludes
    for value in (np.inf, 0.0, np.nan):
        assert not occluded(cam, [[0, 0, 1.0]], np.full((3, 4), value))[0]
