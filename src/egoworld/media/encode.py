"""Image encoding: decoded frames as PNG (lossless, the default), JPEG or WebP (`egoworld.media.formats`);
image files pass through byte-exact when they can."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from egoworld.media.formats import ImageFormat, parse_image_format
from egoworld.media.media_error import MediaError
from egoworld.media.overlays import output_size

PNG = "image/png"
_PASS_THROUGH = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


def png_bytes(rgb: np.ndarray) -> bytes:
    """PNG of an RGB array (zlib level 3: lossless, a third of the time of the default level)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8)).save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def encode_image(rgb: np.ndarray, fmt: ImageFormat) -> bytes:
    """An RGB array in ``fmt``: PNG (lossless), JPEG (4:2:0, baseline) or WebP (lossy) at its quality.
    The same pixels and libraries give the same bytes."""
    if fmt.lossless:
        return png_bytes(rgb)
    from PIL import Image

    buf = io.BytesIO()
    img = Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8))
    if fmt.name == "jpeg":
        img.save(buf, format="JPEG", quality=fmt.quality, subsampling="4:2:0")
    else:
        img.save(buf, format="WEBP", quality=fmt.quality, method=4)
    return buf.getvalue()


def png_pixels(data: bytes) -> np.ndarray:
    """Decode PNG (or any Pillow-readable) bytes to an RGB array."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGB"))


def image_file(path: str | Path, max_pixels: int, fmt: ImageFormat | None = None) -> tuple[bytes, str]:
    """An image file as (bytes, mime): the file itself when it is within the pixel budget and already
    compact for ``fmt`` (PNG/JPEG/WebP files for png; JPEG/WebP files for the lossy formats), otherwise
    resized with area averaging and encoded in ``fmt`` (default png)."""
    from PIL import Image, UnidentifiedImageError

    fmt = fmt or parse_image_format(None)
    passes = _PASS_THROUGH if fmt.lossless else {k: v for k, v in _PASS_THROUGH.items() if k != "PNG"}
    path = Path(path)
    try:
        data = path.read_bytes()
        with Image.open(io.BytesIO(data)) as img:
            kind = img.format or ""
            w, h = img.size
            target = output_size(w, h, max_pixels)
            if target == (w, h) and kind in passes:
                return data, passes[kind]
            rgb = img.convert("RGB")
            if target != (w, h):
                rgb = rgb.resize(target, Image.Resampling.BOX)
            return encode_image(np.asarray(rgb), fmt), fmt.mime
    except (OSError, UnidentifiedImageError) as exc:
        raise MediaError(
            path, f"cannot read the image ({exc})", fix="replace it with a PNG or JPEG file"
        ) from exc
