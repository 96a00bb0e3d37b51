"""Places from the video's look (`place_looks`): a cut where the look changes, a revisit joined by look —
on a real encoded video (the project's writer, PyAV decoding, OpenCV histograms)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from egoworld.media.writer import VideoWriter
from egoworld.perception.video.place_looks import LookSegmenter, look_visits

LOOKS = {  # (sky, façade, ground) colours of two places
    "street": ((150, 180, 230), (170, 90, 70), (90, 90, 95)),
    "park": ((150, 180, 230), (40, 110, 40), (80, 150, 60)),
}


def _frame(place: str, rng: np.random.Generator) -> np.ndarray:
    bands = [np.full((22, 128, 3), c, np.int16) for c in LOOKS[place]]
    img = np.concatenate(bands)[:64] + rng.integers(-12, 13, (64, 128, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def _walk(path: Path, stretches: list[tuple[str, float]], fps: float = 2.0) -> Path:
    rng = np.random.default_rng(0)
    with VideoWriter(path, fps, (128, 64)) as vw:
        for place, seconds in stretches:
            for _ in range(round(seconds * fps)):
                vw.write(_frame(place, rng))
    return path


def test_a_change_of_look_is_a_new_place_and_the_same_look_again_a_revisit(tmp_path: Path) -> None:
    video = _walk(tmp_path / "walk.mp4", [("street", 30.0), ("park", 30.0), ("street", 30.0)])
    visits, places, prov = look_visits(video, end_s=90.0)
    assert [v["place"] for v in visits] == ["place_000", "place_001", "place_000"], visits
    assert abs(visits[1]["start_s"] - 30.0) <= 1.0 and abs(visits[2]["start_s"] - 60.0) <= 1.0
    assert visits[0]["start_s"] == 0.0 and visits[-1]["end_s"] == 90.0 and len(places) == 2
    assert prov.backend == "look-changes" and prov.settings["cut"] == LookSegmenter().cut


def test_one_look_throughout_is_one_place_and_a_short_glimpse_is_no_place(tmp_path: Path) -> None:
    same = _walk(tmp_path / "same.mp4", [("park", 60.0)])
    assert [v["place"] for v in look_visits(same, end_s=60.0)[0]] == ["place_000"]
    glimpse = _walk(tmp_path / "glimpse.mp4", [("park", 40.0), ("street", 6.0), ("park", 40.0)])
    # 6 s of another look is shorter than a place (min_place_s): the walk stays one place throughout
    assert look_visits(glimpse, end_s=86.0)[0] == [{"place": "place_000", "start_s": 0.0, "end_s": 86.0}]


def test_looks_of_frames_decoded_elsewhere_equal_the_decoded_ones(tmp_path: Path) -> None:
    """`cut_views`'s frames fed to a `LookCollector` (the panorama decoded once) give the visits that
    `look_visits` gives decoding the video itself."""
    from egoworld.media.index import probe
    from egoworld.perception.video.place_looks import LookCollector, visits_from_looks
    from egoworld.world.panorama_views import cut_views

    video = _walk(tmp_path / "walk.mp4", [("street", 30.0), ("park", 30.0)])
    seg = LookSegmenter()
    collect = LookCollector(seg, probe(video))
    cut_views(video, tmp_path / "views", size=32, on_frame=collect.add)
    assert len(collect.times) == 60  # one look a second of the 2 frames/s video
    assert visits_from_looks(*collect.arrays(), 60.0, seg)[0] == look_visits(video, end_s=60.0)[0]
