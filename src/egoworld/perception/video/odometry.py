"""OpenCV feature odometry, the fast fallback: Lucas–Kanade tracks of Shi–Tomasi corners from the last
keyframe, an essential matrix (RANSAC) and `cv2.recoverPose`, chained.

A frame becomes a keyframe once the median track moved ``min_parallax_px``; frames in between (and frames
whose pose cannot be recovered) are interpolated and marked unregistered. Degenerate frame pairs never stop
the estimate: a frame with too few corners (a black or blank frame) or whose tracks are collinear or
static holds the last pose (unregistered), and OpenCV's own refusals (``cv2.error`` from
``findEssentialMat`` / ``recoverPose``) count as such a pair; a keyframe without enough corners is replaced
by the next frame that has them. ``notes["held_s"]`` lists the held frames' times, ``notes["held_why"]``
counts them by reason (see `OpenCVOdometry._step`). Monocular steps have no scale:
each step is given the length of the time it spans (constant speed), so the path is right up to Sim(3)
only while the walker's speed is steady. A panorama is tracked in its front perspective view.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.cameras import PinholeCamera
from egoworld.geometry.equirect import perspective_sampler, view_camera
from egoworld.media.index import probe
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.trajectory import (
    Trajectory,
    estimator_settings,
    fill_unregistered,
    is_panorama,
    sampled_frames,
)


@dataclass(frozen=True)
class OpenCVOdometry:
    """``camera``: pinhole intrinsics (None: a 90° horizontal field of view is assumed)."""

    stride: int = 1
    camera: PinholeCamera | None = None
    panorama: bool | None = None
    view_size: int = 128
    max_corners: int = 400
    min_parallax_px: float = 2.0
    min_inliers: int = 12
    seed: int = 0

    def settings(self) -> dict:
        return estimator_settings(self)

    def estimate(self, video: str | Path) -> Trajectory:
        video = Path(video)
        index = probe(video)
        pano = is_panorama(self.panorama, index)
        cam = self.camera
        sampler = None
        if pano:
            hw = (index.height, index.width)
            sampler = perspective_sampler(hw, (self.view_size, self.view_size), yaw_deg=0.0)
            cam = view_camera((self.view_size, self.view_size), 90.0)
        elif cam is None:
            cam = PinholeCamera.from_fov(index.width, index.height, 90.0)
        k = np.array([[cam.fx, 0, cam.cx], [0, cam.fy, cam.cy], [0, 0, 1]], np.float64)
        cv2.setRNGSeed(self.seed)
        times: list[float] = []
        poses: list[NDArray] = []
        registered: list[bool] = []
        key_gray = key_pts = None
        key_pose, key_t = np.eye(4), 0.0
        held: list[float] = []
        why: dict[str, int] = {}
        for t, rgb in sampled_frames(video, self.stride):
            gray = cv2.cvtColor(sampler(rgb) if sampler else rgb, cv2.COLOR_RGB2GRAY)
            times.append(t)
            if key_gray is None:
                key_gray, key_pts, key_t = gray, self._corners(gray), t
                poses.append(key_pose)
                registered.append(True)
                continue
            step = self._step(key_gray, key_pts, gray, k)
            if isinstance(step, str) and step != "parallax":
                held.append(round(float(t), 6))
                why[step] = why.get(step, 0) + 1
            if not isinstance(step, tuple):
                poses.append(key_pose)  # held (filled in below between registered neighbours)
                registered.append(False)
                if step != "parallax" and self._degenerate(key_pts):  # a blank or one-line keyframe
                    key_gray, key_pts, key_t = gray, self._corners(gray), t  # tracks start again here
                continue
            rot, unit_t = step
            cur_from_key = np.eye(4)
            cur_from_key[:3, :3], cur_from_key[:3, 3] = rot, unit_t * (t - key_t)
            key_pose = key_pose @ np.linalg.inv(cur_from_key)
            poses.append(key_pose)
            registered.append(True)
            key_gray, key_pts, key_t = gray, self._corners(gray), t
        times_a, reg = np.array(times), np.array(registered)
        full = fill_unregistered(times_a, reg, np.array(poses))
        return Trajectory(
            times_a,
            full,
            Provenance("opencv-odometry", "opencv-python-headless", self.settings()),
            False,
            reg,
            {
                "keyframes": int(reg.sum()),
                "held_s": held,
                "held_why": why,
            },
        )

    def _degenerate(self, pts: NDArray | None) -> bool:
        """Too few points, or all on one line (no essential matrix comes from them)."""
        if pts is None or len(pts) < self.min_inliers:
            return True
        a = pts.reshape(-1, 2)
        return bool(np.linalg.matrix_rank(np.c_[a - a.mean(0), np.ones(len(a))], tol=1.0) < 3)

    def _corners(self, gray: NDArray) -> NDArray | None:
        return cv2.goodFeaturesToTrack(gray, self.max_corners, 0.01, 5)

    def _step(
        self, key_gray: NDArray, key_pts: NDArray | None, gray: NDArray, k: NDArray
    ) -> tuple[NDArray, NDArray] | str:
        """Rotation and unit translation cur_from_key, else why not: ``"parallax"`` (too little motion yet:
        the ordinary wait for the next keyframe), or a degenerate pair whose pose is held — ``"few-points"``
        (a blank keyframe or frame), ``"collinear"`` tracks, ``"refused"`` (OpenCV raised) or ``"no-pose"``."""
        if key_pts is None or len(key_pts) < self.min_inliers:
            return "few-points"
        pts, status, _ = cv2.calcOpticalFlowPyrLK(key_gray, gray, key_pts, None)
        ok = status.reshape(-1) == 1
        a, b = key_pts.reshape(-1, 2)[ok], pts.reshape(-1, 2)[ok]
        if len(a) < self.min_inliers:
            return "few-points"
        if np.median(np.linalg.norm(b - a, axis=1)) < self.min_parallax_px:
            return "parallax"
        if self._degenerate(a):  # collinear points
            return "collinear"
        try:
            e, mask = cv2.findEssentialMat(a, b, k, method=cv2.RANSAC, prob=0.999, threshold=1.0)
            if e is None or e.shape != (3, 3):
                return "no-pose"
            n, rot, t, _ = cv2.recoverPose(e, a, b, k, mask=mask)
        except cv2.error:  # e.g. "(-215:Assertion failed) ... in function 'solvePoly'" on degenerate tracks
            return "refused"
        if n < self.min_inliers or not (np.all(np.isfinite(rot)) and np.all(np.isfinite(t))):
            return "no-pose"
        return rot, t.reshape(3)
