"""The rasteriser's remap: one compiled loop gives exactly what the numpy gathers gave; the worker threading;
the range read off a 32-bit float depth buffer."""

from __future__ import annotations

import os
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from egoworld.sim import worldset
from egoworld.sim.actions.synth import ActionConfig
from egoworld.sim.render import gl
from egoworld.sim.render.remap import remap
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.world_cameras import aria_fisheye


def _numpy_remap(words, depth, lut, range_k):  # type: ignore[no-untyped-def]
    """The numpy reference: two gathers, the id word, the RGB bytes, the float32 division."""
    w = np.take(words, lut)
    rgb = np.stack([(w >> s) & 0xFF for s in (0, 8, 16)], axis=-1).astype(np.uint8)
    ids = (w >> 32).astype(np.uint32).view(np.int32)
    with np.errstate(divide="ignore", invalid="ignore"):
        rng = range_k / np.take(depth, lut)
    return rgb, ids, rng, np.flatnonzero(np.isinf(rng))


def test_remap_matches_the_numpy_gathers_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    atlas = 5000
    rgb24 = rng.integers(0, 1 << 24, atlas, dtype=np.uint64)
    ids = rng.integers(0, 1 << 31, atlas, dtype=np.uint64)
    words = rgb24 | (ids << np.uint64(32))
    depth = rng.uniform(1e-4, 1.0, atlas).astype(np.float32)
    depth[rng.choice(atlas, 300, replace=False)] = 0.0  # nothing drawn there: range inf
    lut = rng.integers(0, atlas, 7000).astype(np.int64)
    range_k = rng.uniform(0.02, 0.05, 7000).astype(np.float32)
    range_k[rng.choice(7000, 500, replace=False)] = np.nan  # outside the image
    got = remap(words, depth, lut, range_k)
    want = _numpy_remap(words, depth, lut, range_k)
    assert got[0].shape == (7000, 3) and got[0].dtype == np.uint8
    assert np.array_equal(got[0], want[0])
    assert got[1].dtype == np.int32 and np.array_equal(got[1], want[1])
    assert got[2].dtype == np.float32 and np.array_equal(got[2].view(np.uint32), want[2].view(np.uint32))
    assert len(want[3]) > 0 and np.array_equal(got[3], want[3])
    # a negative id word round-trips (int32 view of the high word)
    top = np.array([np.uint64(0xFFFFFFFF) << np.uint64(32)], np.uint64)
    assert remap(top, np.ones(1, np.float32), np.zeros(1, np.int64), np.ones(1, np.float32))[1][0] == -1


def test_workers_rasterise_on_their_own_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LP_NUM_THREADS", raising=False)
    monkeypatch.setattr(gl, "_CONTEXT", {})
    gl.one_rasteriser_thread()
    assert os.environ["LP_NUM_THREADS"] == "0"
    monkeypatch.setenv("LP_NUM_THREADS", "3")  # the user's choice stands
    gl.one_rasteriser_thread()
    assert os.environ["LP_NUM_THREADS"] == "3"
    monkeypatch.delenv("LP_NUM_THREADS")
    monkeypatch.setattr(gl, "_CONTEXT", {os.getpid(): object()})  # a context exists: its threads are set
    gl.one_rasteriser_thread()
    assert "LP_NUM_THREADS" not in os.environ


def test_pool_workers_are_made_through_the_one_thread_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--jobs N` hands every episode to `_build_in_worker` (which sets the worker's rasteriser thread)."""
    submitted = []

    class Pool:
        def __init__(self, **kwargs: object) -> None:
            pass

        def __enter__(self) -> Pool:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def submit(self, fn, job, out):  # type: ignore[no-untyped-def]
            submitted.append(fn)
            fut: Future[Path] = Future()
            fut.set_result(out / job.episode_id)
            return fut

    monkeypatch.setattr(worldset, "ProcessPoolExecutor", Pool)
    jobs = [worldset.Job("actions", eid, 0, ActionConfig()) for eid in worldset.episode_ids("actions", 2)]
    worldset.run_jobs(jobs, tmp_path, workers=2)
    assert submitted == [worldset._build_in_worker] * 2


def test_the_range_comes_from_a_float_depth_buffer() -> None:
    """glClipControl and the 32-bit float depth storage were found: the range is exact to float rounding (else
    it would silently fall to about 1e-5 of itself)."""
    assert Renderer(aria_fisheye(64)).exact_depth
