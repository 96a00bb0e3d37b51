"""Depth media of an episode (``EpisodeMedia.depth``), read frame by frame for the occlusion test.

Accepted layouts (path relative to the episode folder; values × ``depth_scale_m`` = metres, of kind
``depth_kind`` — range or z, see `egoworld.geometry.visibility`):

* a ``.npz`` file with ``depth`` ``(N, H, W)`` and ``times_s`` ``(N,)`` (or ``frames`` ``(N,)``, frame
  numbers at the episode's fps);
* a folder of per-frame files ``<frame>.npy`` or 16-bit ``<frame>.png`` named by the frame number
  (``000123.npy``; any zero padding), frame = round(t · fps).

A time with no depth frame within half a frame returns None (that sample is not depth-tested).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import InputFileError
from egoworld.world.episode import Episode

_FRAME = re.compile(r"^(\d+)\.(npy|png)$")


class DepthFrames:
    """Depth maps by time; `at` returns metres ``(H, W)`` or None."""

    def __init__(self, times_s: NDArray[np.float64], loader, kind: str, where: str, tolerance_s: float):
        order = np.argsort(times_s, kind="stable")
        self.times = np.asarray(times_s, dtype=np.float64)[order]
        self._keys = order
        self._load = loader
        self.kind = kind
        self.where = where
        self.tolerance_s = tolerance_s

    def at(self, t: float) -> NDArray[np.float64] | None:
        if not len(self.times):
            return None
        i = int(np.clip(np.searchsorted(self.times, t), 1, len(self.times) - 1)) if len(self.times) > 1 else 0
        if len(self.times) > 1 and abs(self.times[i - 1] - t) <= abs(self.times[i] - t):
            i -= 1
        if abs(self.times[i] - t) > self.tolerance_s:
            return None
        return self._load(int(self._keys[i]))


def open_depth(episode: Episode, root: str | Path | None) -> DepthFrames | None:
    """The episode's depth media, or None when it has none."""
    if episode.media.depth is None:
        return None
    if root is None:
        raise InputFileError(
            f"episode {episode.id}: media.depth is {episode.media.depth!r} but the episode folder is unknown; "
            "load the episode from its folder (egoworld build beyond3d --world DIR)"
        )
    path = Path(root) / episode.media.depth
    scale = episode.media.depth_scale_m
    half_frame = 0.5 / episode.fps + 1e-6
    if path.is_file() and path.suffix == ".npz":
        data = np.load(path)
        if "depth" not in data:
            raise InputFileError(f"{path}: no array 'depth' (expected depth (N, H, W) and times_s (N,))")
        if "times_s" in data:
            times = np.asarray(data["times_s"], dtype=np.float64)
        elif "frames" in data:
            times = np.asarray(data["frames"], dtype=np.float64) / episode.fps
        else:
            raise InputFileError(f"{path}: needs an array 'times_s' (seconds) or 'frames' beside 'depth'")
        stack = data["depth"]
        if stack.ndim != 3 or len(stack) != len(times):
            raise InputFileError(
                f"{path}: 'depth' must be (N, H, W) with N = len(times_s), got {stack.shape}"
            )
        return DepthFrames(
            times,
            lambda k: np.asarray(stack[k], dtype=np.float64) * scale,
            episode.media.depth_kind,
            str(path),
            half_frame,
        )
    if path.is_dir():
        files: dict[int, Path] = {}
        for p in path.iterdir():
            m = _FRAME.match(p.name)
            if m:
                files[int(m.group(1))] = p
        if not files:
            raise InputFileError(f"{path}: no depth frames named <frame>.npy or <frame>.png")
        frames = sorted(files)

        def load(k: int) -> NDArray[np.float64]:
            p = files[frames[k]]
            if p.suffix == ".npy":
                return np.asarray(np.load(p), dtype=np.float64) * scale
            from PIL import Image

            return np.asarray(Image.open(p), dtype=np.float64) * scale

        return DepthFrames(
            np.asarray(frames, dtype=np.float64) / episode.fps,
            load,
            episode.media.depth_kind,
            str(path),
            half_frame,
        )
    raise InputFileError(
        f"{path}: episode {episode.id} names this depth media but it is missing (or not .npz / a folder); "
        "fix media.depth in episode.json or build with --depth boxes"
    )
