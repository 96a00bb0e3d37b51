"""Byte-stable ``.npz`` files: `save_npz` writes arrays with fixed zip timestamps (numpy's own ``savez``
stamps the current time into the archive, so two identical runs would differ). Read with ``np.load``."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from egoworld.core.folders.files import atomic_open

_EPOCH = (1980, 1, 1, 0, 0, 0)


def save_npz(path: str | Path, **arrays: ArrayLike) -> Path:
    """Write ``arrays`` (names sorted) as a deflate-compressed ``.npz``; no pickled objects allowed."""
    path = Path(path)
    with atomic_open(path, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue(), compresslevel=6)
    return path


def load_npz(path: str | Path) -> dict[str, np.ndarray]:
    """All arrays of an ``.npz`` file (loaded eagerly, no pickles)."""
    with np.load(Path(path), allow_pickle=False) as data:
        return {k: data[k] for k in data.files}
