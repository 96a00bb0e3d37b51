"""Redact secrets before anything is stored: API keys live in environment variables and nowhere else.

A server may echo the request's ``Authorization`` header or key in an error body; `redact` replaces the
value of every secret-looking environment variable (``*API_KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``)
and any bearer token with ``[redacted]`` before a response, an error or a request is written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

_SECRET_NAME = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_KEY_LIKE = re.compile(r"\b(sk|hf|gsk|xai)-?[A-Za-z0-9_-]{16,}\b")
MIN_SECRET_LENGTH = 6  # shorter values ("1", "yes") would redact ordinary text
REDACTED = "[redacted]"
#: per ``extra_names``: the environment snapshot the values were read from, and the values
_cached: dict[tuple[str, ...], tuple[dict[Any, Any], tuple[str, ...]]] = {}


def secret_values(extra_names: tuple[str, ...] = ()) -> list[str]:
    """Values of secret-looking environment variables (and of ``extra_names``), longest first.

    Read once per state of the environment: a later call compares a snapshot of ``os.environ`` (one C-level
    dict comparison) and scans it again only when a variable was set, changed or removed since.
    """
    global _cached
    env = _environment()
    cached = _cached.get(extra_names)
    if cached is not None and cached[0] == env:
        return list(cached[1])
    snapshot = dict(env)  # taken before the scan: a change made during it is seen by the next call
    values = {
        v
        for k, v in os.environ.items()
        if (_SECRET_NAME.search(k) or k in extra_names) and len(v) >= MIN_SECRET_LENGTH
    }
    found = tuple(sorted(values, key=len, reverse=True))
    _cached = {**_cached, extra_names: (snapshot, found)}  # replaced whole: threads never see it half-made
    return list(found)


def _environment() -> Mapping[Any, Any]:
    """The environment as stored by ``os.environ`` (its raw mapping where CPython has one, else a copy)."""
    raw = getattr(os.environ, "_data", None)
    return raw if isinstance(raw, dict) else dict(os.environ)


def redact(text: str | None, extra_names: tuple[str, ...] = ()) -> str | None:
    """``text`` with every secret value, bearer token and provider-style key replaced by ``[redacted]``."""
    if not text:
        return text
    for value in secret_values(extra_names):
        if value in text:
            text = text.replace(value, REDACTED)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _KEY_LIKE.sub(REDACTED, text)
