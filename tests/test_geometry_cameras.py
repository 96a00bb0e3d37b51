"""Camera models: known pixels, project/unproject round trips, valid circle, scaling, JSON round trip,
and a ray-cast sphere whose image centroid sits where `project` puts its centre (all three models)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from egoworld.geometry.cameras import CameraModel, EquirectCamera, FisheyeCamera, PinholeCamera

# Project Aria camera-rgb of HD-EPIC P01-20240203-184045 (device_calibration.json): f, cx, cy, k0..k5
ARIA = FisheyeCamera(
    width=1408, height=1408, fx=611.0571199969495, fy=611.0571199969495, cx=697.4040013522815,
    cy=708.791446067084,
    radial=(0.3769357382851658, -0.2603815942422347, -0.5120778982977174, 2.1118242962778,
            -2.371930678787967, 0.8287633834834315),
    valid_radius=707.5, max_angle_deg=math.degrees(1.0),
)  # fmt: skip
PIN = PinholeCamera.from_fov(640, 480, 90.0)
FISH = FisheyeCamera.equidistant(448, 180.0)
EQ = EquirectCamera(width=800, height=400)


def _random_dirs(n: int, max_angle_deg: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = np.radians(rng.uniform(0, max_angle_deg, n))
    phi = rng.uniform(0, 2 * np.pi, n)
    return np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], -1)


def test_known_pixels() -> None:
    uv, ok = PIN.project([[0, 0, 2.0], [1.0, 0, 1.0], [0, -1.0, 1.0]])
    assert ok.all()
    np.testing.assert_allclose(uv[0], [319.5, 239.5])
    np.testing.assert_allclose(uv[1], [319.5 + 320.0, 239.5])  # 45° right = the image's right edge
    np.testing.assert_allclose(uv[2], [319.5, 239.5 - 320.0])  # y up is v up
    # equidistant fisheye: r = f·θ, 90° reaches the circle's edge
    uv, ok = FISH.project([[1.0, 0, 1.0], [0, 1.0, 0.0]])
    np.testing.assert_allclose(uv[0], [223.5 + FISH.fx * math.pi / 4, 223.5])
    np.testing.assert_allclose(uv[1], [223.5, 223.5 + 224.0])
    # equirect: ahead is the centre, right is three quarters across, straight up is the top edge
    uv, ok = EQ.project([[0, 0, 1.0], [1.0, 0, 0], [0, -1.0, 0], [-1.0, 0, 0]])
    np.testing.assert_allclose(uv[:3], [[399.5, 199.5], [599.5, 199.5], [399.5, -0.5]], atol=1e-9)
    assert uv[3, 0] == pytest.approx(199.5)


def test_behind_and_outside() -> None:
    _, ok = PIN.project([[0, 0, -1.0], [0, 0, 0.0]])
    assert not ok.any()
    assert not PIN.visible([[5.0, 0, 1.0]]).any()  # in front but outside the 90° image
    _, ok = FISH.project([[0, 0, -1.0], [1.0, 0, -0.01]])
    assert not ok.any()  # beyond the 90° half angle of a 180° lens
    # corner pixels of a circular fisheye lie outside its valid circle
    assert not FISH.in_image([[0.0, 0.0]]).any()
    assert FISH.in_image([[223.5, 0.0]]).all()
    _, ok = EQ.project([[0, 0, -1.0]])
    assert ok.all()  # a panorama sees behind too


@pytest.mark.parametrize(
    ("camera", "max_deg"),
    [(PIN, 40.0), (FISH, 89.0), (ARIA, 56.0), (EQ, 179.0)],
    ids=["pinhole", "fisheye", "aria", "equirect"],
)
def test_round_trip(camera: PinholeCamera | FisheyeCamera | EquirectCamera, max_deg: float) -> None:
    dirs = _random_dirs(500, max_deg)
    dist = np.linspace(0.3, 7.0, 500)
    pts = dirs * dist[:, None]
    uv, ok = camera.project(pts)
    assert ok.all()
    np.testing.assert_allclose(camera.unproject(uv), dirs, atol=1e-9)
    np.testing.assert_allclose(camera.unproject(uv, dist), pts, atol=1e-8)
    uv2, _ = camera.project(camera.unproject(uv))
    np.testing.assert_allclose(uv2, uv, atol=1e-7)


def test_aria_radial_terms_matter_and_circle_is_56_degrees() -> None:
    plain = ARIA.model_copy(update={"radial": ()})
    p = _random_dirs(1, 0)[0] * 0 + np.array([math.sin(math.radians(50)), 0, math.cos(math.radians(50))])
    u_aria = ARIA.project(p)[0][0]
    u_plain = plain.project(p)[0][0]
    assert abs(u_aria - u_plain) > 50  # distortion moves a 50° ray by tens of pixels
    # the valid circle (707.5 px) ends between 55° and 57° from the axis
    for deg, inside in ((55.0, True), (57.0, False)):
        q = [math.sin(math.radians(deg)), 0, math.cos(math.radians(deg))]
        assert bool(ARIA.visible([q])[0]) is inside, deg


def test_scaled_camera_matches_resized_image() -> None:
    pts = _random_dirs(50, 40.0, seed=3) * 2.0
    for cam in (PIN, FISH, ARIA):
        small = cam.scaled(0.25)
        uv = cam.project(pts)[0]
        np.testing.assert_allclose(small.project(pts)[0], (uv + 0.5) * 0.25 - 0.5, atol=1e-9)
    assert ARIA.scaled(448 / 1408).width == 448


def test_json_round_trip_and_validation() -> None:
    adapter = TypeAdapter(CameraModel)
    for cam in (PIN, FISH, ARIA, EQ):
        data = cam.model_dump(mode="json")
        assert adapter.validate_python(data) == cam
    with pytest.raises(ValidationError, match="kind"):
        adapter.validate_python({"kind": "orthographic", "width": 10, "height": 10})
    with pytest.raises(ValidationError, match="twice as wide"):
        EquirectCamera(width=400, height=400)
    with pytest.raises(ValidationError, match="extra"):
        PinholeCamera(width=4, height=4, fx=1, fy=1, cx=1, cy=1, skew=0.1)


def _ray_cast_sphere(
    camera: PinholeCamera | FisheyeCamera | EquirectCamera, center: np.ndarray, radius: float
) -> np.ndarray:
    """Pixels whose ray hits the sphere (the simplest renderer of an object)."""
    jj, ii = np.meshgrid(np.arange(camera.width, dtype=float), np.arange(camera.height, dtype=float))
    rays = camera.unproject(np.stack([jj, ii], -1))
    along = rays @ center
    miss2 = center @ center - along**2
    hit = (along > 0) & (miss2 <= radius**2)
    return np.stack([jj[hit], ii[hit]], -1)


@pytest.mark.parametrize("camera", [PIN, FISH, EQ], ids=["pinhole", "fisheye", "equirect"])
def test_rendered_object_appears_where_project_says(
    camera: PinholeCamera | FisheyeCamera | EquirectCamera,
) -> None:
    for center in (np.array([0.4, -0.2, 2.0]), np.array([-0.3, 0.25, 1.5])):
        pix = _ray_cast_sphere(camera, center, 0.05)
        assert len(pix) > 12
        predicted = camera.project(center)[0]
        # a small sphere's image is centred on the projected centre to well under a pixel
        assert np.linalg.norm(pix.mean(axis=0) - predicted) < 0.6
