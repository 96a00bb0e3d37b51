"""A walk filmed by an ordinary camera (phone, GoPro): one perspective view instead of a panorama's four.

`walk_camera` decides what a walk video is: ``--camera FILE`` (pinhole, fisheye or equirect, as
``episode.json`` spells a camera), else an equirectangular panorama when the frame is 2:1, else a pinhole of
90° horizontal field of view (said in a warning: give ``--camera`` for the real intrinsics).
`perspective_view` makes the walk's one view, ``front``: the video itself (pinhole), or the video
undistorted to a pinhole of `UNDISTORTED_FOV_DEG` (fisheye: `egoworld.geometry.cameras` rays remapped with
OpenCV). Its metadata has the fields `egoworld.world.panorama_views.cut_views` writes for each of a
panorama's views (yaw 0, the pinhole camera), so the builders read it the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError
from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.media.index import VideoIndex, probe

Camera = PinholeCamera | FisheyeCamera | EquirectCamera
DEFAULT_FOV_DEG = 90.0  # the pinhole assumed for a perspective video without --camera
UNDISTORTED_FOV_DEG = 90.0  # horizontal field of view of the pinhole a fisheye video is undistorted to


def is_two_to_one(index: VideoIndex) -> bool:
    """Whether the frame is 2:1 (an equirectangular panorama's shape), within 2 pixels."""
    return abs(index.width - 2 * index.height) <= 2


def walk_camera(
    camera_file: str | None, video: Path, index: VideoIndex, say: Callable[[str], None]
) -> tuple[Camera, dict[str, Any]]:
    """The walk's camera and its provenance record (see the module docstring); a camera whose size is not the
    video's, or an equirect camera over a frame that is not 2:1, is refused with the fix."""
    from egoworld.perception.kitchen_annotations import read_camera

    size = f"{index.width}×{index.height}"
    if camera_file is None:
        if is_two_to_one(index):
            return EquirectCamera(width=index.width, height=index.height), {"backend": "equirect-2:1"}
        say(f"WARNING: {video.name}: {size} is not a 2:1 panorama; read as a perspective video with an assumed "
            f"{DEFAULT_FOV_DEG:g}° horizontal pinhole (give --camera camera.json with your camera's fx, fy, cx, cy "
            "for a truer trajectory)")  # fmt: skip
        pinhole = PinholeCamera.from_fov(index.width, index.height, DEFAULT_FOV_DEG)
        return pinhole, {"backend": "default-pinhole", "fov_deg": DEFAULT_FOV_DEG}
    cam = read_camera(camera_file)
    name = Path(camera_file).name
    if isinstance(cam, EquirectCamera) and not is_two_to_one(index):
        raise InputFileError(f"{camera_file}: an equirect camera, but {video} is {size}, not a 2:1 panorama; "
                             "give the pinhole or fisheye model of the camera that filmed it")  # fmt: skip
    if (cam.width, cam.height) != (index.width, index.height):
        raise InputFileError(f"{camera_file}: the camera is {cam.width}×{cam.height}, {video} is {size}; give the "
                             "calibration at the video's resolution (scale fx, fy, cx, cy with the frame)")  # fmt: skip
    return cam, {"backend": "file", "file": name, "kind": cam.kind}


def fov_deg(cam: PinholeCamera) -> float:
    """The pinhole's horizontal field of view, degrees."""
    return math.degrees(2 * math.atan(cam.width / 2 / cam.fx))


def undistort_maps(fisheye: FisheyeCamera, pinhole: PinholeCamera) -> tuple[NDArray, NDArray]:
    """``cv2.remap`` maps: for each pinhole pixel, where its ray meets the fisheye image (−1: outside)."""
    u, v = np.meshgrid(np.arange(pinhole.width), np.arange(pinhole.height))
    rays = pinhole.unproject(np.stack([u, v], -1).astype(np.float64))
    uv, ok = fisheye.project(rays)
    ok &= fisheye.in_image(uv)
    uv = np.where(ok[..., None], uv, -1.0)
    return uv[..., 0].astype(np.float32), uv[..., 1].astype(np.float32)


def undistort_video(src: Path, dst: Path, fisheye: FisheyeCamera) -> PinholeCamera:
    """Write ``dst``: ``src`` (a fisheye video) as a pinhole video of the same size and `UNDISTORTED_FOV_DEG`."""
    import cv2

    from egoworld.media.writer import VideoWriter
    from egoworld.perception.video.trajectory import sampled_frames

    w, h = fisheye.width - fisheye.width % 2, fisheye.height - fisheye.height % 2  # yuv420p: even sides
    pinhole = PinholeCamera.from_fov(w, h, UNDISTORTED_FOV_DEG)
    mx, my = undistort_maps(fisheye, pinhole)
    fps = probe(src).avg_fps or 1.0
    with VideoWriter(dst, float(fps), (w, h)) as out:
        for _t, rgb in sampled_frames(src, 1):
            out.write(
                np.asarray(cv2.remap(rgb, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT), np.uint8)
            )
    return pinhole


def perspective_view(
    video: Path, folder: Path, camera: PinholeCamera | FisheyeCamera, link: Callable[[Path, Path], None]
) -> dict[str, dict[str, Any]]:
    """The walk's one view ``front`` in ``folder`` (the video linked in, or undistorted) and its metadata."""
    if isinstance(camera, FisheyeCamera):
        path = folder / "front.mp4"
        pinhole = undistort_video(video, path, camera)
    else:
        path = folder / f"front{video.suffix.lower()}"
        link(video, path)
        pinhole = camera
    index = probe(path)
    step = 1.0 / index.avg_fps if index.avg_fps else 0.0
    meta = {
        "yaw_deg": 0.0,
        "pitch_deg": 0.0,
        "fov_deg": round(fov_deg(pinhole), 6),
        "video": path.name,
        "width": pinhole.width,
        "height": pinhole.height,
        "frames": index.count,
        "duration_s": round(index.duration_s + step, 6),
        "camera": pinhole.model_dump(mode="json"),
    }
    return {"front": meta}
