"""Failures of the machine rather than of the input (full disk, permissions, a damaged database), as one line
that says what happened and what to do — for the command line, which prints it instead of a traceback."""

from __future__ import annotations

import errno
import sqlite3

RESUME = "rerun the same command afterwards: it resumes and keeps what was stored"


def explain_failure(exc: BaseException) -> str | None:
    """A one-line explanation of ``exc`` with the fix, or None when it is not a known machine failure."""
    if isinstance(exc, OSError):
        where = f" writing {exc.filename}" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"the disk is full{where} ({exc.strerror}); free some space, then {RESUME}"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"no permission{where} ({exc.strerror}); choose a writable --out folder"
        return f"{exc.strerror or exc}{where}"
    if isinstance(exc, sqlite3.Error):
        text = str(exc)
        if "disk is full" in text or "database or disk is full" in text:
            return f"the disk is full (SQLite: {text}); free some space, then {RESUME}"
        if "locked" in text:
            return f"a database is locked by another process (SQLite: {text}); wait for it, then {RESUME}"
        return f"SQLite error: {text}; if a run folder's responses.sqlite is damaged, move it aside and rerun"
    return None
