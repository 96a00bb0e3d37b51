"""Re-identification by 3D consistency: the rays through a tracklet's box centres (camera poses from the
perceived trajectory) meet at one point when they see one static object.

Two tracklets of one label are the same object when the rays of both, triangulated together (least squares),
meet within ``max_angle_deg`` on average (the angle between each ray and the direction to the point), in
front of every camera, with at least ``min_parallax_deg`` between the rays of one of the two (so one places the point alone); they are two objects when the
mean angle is ``reject_angle_deg`` or more (or the point lies behind a camera); in between, or when the
rays are too parallel to place a point, the 2D rule decides. Boxes touching the image border give no ray.
Angles, not lengths, so it works on a trajectory without metric scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import PinholeCamera
from egoworld.world.poses import PoseTrack

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Rays:
    """World rays of box centres: ``poses`` world_from_camera of the view, ``camera`` its pinhole model."""

    poses: PoseTrack
    camera: PinholeCamera
    max_angle_deg: float = 4.0
    reject_angle_deg: float = 15.0
    min_parallax_deg: float = 3.0
    max_rays: int = 40
    border_px: float = 2.0

    def of(self, times: Sequence[float], boxes: Sequence[Sequence[float]]) -> tuple[F64, F64]:
        """Camera centres ``(N, 3)`` and unit directions ``(N, 3)`` through the centres of the boxes that do
        not touch the image border (a cut box's centre is not the object's)."""
        b = np.asarray(boxes, np.float64).reshape(-1, 4)
        cam, m = self.camera, self.border_px
        inside = (
            (b[:, 0] > m) & (b[:, 1] > m) & (b[:, 2] < cam.width - 1 - m) & (b[:, 3] < cam.height - 1 - m)
        )
        b, times = b[inside], np.asarray(times, np.float64)[inside]
        u, v = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        d = np.stack([(u - cam.cx) / cam.fx, (v - cam.cy) / cam.fy, np.ones(len(b))], -1)
        m = self.poses.interpolate(np.asarray(times, np.float64))
        w = np.einsum("nij,nj->ni", m[:, :3, :3], d)
        return m[:, :3, 3], w / np.linalg.norm(w, axis=1, keepdims=True)

    def score(self, first: tuple[F64, F64], second: tuple[F64, F64]) -> float | None:
        """The larger of the two ray sets' mean angles (deg) to their joint least-squares point; ``inf``
        when the point lies behind a camera, None when the rays are too parallel to place it."""
        n1 = len(first[0])
        if n1 == 0 or len(second[0]) == 0:
            return None
        centres, dirs = np.concatenate([first[0], second[0]]), np.concatenate([first[1], second[1]])
        if len(centres) > self.max_rays:
            pick = np.unique(np.linspace(0, len(centres) - 1, self.max_rays).round().astype(int))
            n1 = int((pick < n1).sum())
            centres, dirs = centres[pick], dirs[pick]
            if n1 == 0 or n1 == len(pick):
                return None
        proj = np.eye(3)[None] - dirs[:, :, None] * dirs[:, None, :]
        a, rhs = proj.sum(0), np.einsum("nij,nj->i", proj, centres)
        if np.linalg.cond(a) > 1e8:
            return None
        to_p = np.linalg.solve(a, rhs) - centres
        dist = np.linalg.norm(to_p, axis=1)
        if np.any(np.einsum("ni,ni->n", to_p, dirs) <= 0) or np.any(dist <= 0):
            return float("inf")
        unit = to_p / dist[:, None]
        spread = np.degrees(np.arccos(np.clip(unit @ unit.T, -1.0, 1.0)))
        if max(spread[:n1, :n1].max(), spread[n1:, n1:].max()) < self.min_parallax_deg:
            return None  # neither set places the point by itself
        angle = np.degrees(np.arccos(np.clip(np.einsum("ni,ni->n", unit, dirs), -1.0, 1.0)))
        return float(max(angle[:n1].mean(), angle[n1:].mean()))
