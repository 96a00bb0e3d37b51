"""A perceived camera trajectory and the one interface that makes it from a video.

`Trajectory`: world_from_camera poses at every sampled frame time, which of them a backend registered
(the others are interpolated between registered neighbours, or held at the nearest one outside them —
flagged, never dropped), whether the unit is metres (``metric``: only from Aria MPS or a user-given scale)
and the `Provenance` of the backend. `TrajectoryEstimator`: ``estimate(video) -> Trajectory``.
`sampled_frames` decodes a video's frames at its own rate or a ``stride`` through `egoworld.media`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from egoworld.media.decoder import decode_frames
from egoworld.media.index import VideoIndex, probe
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.trajectory_check import check_trajectory
from egoworld.world.poses import PoseTrack

F64 = NDArray[np.float64]


def orthonormal(m: F64) -> F64:
    """Poses ``(N, 4, 4)`` with each rotation projected onto SO(3) (SVD) and the last row 0 0 0 1."""
    out = np.array(m, dtype=np.float64)
    u, _, vt = np.linalg.svd(out[:, :3, :3])
    d = np.sign(np.linalg.det(u @ vt))
    u[:, :, 2] *= d[:, None]
    out[:, :3, :3] = u @ vt
    out[:, 3] = (0.0, 0.0, 0.0, 1.0)
    return out


@dataclass(frozen=True)
class Trajectory:
    """Poses ``(N, 4, 4)`` at ``times_s`` ``(N,)``; ``registered[i]`` False where pose ``i`` was filled in."""

    times_s: F64
    world_from_camera: F64
    provenance: Provenance
    metric: bool = False
    registered: NDArray[np.bool_] | None = None
    notes: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        reg = (
            np.ones(len(self.times_s), bool) if self.registered is None else np.asarray(self.registered, bool)
        )
        object.__setattr__(self, "registered", reg)
        object.__setattr__(self, "world_from_camera", orthonormal(self.world_from_camera))
        PoseTrack(self.times_s, self.world_from_camera)  # checks times and shapes

    def __len__(self) -> int:
        return len(self.times_s)

    @property
    def positions(self) -> F64:
        return self.world_from_camera[:, :3, 3]

    @property
    def registration_rate(self) -> float:
        return float(np.mean(self.registered)) if len(self) else 0.0

    def track(self) -> PoseTrack:
        return PoseTrack(self.times_s, self.world_from_camera)

    def scaled(self, metres_per_unit: float) -> Trajectory:
        """The trajectory in metres by a user-given scale (then ``metric``)."""
        m = self.world_from_camera.copy()
        m[:, :3, 3] *= metres_per_unit
        notes = self.notes | {"scale_m_per_unit": float(metres_per_unit)}
        return Trajectory(self.times_s, m, self.provenance, True, self.registered, notes)

    def summary(self) -> dict:
        """What ``episode.json`` records beside the provenance: ``metric`` and ``unit`` (``m``, or ``unit``:
        lengths without a metric scale), registration, the notes and the self-check (``check``,
        `egoworld.perception.video.trajectory_check`)."""
        missing = [round(float(t), 6) for t, r in zip(self.times_s, self.registered, strict=True) if not r]
        return (
            {
                "metric": self.metric,
                "unit": "m" if self.metric else "unit",
                "frames": len(self),
                "registered": int(np.sum(self.registered)),
                "registration_rate": round(self.registration_rate, 6),
                "unregistered_s": missing,
            }
            | self.notes
            | {"check": check_trajectory(self)}
        )


class TrajectoryEstimator(Protocol):
    """Turns a video into timed world_from_camera poses."""

    def estimate(self, video: str | Path) -> Trajectory: ...


def estimator_settings(estimator: Any) -> dict[str, Any]:
    """A dataclass estimator's fields for its provenance, its ``camera`` (a `PinholeCamera` or None) as JSON."""
    out = asdict(estimator)
    out["camera"] = estimator.camera.model_dump(mode="json") if estimator.camera else None
    return out


def is_panorama(panorama: bool | None, index: VideoIndex) -> bool:
    """``panorama`` when given; None: whether the video is an equirectangular 2:1 frame."""
    return panorama if panorama is not None else index.width == 2 * index.height


def fill_unregistered(times_s: F64, registered: NDArray[np.bool_], poses: F64) -> F64:
    """Poses at every time: the registered ones kept, the others interpolated (slerp) between registered
    neighbours and held at the nearest registered pose outside them."""
    if not registered.any():
        raise ValueError("no frame was registered")
    track = PoseTrack(times_s[registered], orthonormal(poses[registered]))
    out = np.array(poses, dtype=np.float64)
    out[~registered] = track.interpolate(times_s[~registered])
    return out


def frame_targets(index: VideoIndex, stride: int) -> list[int]:
    if stride < 1:
        raise ValueError(f"stride must be ≥ 1, got {stride}")
    return list(range(0, index.count, stride))


def sampled_frames(
    video: str | Path, stride: int = 1, size: tuple[int, int] | None = None
) -> Iterator[tuple[float, NDArray[np.uint8]]]:
    """``(time_s, RGB frame)`` of every ``stride``-th frame (an undecodable video raises `MediaError`)."""
    index = probe(video)
    for i, rgb in decode_frames(video, index, frame_targets(index, stride), size=size):
        yield index.time_of(i), rgb
