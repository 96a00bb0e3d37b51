"""The initial-scene image as a request part (content-hashed, read lazily)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from egoworld.core.folders.hashing import sha256_file
from egoworld.core.model import ImagePart

MIME = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
}


@lru_cache(maxsize=4096)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    return sha256_file(path)


def image_part(path: str | Path, label: str | None = None) -> ImagePart:
    """An `ImagePart` for a file; its key identity is the sha256 of the bytes, never the path."""
    p = Path(path)
    st = p.stat()
    mime = MIME.get(p.suffix.lower())
    if mime is None:
        raise ValueError(f"{p}: unsupported image type {p.suffix!r} (expected {', '.join(MIME)})")
    return ImagePart(
        sha256=_digest(str(p), st.st_mtime_ns, st.st_size),
        mime=mime,
        load=p.read_bytes,
        label=label,
    )
