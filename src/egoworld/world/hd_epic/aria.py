"""HD-EPIC intermediate data (Project Aria): the RGB camera model and per-frame camera poses.

* ``device_calibration.json`` → `FisheyeCamera` for ``camera-rgb`` (the full FISHEYE624 model: focal,
  principal point, six radial, two tangential and four thin-prism terms; the valid-circle radius; ``max_solid_angle`` as the largest ray angle) and
  its ``T_device_camera``.
* ``framewise_info.jsonl`` → `PoseTrack` of ``world_from_camera = T_world_device · T_device_camera`` at
  ``t = frame_index / fps``; frames without a SLAM pose (``T_world_device`` null) are skipped.

The calibration's camera frame is the upright one (x right, y down, z forward): over the sample video
the camera's y axis points down in the z-up world.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError, iter_jsonl, read_json_object
from egoworld.geometry.cameras import FisheyeCamera
from egoworld.world.poses import PoseTrack

HD_EPIC_FPS = 30.0


def _matrix_3x4(value: object, where: str) -> NDArray[np.float64]:
    m = np.asarray(value, dtype=np.float64)
    if m.shape != (3, 4):
        raise InputFileError(f"{where}: expected a 3×4 matrix, got shape {m.shape}")
    out = np.eye(4)
    out[:3] = m
    return out


def load_rgb_camera(path: str | Path, label: str = "camera-rgb") -> tuple[FisheyeCamera, NDArray[np.float64]]:
    """The fisheye model of camera ``label`` and its 4×4 ``T_device_camera``."""
    path = Path(path)
    doc = read_json_object(path)
    cam = doc.get("cameras", {}).get(label)
    if cam is None:
        raise InputFileError(f"{path}: field 'cameras.{label}' is missing")
    model = str(cam.get("model_name", ""))
    params = cam.get("projection_params", [])
    if "FISHEYE624" not in model or len(params) != 15:
        raise InputFileError(
            f"{path}: field 'cameras.{label}.model_name': expected FISHEYE624 with 15 parameters, "
            f"got {model!r} with {len(params)}"
        )
    f, cx, cy = params[:3]
    width, height = cam["image_size"]
    angle = cam.get("max_solid_angle")
    camera = FisheyeCamera(
        width=int(width),
        height=int(height),
        fx=f,
        fy=f,
        cx=cx,
        cy=cy,
        radial=tuple(params[3:9]),
        tangential=(params[9], params[10]),
        thin_prism=(params[11], params[12], params[13], params[14]),
        valid_radius=cam.get("valid_radius"),
        max_angle_deg=math.degrees(angle) if angle else 90.0,
    )
    return camera, _matrix_3x4(cam.get("T_device_camera"), f"{path}: field 'cameras.{label}.T_device_camera'")


def load_framewise_poses(
    path: str | Path, device_from_camera: NDArray[np.float64], fps: float = HD_EPIC_FPS
) -> PoseTrack:
    """Camera poses of every frame that has a SLAM pose."""
    path = Path(path)
    times, mats = [], []
    for lineno, row in iter_jsonl(path):
        t_wd = row.get("T_world_device") if isinstance(row, dict) else None
        if t_wd is None:
            continue
        frame = row.get("frame_index")
        if not isinstance(frame, int) or frame < 0:
            raise InputFileError(f"{path}, line {lineno}: field 'frame_index': expected a frame number ≥ 0")
        times.append(frame / fps)
        mats.append(_matrix_3x4(t_wd, f"{path}, line {lineno}: field 'T_world_device'") @ device_from_camera)
    if not times:
        raise InputFileError(f"{path}: no frame has a T_world_device pose")
    try:
        return PoseTrack(times, np.stack(mats))
    except ValueError as exc:
        raise InputFileError(f"{path}: {exc}") from exc
