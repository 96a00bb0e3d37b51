"""Image encoding: lossless PNG for decoded frames; image files pass through byte-exact when they can."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from egoworld.media.errors import MediaError
from egoworld.media.overlays import output_size

PNG = "image/png"
_PASS_THROUGH = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


def png_bytes(rgb: np.ndarray) -> bytes:
    """PNG of an RGB array (zlib level 3: lossless, a third of the time of the default level)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8)).save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def png_pixels(data: bytes) -> np.ndarray:
    """Decode PNG (or any Pillow-readable) bytes to an RGB array."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGB"))


def image_file(path: str | Path, max_pixels: int) -> tuple[bytes, str]:
    """An image file as (bytes, mime): the file itself when it is PNG/JPEG/WebP within the pixel budget
    (byte-exact), otherwise resized with area averaging and encoded as PNG."""
    from PIL import Image, UnidentifiedImageError

    path = Path(path)
    try:
        data = path.read_bytes()
        with Image.open(io.BytesIO(data)) as img:
            fmt = img.format or ""
            w, h = img.size
            target = output_size(w, h, max_pixels)
            if target == (w, h) and fmt in _PASS_THROUGH:
                return data, _PASS_THROUGH[fmt]
            rgb = img.convert("RGB")
            if target != (w, h):
                rgb = rgb.resize(target, Image.Resampling.BOX)
            return png_bytes(np.asarray(rgb)), PNG
    except (OSError, UnidentifiedImageError) as exc:
        raise MediaError(
            path, f"cannot read the image ({exc})", fix="replace it with a PNG or JPEG file"
        ) from exc
