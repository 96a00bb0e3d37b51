"""Visibility tracks on a hand-made episode: out of view, occluded (by a box, by depth media, inside a
closed fixture), visible when the fixture opens, in motion, not groundable, and the detection stage."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from egoworld.benchmarks.beyond3d.build.visibility_tracks import (
    DETECTED_VISIBLE,
    IN_MOTION,
    NOT_GROUNDABLE,
    OCCLUDED,
    OUT_OF_VIEW,
    VISUALLY_UNCONFIRMED,
    TrackConfig,
    build_tracks,
)
from egoworld.core.folders.files import InputFileError, write_jsonl
from egoworld.geometry.boxes import Box3D
from egoworld.geometry.cameras import PinholeCamera
from egoworld.geometry.transforms import look_at
from egoworld.world import (
    Episode,
    EpisodeMedia,
    EpisodeObject,
    Fixture,
    Interval,
    Movement,
    PoseTrack,
    load_episode,
    save_episode,
)
from egoworld.world.detections import DetectionTable

EYE = np.array([0.0, 0.0, 1.6])


def _pose(t: float) -> np.ndarray:
    ahead = 20 <= t < 40  # turned around between 20 s and 40 s
    return look_at(EYE, [0.0, -2.0, 0.9] if ahead else [0.0, 2.0, 0.9])


def hand_made_episode(media: EpisodeMedia = EpisodeMedia()) -> Episode:
    times = np.arange(0, 61, 1.0)
    fixtures = (
        Fixture(id="K_counter.001", label="counter.001", type="counter", box=Box3D.from_min_max([-1, 1.7, 0], [1, 2.3, 0.9])),
        Fixture(
            id="K_cupboard.001", label="cupboard.001", type="cupboard", openable=True,
            box=Box3D.from_min_max([0.4, 1.7, 1.0], [0.9, 2.0, 1.4]), open_intervals=(Interval(start_s=45, end_s=50),),
        ),
        Fixture(id="K_panel.001", label="panel.001", type="panel", box=Box3D.from_min_max([-0.6, 1.0, 0.8], [-0.1, 1.05, 1.6])),
    )  # fmt: skip
    objects = (
        EpisodeObject(
            id="a", category="mug", name="red mug", initial_position=(0.0, 2.0, 0.95), initial_fixture="K_counter.001",
            movements=(Movement(start_s=10, end_s=12, end_position=(0.2, 1.9, 0.95), end_fixture="K_counter.001"),),
        ),
        EpisodeObject(id="b", category="bowl", name="blue bowl", initial_position=(0.65, 1.85, 1.2), initial_fixture="K_cupboard.001"),
        EpisodeObject(id="c", category="apple", name="green apple", initial_position=(-0.6, 2.0, 0.95), initial_fixture="K_counter.001"),
        EpisodeObject(id="d", category="unknown", name="Track 7", initial_position=(0.3, 2.0, 0.95), meta={"unnamed": True}),
        EpisodeObject(id="e", category="spoon", name="spoon", movements=(Movement(start_s=5, end_s=6),)),
    )  # fmt: skip
    return Episode(
        id="hand", duration_s=60.0, fps=30.0, camera=PinholeCamera.from_fov(160, 120, 90.0),
        poses=PoseTrack(times, np.stack([_pose(t) for t in times])), fixtures=fixtures, objects=objects, media=media,
    )  # fmt: skip


def _states(tracks, oid: str) -> list[int]:
    return tracks.states[tracks.row(oid)].tolist()


def test_states_follow_view_occlusion_fixtures_and_motion() -> None:
    ep = hand_made_episode()
    tr = build_tracks(ep)
    assert tr.depth_source == "boxes" and tr.detector == "none"
    a = _states(tr, "a")
    assert a[:10] == [DETECTED_VISIBLE] * 10
    assert a[10:12] == [IN_MOTION] * 2
    assert a[12:20] == [DETECTED_VISIBLE] * 8
    assert a[20:40] == [OUT_OF_VIEW] * 20
    assert a[40:] == [DETECTED_VISIBLE] * 21
    b = _states(tr, "b")
    assert b[:20] == [OCCLUDED] * 20  # inside the closed cupboard
    assert b[45:51] == [DETECTED_VISIBLE] * 6 and b[51] == OCCLUDED  # open 45–50 s
    c = _states(tr, "c")
    assert c[:20] == [OCCLUDED] * 20 and c[20:40] == [OUT_OF_VIEW] * 20  # behind the panel
    assert set(_states(tr, "d")) == {NOT_GROUNDABLE}
    e = _states(tr, "e")
    assert e[5] == IN_MOTION and set(e[:5] + e[6:]) == {NOT_GROUNDABLE}  # no 3D location annotated
    assert tr.moves_done[tr.row("a")].tolist()[11:13] == [0, 1]
    assert tr.last_visible_before("a", 30.0) == 19.0
    assert tr.runs("a") == [(0.0, 9.0), (12.0, 19.0), (40.0, 60.0)]
    lv = tr.last_visible_index()[tr.row("a")]
    assert lv[25] == 19 and lv[11] == 11  # in motion counts as visible (the paper's v = 1)


def test_depth_media_gives_the_same_occlusions(tmp_path: Path) -> None:
    ep = hand_made_episode()
    times = np.arange(0, 61, 1.0)
    from egoworld.sim.render.backgrounds import SkyBackground
    from egoworld.sim.render.looks import Look
    from egoworld.sim.render.primitives import PartsBuilder
    from egoworld.sim.render.renderer import Renderer

    renderer, nothing = Renderer(ep.camera), SkyBackground(Look((0, 0, 0)), ground_z=-1e4)
    depth = []
    for t in times:  # what a depth camera sees: fixture boxes, an open cupboard shows its inside
        parts = PartsBuilder()
        for f in ep.fixtures:
            if not f.is_open(float(t)):
                b = f.box
                parts.add("box", b.center, np.asarray(b.size) / 2, Look((128, 128, 128)), rot=b.matrix)
        d = renderer.render(parts.build(), ep.pose_at(float(t)), nothing).depth
        depth.append(np.where(np.isfinite(d), d, np.nan))
    np.savez(tmp_path / "depth.npz", depth=np.stack(depth).astype(np.float32), times_s=times)
    ep2 = ep.model_copy(update={"media": EpisodeMedia(depth="depth.npz", depth_kind="range")})
    save_episode(ep2, tmp_path)
    loaded = load_episode(tmp_path)
    by_media = build_tracks(loaded, root=tmp_path)
    by_boxes = build_tracks(loaded, root=tmp_path, config=TrackConfig(depth="boxes"))
    assert by_media.depth_source == "media" and by_boxes.depth_source == "boxes"
    assert np.array_equal(by_media.states, by_boxes.states)
    none = build_tracks(loaded, root=tmp_path, config=TrackConfig(depth="none"))
    assert _states(none, "c")[:20] == [DETECTED_VISIBLE] * 20  # nothing blocks without a depth test
    assert _states(none, "b")[:20] == [OCCLUDED] * 20  # the closed-fixture rule needs no depth
    with pytest.raises(InputFileError, match="media.depth"):
        build_tracks(ep, config=TrackConfig(depth="media"))


def test_detection_stage_labels_whole_intervals(tmp_path: Path) -> None:
    ep = hand_made_episode()
    geo = build_tracks(ep)
    rows = []
    for k, t in enumerate(geo.times):
        dets = []
        u, v = geo.centre_uv[geo.row("a"), k]
        if (t <= 3 or 12 <= t <= 19) and np.isfinite(u):
            dets.append({"object": "a", "bbox": [u - 30, v - 30, u - 15, v - 15]})  # within the 20 px margin
        if t == 46:
            dets.append({"label": "Blue Bowl", "bbox": [0, 0, 1, 1]})  # far from the bowl: no match
        rows.append({"time_s": float(t), "detections": dets})
    write_jsonl(tmp_path / "detections.jsonl", rows)
    tr = build_tracks(ep, detections=DetectionTable.load(tmp_path / "detections.jsonl", ep.fps))
    a = _states(tr, "a")
    assert a[:10] == [VISUALLY_UNCONFIRMED] * 10  # 4 of 10 frames < half
    assert a[12:20] == [DETECTED_VISIBLE] * 8
    assert a[40:] == [VISUALLY_UNCONFIRMED] * 21
    assert _states(tr, "b")[45:51] == [VISUALLY_UNCONFIRMED] * 6
    assert tr.detected_frac[tr.row("a"), 0] == pytest.approx(0.4)
    tight = TrackConfig(detection_margin_px=2.0)
    assert (
        _states(
            build_tracks(
                ep, config=tight, detections=DetectionTable.load(tmp_path / "detections.jsonl", ep.fps)
            ),
            "a",
        )[12]
        == VISUALLY_UNCONFIRMED
    )


def test_bad_detection_file_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text('{"time_s": 1, "detections": []}\n{"detections": []}\n')
    with pytest.raises(InputFileError, match=r"d\.jsonl, line 2: field 'time_s'"):
        DetectionTable.load(tmp_path / "d.jsonl", 30.0)
    (tmp_path / "e.jsonl").write_text('{"time_s": 1, "detections": [{"bbox": [1, 2]}]}\n')
    with pytest.raises(InputFileError, match=r"line 1: detections\[0\]\.bbox"):
        DetectionTable.load(tmp_path / "e.jsonl", 30.0)


def test_tracks_need_a_camera_and_poses() -> None:
    ep = hand_made_episode().model_copy(update={"poses": None})
    with pytest.raises(InputFileError, match="camera poses"):
        build_tracks(ep)


def drawer_episode() -> Episode:
    """A drawer (open 20–30 s, sliding 0.6 m out towards the camera) behind a panel that hides its closed
    position but not its open one; a mug rests in it the whole time."""
    times = np.arange(0, 41, 1.0)
    fixtures = (
        Fixture(
            id="K_drawer.001", label="drawer.001", type="drawer", openable=True,
            box=Box3D.from_min_max([-0.3, 1.7, 0.4], [0.3, 2.3, 0.8]), open_intervals=(Interval(start_s=20, end_s=30),),
            meta={"open_offset_m": [0.0, -0.6, 0.0]},
        ),
        Fixture(id="K_panel.001", label="panel.001", type="panel", box=Box3D.from_min_max([-0.5, 1.6, 0.3], [0.5, 1.65, 0.9])),
    )  # fmt: skip
    mug = EpisodeObject(
        id="m", category="mug", name="red mug", initial_position=(0.0, 2.0, 0.6), initial_fixture="K_drawer.001",
        movements=(Movement(start_s=2, end_s=3, start_position=(0.0, 1.0, 0.6), end_position=(0.0, 2.0, 0.6), end_fixture="K_drawer.001"),),
    )  # fmt: skip
    pose = look_at(EYE, [0.0, 1.4, 0.6])
    return Episode(
        id="drawer", duration_s=40.0, fps=30.0, camera=PinholeCamera.from_fov(160, 120, 90.0),
        poses=PoseTrack(times, np.stack([pose for _ in times])), fixtures=fixtures, objects=(mug,),
    )  # fmt: skip


def test_an_open_drawers_content_is_judged_where_the_drawer_holds_it() -> None:
    tr = build_tracks(drawer_episode())
    row = tr.row("m")
    states = _states(tr, "m")
    assert states[20:31] == [DETECTED_VISIBLE] * 11  # out with the drawer, in front of the panel
    assert set(states[4:20] + states[31:]) == {OCCLUDED}  # in the closed drawer, behind the panel
    assert np.allclose(tr.positions[row, 25], (0.0, 1.4, 0.6))
    assert np.allclose(tr.positions[row, 15], (0.0, 2.0, 0.6))
