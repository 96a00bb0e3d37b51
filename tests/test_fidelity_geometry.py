"""Fidelity fixes against the official Beyond3D code: the full FISHEYE624 projection (tangential and
thin-prism terms) and the official option counts of counter-area questions."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from egoworld.benchmarks.beyond3d.build.fixture_labels import counter_option_count, fixture_options
from egoworld.geometry.cameras import FisheyeCamera
from egoworld.world.hd_epic.aria import load_rgb_camera

CALIB = "hd-epic/intermediate-data/P01/P01-20240203-184045/device_calibration.json"


def _aria_reference(params: list[float], point: np.ndarray) -> tuple[float, float]:
    """FISHEYE624 as projectaria_tools writes it, scalar and straight from its definition."""
    f, cx, cy = params[:3]
    k, (p0, p1), s = params[3:9], params[9:11], params[11:15]
    a, b = point[0] / point[2], point[1] / point[2]
    r = math.hypot(a, b)
    th = math.atan(r)
    th_d = th + sum(k[i] * th ** (2 * i + 3) for i in range(6))
    u, v = th_d / r * a, th_d / r * b
    r2 = u * u + v * v
    t = 2 * (u * p0 + v * p1)
    u, v = u + t * u + r2 * p0 + s[0] * r2 + s[1] * r2 * r2, v + t * v + r2 * p1 + s[2] * r2 + s[3] * r2 * r2
    return f * u + cx, f * v + cy


def test_full_fisheye624_matches_the_aria_definition(data_dir) -> None:
    import json

    path = data_dir / CALIB
    params = json.loads(path.read_text())["cameras"]["camera-rgb"]["projection_params"]
    cam, _ = load_rgb_camera(path)
    assert cam.tangential == tuple(params[9:11]) and cam.thin_prism == tuple(params[11:15])
    rng = np.random.default_rng(0)
    theta = rng.uniform(0.01, 0.95, 400)
    phi = rng.uniform(0, 2 * np.pi, 400)
    pts = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], -1) * 1.7
    uv, ok = cam.project(pts)
    assert ok.all()
    want = np.array([_aria_reference(params, p) for p in pts])
    np.testing.assert_allclose(uv, want, atol=1e-9)
    # the dropped terms matter: the radial-only model is up to ~1–2 px off
    radial_only = cam.model_copy(update={"tangential": (0.0, 0.0), "thin_prism": (0.0, 0.0, 0.0, 0.0)})
    gap = np.abs(radial_only.project(pts)[0] - uv).max()
    assert 0.5 < gap < 3.0
    # unproject inverts the full model
    rays = cam.unproject(uv)
    np.testing.assert_allclose(rays, pts / np.linalg.norm(pts, axis=-1, keepdims=True), atol=1e-9)
    # scaling keeps the normalised terms
    small = cam.scaled(448 / 1408)
    np.testing.assert_allclose(small.project(pts)[0], (uv + 0.5) * 448 / 1408 - 0.5, atol=1e-9)


def test_equidistant_camera_is_unchanged() -> None:
    cam = FisheyeCamera.equidistant(448, 180.0)
    uv, ok = cam.project(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]))
    assert ok.all() and uv[0] == pytest.approx([223.5, 223.5])
    assert uv[1][0] == pytest.approx(223.5 + 224 * (math.pi / 4) / (math.pi / 2))


@pytest.mark.parametrize(("areas", "options"), [(2, 2), (3, 3), (4, 3), (5, 5), (8, 5)])
def test_counter_area_option_counts_are_the_officials(areas: int, options: int) -> None:
    assert counter_option_count(areas) == options


def test_built_counter_questions_have_three_or_five_options() -> None:
    from egoworld.benchmarks.beyond3d.build.fixture_labels import area_name, counter_area_labels
    from egoworld.sim.kitchen.synth import KitchenConfig, build_kitchen_episode

    assert area_name("counter area next to the sink (second)") == "counter area next to the sink"
    seen = set()
    for k in range(10):
        episode, _ = build_kitchen_episode(f"K{k}", k, KitchenConfig(minutes=1.0, fps=1.0, size=64))
        fixtures = episode.fixtures
        areas = {area_name(v) for v in counter_area_labels(fixtures).values()}
        counters = [f for f in fixtures if f.type == "counter"]
        for gold in counters:
            variant, texts, keys, gi = fixture_options(fixtures, gold, random.Random(k))
            assert variant == "counter" and keys[gi] == gold.id and len(set(texts)) == len(texts)
            assert len(texts) == counter_option_count(len(areas)) and len(texts) in (3, 5)
            seen.add(len(texts))
    assert seen == {3, 5}  # kitchens with 4 areas ask 3-way, larger ones 5-way, as the official release
