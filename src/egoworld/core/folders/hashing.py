"""Stable hashing and seeded per-item randomness.

Never use Python's ``hash()`` (salted per process) or global random state: every random choice in
egoworld is derived from ``sha256(seed, key...)`` so that the same inputs give the same outputs.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any


def canonical_json(obj: Any) -> str:
    """Compact JSON with sorted keys: the same object always gives the same string."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_json(obj: Any) -> str:
    return sha256_text(canonical_json(obj))


def sha256_file(path: str | Path, *, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def stable_int(*parts: Any) -> int:
    """A 64-bit integer from ``sha256`` of the parts (joined canonically)."""
    digest = hashlib.sha256(canonical_json([str(p) for p in parts]).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def seeded_rng(*parts: Any) -> random.Random:
    """A private ``random.Random`` seeded from ``sha256(parts)``; e.g. ``seeded_rng(seed, sample_id)``."""
    return random.Random(stable_int(*parts))
