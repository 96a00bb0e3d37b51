"""The one table of earlier spellings still accepted: ``explore score`` / ``explore report`` take their run
folders as ``--run DIR`` or, hidden, as positional arguments (every other command's earlier spellings were
dropped in 0.1.0)."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.errors import fail


def folders(given: list[Path] | None, old: list[Path] | None, flag: str) -> list[Path]:
    """The folders of a repeatable ``flag`` followed by any given the old positional way; none fails."""
    chosen = [*(given or []), *(old or [])]
    if not chosen:
        fail(f"missing {flag} DIR (repeatable: {flag} A {flag} B)")
    return chosen
