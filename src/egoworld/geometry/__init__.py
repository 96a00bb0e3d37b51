"""Geometry for egoworld: camera models, transforms, visibility, directions and panoramas (numpy).

Conventions: poses are 4×4 ``world_from_camera``; the camera frame is x right, y down, z forward;
pixel coordinates are (u right, v down) with integer values at pixel centres; angles in degrees.

Public API (stable):

* `egoworld.geometry.cameras`: `PinholeCamera`, `FisheyeCamera` (equidistant + optional Aria radial terms,
  valid circle), `EquirectCamera`, `CameraModel` (the JSON-tagged union). Methods ``project``,
  ``unproject``, ``in_image``, ``visible``, ``scaled``.
* `egoworld.geometry.transforms`: `make_transform`, `invert_rigid`, `apply_transform`, `world_to_camera`,
  `camera_to_world`, `rotation_about`, `quat_to_matrix`, `matrix_to_quat`, `slerp`,
  `interpolate_transforms`, `look_at`, `is_rigid`.
* `egoworld.geometry.boxes`: `Box3D` (oriented box: ``contains``, ``distance``, ``corners``, ``bounds``).
* `egoworld.geometry.visibility`: `behind_camera`, `in_view`, `occluded` (depth buffer),
  `visibility_codes` (`OUT_OF_VIEW`, `OCCLUDED`, `VISIBLE`), `sample_depth`, `point_depth`.
* `egoworld.geometry.directions`: `quadrant` (FL/FR/BL/BR), `quadrant_is_clear`, `clock_angle_deg`,
  `clock_range`, `clock_radius_m`, `clock_hour`, `distance`, `camera_distance`, `distance_bin`.
* `egoworld.geometry.equirect`: `equirect_to_perspective`, `perspective_sampler` / `PerspectiveSampler`
  (precomputed, applies to ``(T, H, W, C)`` videos), `view_rotation`, `view_camera`, `FOUR_VIEWS`.
"""

from egoworld.geometry.boxes import Box3D
from egoworld.geometry.cameras import CameraModel, EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.geometry.directions import (
    camera_distance,
    clock_angle_deg,
    clock_hour,
    clock_range,
    distance,
    quadrant,
    quadrant_is_clear,
)
from egoworld.geometry.equirect import FOUR_VIEWS, equirect_to_perspective, perspective_sampler, view_rotation
from egoworld.geometry.transforms import (
    apply_transform,
    camera_to_world,
    invert_rigid,
    look_at,
    make_transform,
    world_to_camera,
)
from egoworld.geometry.visibility import OCCLUDED, OUT_OF_VIEW, VISIBLE, in_view, occluded, visibility_codes

__all__ = [
    "FOUR_VIEWS",
    "OCCLUDED",
    "OUT_OF_VIEW",
    "VISIBLE",
    "Box3D",
    "CameraModel",
    "EquirectCamera",
    "FisheyeCamera",
    "PinholeCamera",
    "apply_transform",
    "camera_distance",
    "camera_to_world",
    "clock_angle_deg",
    "clock_hour",
    "clock_range",
    "distance",
    "equirect_to_perspective",
    "in_view",
    "invert_rigid",
    "look_at",
    "make_transform",
    "occluded",
    "perspective_sampler",
    "quadrant",
    "quadrant_is_clear",
    "view_rotation",
    "visibility_codes",
    "world_to_camera",
]
