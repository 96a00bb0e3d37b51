"""Old spellings kept as hidden aliases: a folder once given as a positional argument is now ``--bench DIR``
or ``--run DIR`` in every command (one meaning per flag), and the positional form still works."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.errors import fail


def one_folder(given: Path | None, old: Path | None, flag: str) -> Path:
    """The folder of ``flag`` (e.g. ``--run``), or the old positional spelling; both or neither fails."""
    if given is not None and old is not None and given != old:
        fail(f"{flag} {given} and the positional {old}: give the folder once, as {flag} DIR")
    folder = given if given is not None else old
    if folder is None:
        fail(f"missing {flag} DIR")
    return folder


def folders(given: list[Path] | None, old: list[Path] | None, flag: str) -> list[Path]:
    """The folders of a repeatable ``flag`` followed by any given the old positional way; none fails."""
    chosen = [*(given or []), *(old or [])]
    if not chosen:
        fail(f"missing {flag} DIR (repeatable: {flag} A {flag} B)")
    return chosen
