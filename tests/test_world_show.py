"""``world show``: summary text, and a contact sheet when the episode has a video."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from egoworld.world import Episode, EpisodeMedia, save_episode
from egoworld.world.show import render_png, summarize

av = pytest.importorskip("av")


def _write_video(path: Path, seconds: int = 4, fps: int = 10) -> None:
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for i in range(seconds * fps):
            img = np.zeros((48, 64, 3), np.uint8)
            img[..., 0] = 255 * i // (seconds * fps)  # red grows with time
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


def test_contact_sheet_from_episode_video(tmp_path: Path) -> None:
    folder = tmp_path / "ep"
    folder.mkdir()
    _write_video(folder / "video.mp4")
    ep = Episode(id="v", duration_s=4.0, fps=10, media=EpisodeMedia(video="video.mp4"))
    save_episode(ep, folder)
    path, kind = render_png(ep, folder, tmp_path / "sheet.png")
    assert kind == "contact sheet"
    sheet = np.asarray(Image.open(path).convert("RGB"))
    assert sheet.shape == (3 * 240, 4 * 320, 3)  # 12 tiles of 320×240 in 4 columns
    # tiles run forward in time: the red channel grows from the first tile to the last
    first, last = (
        sheet[100:140, 100:140, 0].mean(),
        sheet[2 * 240 + 100 : 2 * 240 + 140, 3 * 320 + 100 : 3 * 320 + 140, 0].mean(),
    )
    assert last > first + 150
    assert "media    {'video': 'video.mp4'}" in summarize(ep)
    # without the video file the overview plot is drawn instead, and the kind says why
    (folder / "video.mp4").unlink()
    assert (
        render_png(ep, folder, tmp_path / "plot.png")[1]
        == "overview plot — its video video.mp4 was not found"
    )
