"""Rigid transforms, quaternions, interpolation and look_at."""

from __future__ import annotations

import numpy as np
import pytest

from egoworld.geometry.transforms import (
    apply_transform,
    camera_to_world,
    interpolate_transforms,
    invert_rigid,
    is_rigid,
    look_at,
    make_transform,
    matrix_to_quat,
    quat_to_matrix,
    rotation_about,
    slerp,
    world_to_camera,
)


def _random_rotations(n: int, seed: int = 0) -> np.ndarray:
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return quat_to_matrix(q)


def test_rotation_about_is_right_handed() -> None:
    np.testing.assert_allclose(rotation_about("z", 90) @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(rotation_about("x", 90) @ [0, 1, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(rotation_about("y", 90) @ [0, 0, 1], [1, 0, 0], atol=1e-12)
    assert rotation_about("z", [0, 30, 60]).shape == (3, 3, 3)


def test_inverse_and_apply() -> None:
    r = _random_rotations(10)
    t = make_transform(r, np.arange(30.0).reshape(10, 3))
    assert is_rigid(t)
    np.testing.assert_allclose(invert_rigid(t) @ t, np.broadcast_to(np.eye(4), (10, 4, 4)), atol=1e-12)
    p = np.random.default_rng(1).normal(size=(10, 3))
    np.testing.assert_allclose(world_to_camera(camera_to_world(p, t), t), p, atol=1e-12)
    np.testing.assert_allclose(apply_transform(t[0], p[0]), r[0] @ p[0] + t[0, :3, 3])
    assert not is_rigid(np.diag([2.0, 1, 1, 1]))


def test_quaternion_round_trip_all_branches() -> None:
    r = np.concatenate([_random_rotations(200), rotation_about("x", [180.0]), rotation_about("y", [179.9])])
    q = matrix_to_quat(r)
    assert np.all(q[:, 3] >= 0)
    np.testing.assert_allclose(quat_to_matrix(q), r, atol=1e-10)
    # glTF order (x, y, z, w): 90° about y
    np.testing.assert_allclose(
        quat_to_matrix([0, np.sqrt(0.5), 0, np.sqrt(0.5)]), rotation_about("y", 90), atol=1e-12
    )


def test_slerp_and_interpolation_midpoint() -> None:
    a = make_transform(rotation_about("z", 10), [0, 0, 0])
    b = make_transform(rotation_about("z", 70), [2, 4, 6])
    mid = interpolate_transforms(a, b, 0.5)
    np.testing.assert_allclose(mid[:3, :3], rotation_about("z", 40), atol=1e-12)
    np.testing.assert_allclose(mid[:3, 3], [1, 2, 3])
    np.testing.assert_allclose(interpolate_transforms(a, b, 0.0), a, atol=1e-12)
    q0, q1 = matrix_to_quat(rotation_about("x", 0)), matrix_to_quat(rotation_about("x", 1e-12))
    assert np.all(np.isfinite(slerp(q0, q1, 0.5)))


def test_look_at_axes() -> None:
    t = look_at([1.0, 2.0, 1.6], [3.0, 2.0, 0.6])
    x, y, z = t[:3, 0], t[:3, 1], t[:3, 2]
    np.testing.assert_allclose(z, np.array([2.0, 0, -1.0]) / np.sqrt(5))
    assert y[2] < 0  # image down is world down (z up)
    np.testing.assert_allclose(x, [0, -1, 0], atol=1e-12)  # looking along +x, right is −y
    target_cam = world_to_camera([3.0, 2.0, 0.6], t)
    np.testing.assert_allclose(target_cam[:2], [0, 0], atol=1e-12)
    with pytest.raises(ValueError, match="parallel"):
        look_at([0, 0, 0], [0, 0, 1])
