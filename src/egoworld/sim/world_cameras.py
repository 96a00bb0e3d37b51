"""Camera models the synthetic worlds use (all from `egoworld.geometry.cameras`)."""

from __future__ import annotations

from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera

# Project Aria RGB camera (HD-EPIC device_calibration.json, 1408×1408, FISHEYE624): f, cx, cy and the
# six radial terms; the tangential / thin-prism terms are left out (the model has none).
ARIA_SIZE = 1408
ARIA_F, ARIA_CX, ARIA_CY = 611.0571199969495, 697.4040013522815, 708.791446067084
ARIA_RADIAL = (
    0.3769357382851658,
    -0.2603815942422347,
    -0.5120778982977174,
    2.1118242962778,
    -2.371930678787967,
    0.8287633834834315,
)
ARIA_VALID_RADIUS = 707.5
ARIA_MAX_ANGLE_DEG = 57.2958  # max_solid_angle 1.0 rad


def aria_fisheye(size: int = 448) -> FisheyeCamera:
    """An Aria-like head camera: the Aria RGB intrinsics scaled to ``size``×``size`` with its valid circle."""
    s = size / ARIA_SIZE
    return FisheyeCamera(
        width=size,
        height=size,
        fx=ARIA_F * s,
        fy=ARIA_F * s,
        cx=(ARIA_CX + 0.5) * s - 0.5,
        cy=(ARIA_CY + 0.5) * s - 0.5,
        radial=ARIA_RADIAL,
        valid_radius=min(ARIA_VALID_RADIUS * s, size / 2),
        max_angle_deg=ARIA_MAX_ANGLE_DEG,
    )


def pinhole(width: int = 640, height: int = 480, hfov_deg: float = 90.0) -> PinholeCamera:
    """A centred pinhole camera with square pixels."""
    return PinholeCamera.from_fov(width, height, hfov_deg)


def equirect(width: int = 1024) -> EquirectCamera:
    """An equirectangular camera ``width``×``width/2``."""
    return EquirectCamera(width=width, height=width // 2)
