"""The MP4 writer: real H.264 files that decode back, and the same frames always give the same bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from egoworld.core.folders.hashing import sha256_file
from egoworld.media.writer import VideoWriter, read_video
from egoworld.sim.arrays import load_npz, save_npz


def _frames(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    base = rng.integers(0, 255, (6, 8, 3), dtype=np.uint8)
    frames = []
    for i in range(n):
        img = np.kron(np.roll(base, i, axis=1), np.ones((8, 8, 1), np.uint8))  # 48×64 blocks, moving
        frames.append(np.ascontiguousarray(img))
    return frames


def _write(path: Path, frames: list[np.ndarray]) -> Path:
    with VideoWriter(path, 2.0, (64, 48)) as vw:
        for f in frames:
            vw.write(f)
    return path


def test_video_decodes_back_and_is_byte_identical(tmp_path: Path) -> None:
    frames = _frames(7)
    a = _write(tmp_path / "a.mp4", frames)
    b = _write(tmp_path / "b" / "b.mp4", frames)
    assert sha256_file(a) == sha256_file(b)
    decoded = read_video(a)
    assert decoded.shape == (7, 48, 64, 3)
    err = decoded.astype(float) - np.stack(frames).astype(float)
    psnr = 10 * np.log10(255**2 / np.mean(err**2))
    assert psnr > 28, psnr
    import av

    with av.open(str(a)) as c:
        s = c.streams.video[0]
        assert s.codec_context.name == "h264" and s.average_rate == 2
        assert c.format.name.startswith("mov")
    other = _write(tmp_path / "c.mp4", frames[::-1])
    assert sha256_file(other) != sha256_file(a)
    assert not list(tmp_path.glob(".*.tmp"))


def test_failed_video_leaves_no_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError), VideoWriter(tmp_path / "x.mp4", 2.0, (64, 48)) as vw:
        vw.write(np.zeros((10, 10, 3), np.uint8))
    assert list(tmp_path.iterdir()) == []


def test_npz_is_byte_stable(tmp_path: Path) -> None:
    arrays = {"a": np.arange(5), "names": np.array(["x", "yy"]), "m": np.eye(3, dtype=np.float32)}
    save_npz(tmp_path / "one.npz", **arrays)
    save_npz(tmp_path / "two.npz", **arrays)
    assert sha256_file(tmp_path / "one.npz") == sha256_file(tmp_path / "two.npz")
    back = load_npz(tmp_path / "one.npz")
    assert back["names"].tolist() == ["x", "yy"] and back["m"].dtype == np.float32
