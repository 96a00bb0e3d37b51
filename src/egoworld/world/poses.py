"""Camera poses over time: `PoseTrack` (world_from_camera 4×4 at strictly increasing timestamps).

Lookup:

* `PoseTrack.nearest(t, fps=...)`: the HD-EPIC / Beyond3D rule — frame ``round(t·fps)``, then the pose
  nearest to that frame's time (ties → the later pose). Without ``fps``: the pose nearest to ``t``
  (ties → later).
* `PoseTrack.interpolate(t)`: linear in translation, slerp in rotation; clamped to the first / last pose.

Both accept a scalar (→ ``(4, 4)``) or an array of times (→ ``(N, 4, 4)``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from egoworld.geometry.transforms import interpolate_transforms, is_rigid

F64 = NDArray[np.float64]
_TIE_EPS = 1e-9


class PoseTrack:
    """World-from-camera poses ``(N, 4, 4)`` at times ``(N,)`` in seconds (strictly increasing)."""

    __slots__ = ("_t", "_m")

    def __init__(self, times_s: ArrayLike, world_from_camera: ArrayLike) -> None:
        t = np.asarray(times_s, dtype=np.float64).reshape(-1)
        m = np.asarray(world_from_camera, dtype=np.float64)
        if m.shape != (len(t), 4, 4):
            raise ValueError(f"expected {len(t)} poses of shape 4×4, got an array of shape {m.shape}")
        if len(t) == 0:
            raise ValueError("a pose track needs at least one pose")
        if not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
            raise ValueError("pose times must be finite and strictly increasing")
        if not is_rigid(m, tol=1e-3):
            raise ValueError("poses must be rigid transforms (orthonormal rotation, last row 0 0 0 1)")
        t.setflags(write=False)
        m.setflags(write=False)
        self._t, self._m = t, m

    def __len__(self) -> int:
        return len(self._t)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PoseTrack)
            and np.array_equal(self._t, other._t)
            and np.array_equal(self._m, other._m)
        )

    def __repr__(self) -> str:
        return f"PoseTrack({len(self)} poses, {self._t[0]:.3f}–{self._t[-1]:.3f} s)"

    @property
    def times_s(self) -> F64:
        return self._t

    @property
    def matrices(self) -> F64:
        """All poses, ``(N, 4, 4)`` world_from_camera."""
        return self._m

    @property
    def positions(self) -> F64:
        """Camera centres in the world, ``(N, 3)``."""
        return self._m[:, :3, 3]

    def nearest_index(self, t: ArrayLike, fps: float | None = None) -> NDArray[np.int64]:
        """Index of the pose used at time(s) ``t`` (see the module docstring for the rule)."""
        q = np.asarray(t, dtype=np.float64)
        if fps is not None:
            q = np.rint(q * fps) / fps  # frame = round(t·fps), half to even like Python's round()
        hi = np.clip(np.searchsorted(self._t, q, side="left"), 0, len(self._t) - 1)
        lo = np.clip(hi - 1, 0, len(self._t) - 1)
        d_hi = np.abs(self._t[hi] - q)
        d_lo = np.abs(q - self._t[lo])
        return np.where(d_hi <= d_lo + _TIE_EPS, hi, lo).astype(np.int64)

    def nearest(self, t: ArrayLike, fps: float | None = None) -> F64:
        """Pose(s) by nearest lookup."""
        return self._m[self.nearest_index(t, fps)]

    def interpolate(self, t: ArrayLike) -> F64:
        """Pose(s) interpolated between the bracketing poses (clamped outside the track)."""
        q = np.clip(np.asarray(t, dtype=np.float64), self._t[0], self._t[-1])
        if len(self._t) == 1:
            return np.broadcast_to(self._m[0], (*q.shape, 4, 4)).copy()
        i = np.clip(np.searchsorted(self._t, q, side="right") - 1, 0, len(self._t) - 2)
        alpha = (q - self._t[i]) / (self._t[i + 1] - self._t[i])
        return interpolate_transforms(self._m[i], self._m[i + 1], alpha)

    def to_rows(self) -> list[dict]:
        """JSON rows ``{"t": s, "world_from_camera": 4×4}`` (what ``poses.jsonl`` holds)."""
        return [
            {"t": float(t), "world_from_camera": m.tolist()} for t, m in zip(self._t, self._m, strict=True)
        ]
