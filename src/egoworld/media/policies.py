"""Named frame-sampling rules. Each turns a clip of a video into exact frame indices (and their times).

A clip is the frames from the one nearest ``start_s`` to the one nearest ``end_s`` (the whole video when
unset); ``N`` is its number of frames and ``n`` the requested count (``--frames``). When ``n >= N`` the
uniform rules return every frame of the clip.

=================  ====================================================  ==================================
name               indices (k = 0 … n-1, offsets into the clip)           endpoints
=================  ====================================================  ==================================
``uniform``        ``np.linspace(0, N-1, n, dtype=int)`` (floor)          first and last frame included —
                                                                         the VSI-Super-Wild / VSI-Bench
                                                                         rule of their lmms-eval tasks
``uniform-round``  ``np.linspace(0, N-1, n).round()``                     first and last included (the
                                                                         Qwen-VL ``qwen_vl_utils`` rule)
``uniform-center`` ``floor((k + 0.5) * N / n)``: centre of n segments      neither endpoint
``uniform-start``  ``floor(k * N / n)``: start of n segments               first included, last not
``fps:R``          frames nearest ``start + k/R`` up to the clip end     first included; last when on
                                                                         the grid; capped at n (uniform
                                                                         over the grid when more)
``fps-end:R``      frames nearest ``end - k/R`` back to the clip start   last included — the clip ends at
                                                                         the query moment (Beyond3D,
                                                                         ``fps-end:1``); capped at n
``at:T1,T2,…``     frames nearest the given video times (seconds)        as given; each must be in the clip
``last``           the clip's last frame (the frame at the query time)  last only
=================  ====================================================  ==================================

Times are seconds from the video's first frame (see `egoworld.media.index`); "nearest" breaks ties toward
the later frame. Every selection records its policy name, indices and times, and they go into each request.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from egoworld.media.index import VideoIndex

UNIFORM_RULES = ("uniform", "uniform-round", "uniform-center", "uniform-start")
POLICY_NAMES = (*UNIFORM_RULES, "fps:R", "fps-end:R", "at:T1,T2,…", "last")
_EPS = 1e-9


@dataclass(frozen=True)
class Clip:
    """Inclusive frame range of a clip."""

    first: int
    last: int

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @classmethod
    def of(cls, index: VideoIndex, start_s: float | None, end_s: float | None) -> Clip:
        """The clip from ``start_s`` to ``end_s``; `TimeOutsideVideo` when either lies past the video's end
        (`VideoIndex.frame_at`: tolerance one frame interval), never a silent clamp to the last frame."""
        first = index.frame_at(start_s, "clip start") if start_s is not None else 0
        last = index.frame_at(end_s, "clip end") if end_s is not None else index.count - 1
        return cls(first, max(first, last))


@dataclass(frozen=True)
class Selection:
    """The frames a policy chose: indices into the whole video, ascending, with their times."""

    policy: str
    indices: tuple[int, ...]
    times: tuple[float, ...]

    def describe(self) -> dict:
        return {
            "policy": self.policy,
            "indices": list(self.indices),
            "times": [round(t, 6) for t in self.times],
        }


@dataclass(frozen=True)
class Policy:
    """A parsed policy; ``name`` is its canonical spelling (it enters request keys)."""

    name: str
    kind: str
    rate: float | None = None
    times: tuple[float, ...] = ()

    def offsets(self, index: VideoIndex, clip: Clip, n: int) -> list[int]:
        """Frame indices (into the whole video) in ascending order, without repeats."""
        if n < 1:
            raise ValueError(f"frame policy {self.name!r}: the frame count must be at least 1, got {n}")
        N = clip.count
        if self.kind in UNIFORM_RULES:
            return [clip.first + k for k in uniform_offsets(self.kind, N, n)]
        if self.kind == "last":
            return [clip.last]
        t0, t1 = index.time_of(clip.first), index.time_of(clip.last)
        if self.kind == "at":
            outside = [t for t in self.times if not t0 - _EPS <= t <= t1 + _EPS]
            if outside:
                raise ValueError(
                    f"frame policy {self.name!r}: times {outside} lie outside the clip [{t0:.3f}, {t1:.3f}] s"
                )
            return sorted({index.nearest(t) for t in self.times})
        assert self.rate is not None
        step = 1.0 / self.rate
        count = int(np.floor((t1 - t0) / step + 1e-6)) + 1
        if self.kind == "fps":
            grid = [t0 + k * step for k in range(count)]
        else:
            grid = [t1 - k * step for k in range(count)][::-1]
        picked = sorted({min(max(index.nearest(t), clip.first), clip.last) for t in grid})
        if len(picked) > n:
            picked = [picked[k] for k in uniform_offsets("uniform", len(picked), n)]
        return picked

    def select(self, index: VideoIndex, clip: Clip, n: int) -> Selection:
        idx = tuple(self.offsets(index, clip, n))
        return Selection(self.name, idx, tuple(index.time_of(i) for i in idx))


def uniform_offsets(rule: str, N: int, n: int) -> list[int]:
    """Offsets 0 … N-1 chosen by a uniform rule (all of them when n >= N)."""
    if n >= N:
        return list(range(N))
    if rule == "uniform":
        raw = np.linspace(0, N - 1, n, dtype=int).tolist()
    elif rule == "uniform-round":
        raw = np.linspace(0, N - 1, n).round().astype(int).tolist()
    elif rule == "uniform-center":
        raw = [((2 * k + 1) * N) // (2 * n) for k in range(n)]
    elif rule == "uniform-start":
        raw = [(k * N) // n for k in range(n)]
    else:
        raise ValueError(f"unknown uniform rule {rule!r} (known: {', '.join(UNIFORM_RULES)})")
    return sorted(set(raw))


def parse_policy(spec: str) -> Policy:
    """Parse ``uniform``, ``uniform-center``, ``fps:1``, ``fps-end:0.5``, ``at:1.5,3``, ``last``."""
    s = spec.strip().lower()
    if s in UNIFORM_RULES or s == "last":
        return Policy(name=s, kind=s)
    kind, _, arg = s.partition(":")
    try:
        if kind in ("fps", "fps-end"):
            rate = float(arg)
            if not rate > 0:
                raise ValueError
            return Policy(name=f"{kind}:{rate:g}", kind=kind, rate=rate)
        if kind == "at":
            times = tuple(float(x) for x in arg.split(",") if x.strip())
            if not times or any(t < 0 for t in times):
                raise ValueError
            return Policy(name="at:" + ",".join(f"{t:g}" for t in times), kind="at", times=times)
    except ValueError:
        pass
    raise ValueError(
        f"unknown frame policy {spec!r}; known: {', '.join(POLICY_NAMES)} (R a positive rate in frames per "
        "second, T times in seconds), e.g. --frame-policy uniform or --frame-policy fps-end:1"
    )


def sampled_indices(n_frames: int, n: int) -> NDArray[np.int64]:
    """Frame indices the default ``uniform`` policy shows for ``n`` frames of a video of ``n_frames``."""
    return np.asarray(uniform_offsets("uniform", n_frames, n), dtype=np.int64)
