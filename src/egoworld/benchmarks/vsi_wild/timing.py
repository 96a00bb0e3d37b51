"""Times and durations: ``HH:MM:SS`` stamps, the paper's duration groups and frame spacing (the frames a uniform
N-frame sample shows are `egoworld.media.policies.sampled_indices`)."""

from __future__ import annotations

#: duration groups of the paper (minutes): [lo, hi)
DURATION_GROUPS: tuple[tuple[str, float, float], ...] = (
    ("0-10", 0.0, 10.0),
    ("10-30", 10.0, 30.0),
    ("30-60", 30.0, 60.0),
    ("60-120", 60.0, 120.0),
    ("120+", 120.0, float("inf")),
)
GROUP_NAMES = tuple(g for g, _, _ in DURATION_GROUPS)


def duration_group(seconds: float) -> str:
    """The duration group (``"0-10"`` … ``"120+"`` minutes) of a video lasting ``seconds``."""
    minutes = float(seconds) / 60.0
    for name, lo, hi in DURATION_GROUPS:
        if lo <= minutes < hi:
            return name
    raise ValueError(f"a video duration must be ≥ 0 s, got {seconds}")


def hms(seconds: float) -> str:
    """``HH:MM:SS`` (rounded to the second)."""
    s = int(round(float(seconds)))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def frame_spacing(duration_s: float, n: int) -> float:
    """Spacing in seconds of ``n`` uniform frames over a video lasting ``duration_s``."""
    return float(duration_s) / max(n - 1, 1)
