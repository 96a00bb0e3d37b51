"""Head motion: turn desired gaze directions into smooth camera orientations, and build poses.

Yaw is measured in the floor plane from world +x towards +y; pitch is positive when looking up. A
desired gaze signal (possibly jumping) is rate-limited (a human turns the head at most ~180°/s) and then
low-pass filtered, which gives smooth, causal head turns.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.transforms import look_at


def smooth_angles(t: NDArray, angle_deg: NDArray, max_rate_deg_s: float, tau_s: float) -> NDArray[np.float64]:
    """Rate-limit then exponentially smooth an (unwrapped) angle signal sampled at times ``t``."""
    a = np.asarray(angle_deg, float)
    out = np.empty_like(a)
    limited = a[0]
    smooth = a[0]
    out[0] = a[0]
    for i in range(1, len(a)):
        dt = t[i] - t[i - 1]
        step = max_rate_deg_s * dt
        limited += min(max(a[i] - limited, -step), step)
        k = 1.0 - np.exp(-dt / tau_s) if tau_s > 0 else 1.0
        smooth += k * (limited - smooth)
        out[i] = smooth
    return out


def gaze_to_yaw_pitch(eye: NDArray, target: NDArray) -> tuple[NDArray, NDArray]:
    """Yaw and pitch (degrees) of the direction from ``eye`` to ``target`` (``(N, 3)`` each)."""
    d = np.asarray(target, float) - np.asarray(eye, float)
    yaw = np.degrees(np.arctan2(d[..., 1], d[..., 0]))
    pitch = np.degrees(np.arctan2(d[..., 2], np.hypot(d[..., 0], d[..., 1])))
    return yaw, pitch


def head_poses(
    eye: NDArray, yaw_deg: NDArray, pitch_deg: NDArray, roll_deg: NDArray | None = None
) -> NDArray:
    """``(N, 4, 4)`` world_from_camera poses (x right, y down, z forward) looking along yaw / pitch."""
    y, p = np.radians(yaw_deg), np.radians(np.clip(pitch_deg, -85, 85))
    fwd = np.stack([np.cos(p) * np.cos(y), np.cos(p) * np.sin(y), np.sin(p)], axis=-1)
    poses = look_at(eye, np.asarray(eye, float) + fwd)
    if roll_deg is not None:
        r = np.radians(roll_deg)
        c, s = np.cos(r), np.sin(r)
        x, yy = poses[:, :3, 0].copy(), poses[:, :3, 1].copy()
        poses[:, :3, 0] = c[:, None] * x + s[:, None] * yy
        poses[:, :3, 1] = -s[:, None] * x + c[:, None] * yy
    return poses
