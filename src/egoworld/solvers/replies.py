"""Replies in the form the prompts ask for: an option letter, a time + point line."""

from __future__ import annotations

from egoworld.core.letters import letters_for
from egoworld.scoring.timepoint import time_token


def letter(i: int) -> str:
    """The letter of presented option ``i`` (0 → "A")."""
    return letters_for(i + 1)[i]


def time_point_text(t: float, x: float, y: float) -> str:
    """``<TIME 00:00:07.5 video 1>; Point=(0.2500, 0.7500)``."""
    return f"{time_token(t)}; Point=({x:.4f}, {y:.4f})"
