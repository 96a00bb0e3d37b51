"""Redact secrets before anything is stored: API keys live in environment variables and nowhere else.

A server may echo the request's ``Authorization`` header or key in an error body; `redact` replaces the
value of every secret-looking environment variable (``*API_KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``)
and any bearer token with ``[redacted]`` before a response, an error or a request is written.
"""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_KEY_LIKE = re.compile(r"\b(sk|hf|gsk|xai)-?[A-Za-z0-9_-]{16,}\b")
MIN_SECRET_LENGTH = 6  # shorter values ("1", "yes") would redact ordinary text
REDACTED = "[redacted]"


def secret_values(extra_names: tuple[str, ...] = ()) -> list[str]:
    """Values of secret-looking environment variables (and of ``extra_names``), longest first."""
    values = {
        v
        for k, v in os.environ.items()
        if (_SECRET_NAME.search(k) or k in extra_names) and len(v) >= MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str | None, extra_names: tuple[str, ...] = ()) -> str | None:
    """``text`` with every secret value, bearer token and provider-style key replaced by ``[redacted]``."""
    if not text:
        return text
    for value in secret_values(extra_names):
        if value in text:
            text = text.replace(value, REDACTED)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _KEY_LIKE.sub(REDACTED, text)
