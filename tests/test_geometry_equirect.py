"""Panorama → perspective against py360convert's reference image, plus whole-video sampling.

Reference: ``../shared/data/py360convert/example_e2p.png`` = ``e2p(example_input.png, fov 60×60,
yaw 120, pitch 23, 300×300, bilinear)``. Tolerance: mean absolute difference over the RGB channels of
at most 1.0 grey level (measured 0.40; the views differ by py360convert spanning the FOV between the
centres of the edge pixels, ours between the outer pixel edges — a 0.3 % scale difference).
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from egoworld.geometry.cameras import EquirectCamera
from egoworld.geometry.equirect import (
    FOUR_VIEWS,
    equirect_to_perspective,
    perspective_sampler,
    view_camera,
    view_rotation,
)

TOLERANCE_MAD = 1.0


@pytest.fixture(scope="module")
def pano(data_dir) -> np.ndarray:
    return np.asarray(Image.open(data_dir / "py360convert" / "example_input.png"))


def _mad(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a[..., :3].astype(np.int16) - b[..., :3].astype(np.int16)).mean())


def test_matches_py360convert_reference(pano: np.ndarray, data_dir) -> None:
    ref = np.asarray(Image.open(data_dir / "py360convert" / "example_e2p.png"))
    assert pano.shape == (400, 800, 4) and ref.shape == (300, 300, 4)
    out = equirect_to_perspective(pano, yaw_deg=120, pitch_deg=23, fov_deg=(60, 60), out_hw=(300, 300))
    assert out.dtype == np.uint8 and out.shape == ref.shape
    mad = _mad(out, ref)
    print(
        f"equirect→perspective vs py360convert: mean |Δ| = {mad:.3f} grey levels (tolerance {TOLERANCE_MAD})"
    )
    assert mad <= TOLERANCE_MAD
    # the comparison discriminates: a wrong sign of yaw or pitch is far off
    for yaw, pitch in ((-120, 23), (120, -23), (0, 23)):
        wrong = equirect_to_perspective(pano, yaw_deg=yaw, pitch_deg=pitch, fov_deg=60, out_hw=(300, 300))
        assert _mad(wrong, ref) > 10


def test_whole_video_equals_frame_by_frame(pano: np.ndarray) -> None:
    frames = np.stack([pano, np.roll(pano, 100, axis=1), pano[::-1].copy()])
    sampler = perspective_sampler((400, 800), (64, 96), yaw_deg=-90, pitch_deg=10, fov_deg=(90, 60))
    video = sampler(frames)
    assert video.shape == (3, 64, 96, 4)
    for k in range(3):
        np.testing.assert_array_equal(video[k], sampler(frames[k]))
    gray = sampler(pano[..., 0])
    np.testing.assert_array_equal(gray, video[0, ..., 0])


def test_view_pixels_point_where_the_panorama_camera_says() -> None:
    # panorama whose value is its column: the centre of each view samples the column of its yaw
    h, w = 180, 360
    pano = np.tile(np.arange(w, dtype=np.float32), (h, 1))
    eq = EquirectCamera(width=w, height=h)
    for name, yaw in FOUR_VIEWS.items():
        view = equirect_to_perspective(pano, yaw_deg=yaw, fov_deg=90, out_hw=(33, 33), mode="nearest")
        ray = view_rotation(yaw) @ view_camera((33, 33), 90).unproject([16.0, 16.0])
        expected_col = np.rint(eq.project(ray)[0][0]) % w
        assert view[16, 16] == expected_col, name
    # the right view's centre (yaw +90°) samples three quarters across the panorama: u = 0.75·360 − 0.5
    right = equirect_to_perspective(pano, yaw_deg=90, fov_deg=90, out_hw=(33, 33))
    assert right[16, 16] == pytest.approx(269.5, abs=1e-3)


def test_views_across_the_poles_are_defined(pano: np.ndarray) -> None:
    up = equirect_to_perspective(pano, yaw_deg=0, pitch_deg=90, fov_deg=100, out_hw=(50, 50))
    down = equirect_to_perspective(pano, yaw_deg=33, pitch_deg=-89, fov_deg=120, out_hw=(50, 50))
    assert up.shape == down.shape == (50, 50, 4)
    with pytest.raises(ValueError, match="sampler was built"):
        perspective_sampler((10, 20), (4, 4), yaw_deg=0)(pano)
