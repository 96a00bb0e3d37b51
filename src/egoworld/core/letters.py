"""Option letters: the one place that says which letter names the i-th presented choice."""

from __future__ import annotations


def letters_for(n: int) -> list[str]:
    """Option letters for ``n`` choices: ["A", "B", ...] (n <= 26)."""
    if not 0 <= n <= 26:
        raise ValueError(f"cannot letter {n} choices (at most 26)")
    return [chr(ord("A") + i) for i in range(n)]
