"""The rasteriser's last step: every output pixel reads its atlas pixel (RGB, instance id, range) in one pass.

The atlas comes back from OpenGL as two buffers (`egoworld.sim.render.gl`): per pixel one 64-bit word (RGB8 in the
low 24 bits, the instance id in the high 32) and the window depth near / z. Each output pixel ``i`` reads
atlas pixel ``lut[i]`` and gets its RGB bytes, its id and its range ``range_k[i] / depth`` (``inf`` where
nothing was drawn, ``nan`` outside the image, where ``range_k`` is nan). numpy needs six passes over the
image for this (two gathers, the id copy, the RGB unpack, the division, the search for undrawn pixels), each
reading and writing whole arrays; one compiled loop (numba) reads each atlas word once, and is about half the
CPU time (`bench/sim_render.py`, DEVELOPERS.md "Renderer speed"). The results are the same bits: the range is
the same float32 division.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

INSTALL_HINT = "the renderer's remap needs numba: `pip install numba` (extra 'sim')"


def _compile() -> Any:
    """The compiled loop (numba; its machine code cached on disk — beside this module, or in the user's cache
    folder where this one cannot be written — so later processes load it instead of compiling)."""
    try:
        import numba
    except ImportError as exc:
        raise RuntimeError(INSTALL_HINT) from exc

    @numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
    def remap_into(words, depth, lut, range_k, rgb, ids, rng, undrawn):  # type: ignore[no-untyped-def]
        n_undrawn = 0
        for i in range(lut.size):
            j = lut[i]
            w = words[j]
            rgb[3 * i] = np.uint8(w & 0xFF)
            rgb[3 * i + 1] = np.uint8((w >> 8) & 0xFF)
            rgb[3 * i + 2] = np.uint8((w >> 16) & 0xFF)
            ids[i] = np.int32(w >> 32)
            r = range_k[i] / depth[j]
            rng[i] = r
            if r == np.inf:
                undrawn[n_undrawn] = i
                n_undrawn += 1
        return n_undrawn

    return remap_into


_KERNEL: list[Any] = []


def load() -> None:
    """Compile the loop, or load it from numba's cache (once per process: about 0.5 s with numba's import;
    `egoworld.sim.render.renderer.Renderer` calls this when it is made, not in its first frame)."""
    if not _KERNEL:
        kernel = _compile()
        u64, f32, i64 = np.empty(0, np.uint64), np.empty(0, np.float32), np.empty(0, np.int64)
        # one empty call loads (or compiles) the machine code for the types it runs on
        kernel(u64, f32, i64, f32, np.empty(0, np.uint8), np.empty(0, np.int32), f32, i64)
        _KERNEL.append(kernel)


def remap(
    words: NDArray[np.uint64],
    depth: NDArray[np.float32],
    lut: NDArray[np.int64],
    range_k: NDArray[np.float32],
) -> tuple[NDArray[np.uint8], NDArray[np.int32], NDArray[np.float32], NDArray[np.int64]]:
    """Per output pixel (``lut``'s length ``n``): RGB ``(n, 3)`` uint8, ids ``(n,)`` int32 and range ``(n,)``
    float32 read from the atlas buffers ``words`` and ``depth`` (see the module), and the indices of the output
    pixels where nothing was drawn (range ``inf``), in increasing order."""
    load()
    n = lut.size
    rgb = np.empty(3 * n, np.uint8)
    ids = np.empty(n, np.int32)
    rng = np.empty(n, np.float32)
    undrawn = np.empty(n, np.int64)
    count = _KERNEL[0](words, depth, lut, range_k, rgb, ids, rng, undrawn)
    return rgb.reshape(n, 3), ids, rng, undrawn[:count].copy()
