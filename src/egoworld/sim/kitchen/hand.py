"""The wearer's right hand and forearm while an object is carried (reached for, held, put down).

The palm sits under the carried object, its thumb and fingers against the object's sides, and the forearm
runs from the wrist back to a shoulder point beside and below the camera — so a carried object no longer
floats, and while it is reached for or put down the arm stretches to it. The parts carry instance id
`HAND_INST` (neither a fixture nor an object: the instance buffer shows exactly what the hand hides).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder, PrimitiveSet

HAND_INST = 999
SKIN = Look((214, 160, 128), (200, 146, 116), "speckle", 0.012)
SLEEVE = Look((52, 74, 120), (44, 64, 104), "vstripes", 0.02)
SHOULDER = (0.22, 0.42, -0.12)  # camera frame: right, down, slightly behind the eyes


def _frame_along(d: NDArray) -> NDArray:
    """A rotation whose z axis is the unit vector ``d``."""
    z = d / max(float(np.linalg.norm(d)), 1e-9)
    helper = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.stack([x, np.cross(z, x), z], axis=1)


def hand_parts(
    object_centre: NDArray, object_radius: float, object_half_height: float, pose: NDArray
) -> PrimitiveSet:
    """Hand and forearm (world frame) holding an object centred at ``object_centre`` seen from ``pose``."""
    c = np.asarray(object_centre, float)
    cam_r, cam_t = pose[:3, :3], pose[:3, 3]
    forward = cam_r[:, 2].copy()
    forward[2] = 0.0
    forward = forward / max(float(np.linalg.norm(forward)), 1e-9)
    right = np.array([forward[1], -forward[0], 0.0])
    palm_rot = np.stack([right, forward, np.array([0.0, 0.0, 1.0])], axis=1)
    palm = c - np.array([0.0, 0.0, object_half_height + 0.018])
    side = max(object_radius, 0.02) + 0.012
    b = PartsBuilder()
    b.add("ellipsoid", palm, (0.045, 0.06, 0.018), SKIN, inst=HAND_INST, rot=palm_rot)
    b.add(
        "ellipsoid",
        palm - right * side + forward * 0.01 + [0, 0, 0.03],
        (0.014, 0.03, 0.03),
        SKIN,
        inst=HAND_INST,
        rot=palm_rot,
    )  # thumb
    b.add(
        "ellipsoid",
        palm + right * side + forward * 0.015 + [0, 0, 0.035],
        (0.016, 0.045, 0.035),
        SKIN,
        inst=HAND_INST,
        rot=palm_rot,
    )  # fingers
    wrist = palm - forward * 0.07 + right * 0.01
    shoulder = cam_r @ np.asarray(SHOULDER) + cam_t
    arm = shoulder - wrist
    length = float(np.linalg.norm(arm))
    rot = _frame_along(arm)
    b.add(
        "cylinder",
        wrist + arm * 0.5 * min(1.0, 0.16 / max(length, 1e-9)),
        (0.032, 0.03, min(length, 0.16) / 2),
        SKIN,
        inst=HAND_INST,
        rot=rot,
    )  # bare wrist
    if length > 0.16:
        mid = wrist + arm * (0.16 / length) + (arm * (1 - 0.16 / length)) / 2
        b.add("cylinder", mid, (0.045, 0.042, (length - 0.16) / 2), SLEEVE, inst=HAND_INST, rot=rot)
    return b.build()
