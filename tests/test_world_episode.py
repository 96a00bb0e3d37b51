"""Episode model: validation, the HD-EPIC location rule, pose lookup, and the folder format
(byte-identical saves, refusal of bad files with file, line, field and reason)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from egoworld.core.folders.files import InputFileError
from egoworld.geometry.boxes import Box3D
from egoworld.geometry.cameras import FisheyeCamera, PinholeCamera
from egoworld.geometry.transforms import look_at, make_transform, rotation_about
from egoworld.world import (
    Action,
    Episode,
    EpisodeMedia,
    EpisodeObject,
    Fixture,
    Interval,
    Movement,
    PoseTrack,
    SceneGraph,
    SceneObject,
    find_episodes,
    load_episode,
    location_at,
    save_episode,
)


def _episode(**over) -> Episode:
    poses = PoseTrack(
        [0.0, 1.0, 2.0, 4.0],
        [look_at([x, 0, 1.6], [x + 1, 0.5, 0.9]) for x in (0.0, 0.5, 1.0, 2.0)],
    )
    fixtures = (
        Fixture(id="K_counter.001", label="counter.001", type="counter", box=Box3D.from_min_max([0, 1, 0], [2, 1.6, 0.9])),
        Fixture(
            id="K_cupboard.001", label="cupboard.001", type="cupboard", openable=True,
            box=Box3D(center=(1, -1, 1.5), size=(0.6, 0.4, 0.7), rotation=tuple(map(tuple, rotation_about("z", 30).tolist()))),
            open_intervals=(Interval(start_s=2.0, end_s=3.0),),
        ),
    )  # fmt: skip
    objects = (
        EpisodeObject(
            id="o1", category="plate", name="plate2",
            movements=(
                Movement(start_s=1.0, end_s=2.0, start_position=(0.5, 1.2, 0.9), end_position=(1.0, -1.0, 1.4),
                         start_fixture="K_counter.001", end_fixture="K_cupboard.001"),
                Movement(start_s=3.0, end_s=6.0, end_position=(1.5, 1.3, 0.9), end_fixture="K_counter.001"),
                Movement(start_s=4.0, end_s=5.0, end_position=(9.0, 9.0, 9.0)),  # overlaps, ends first
            ),
        ),
        EpisodeObject(id="o2", category="cup", name="cup", initial_position=(0.2, 1.3, 0.95), initial_fixture="K_counter.001"),
    )  # fmt: skip
    fields = dict(
        id="ep1",
        duration_s=10.0,
        fps=30.0,
        camera=FisheyeCamera.equidistant(448, 150.0),
        poses=poses,
        fixtures=fixtures,
        objects=objects,
        actions=(Action(start_s=0.5, end_s=1.5, text="C takes the plate", verb="take", noun="plate"),
                 Action(start_s=1.0, end_s=2.5, text="C opens the cupboard")),
        scene_graphs=(SceneGraph(label="final", time_s=10.0, objects=(
            SceneObject(category="plate", description="a white plate", relations=("in the cupboard",), key_state="stacked"),)),),
        media=EpisodeMedia(video="video.mp4", depth="depth", instances="instances"),
        source={"loader": "test"},
        meta={"seed": 7},
    )  # fmt: skip
    fields.update(over)
    return Episode(**fields)


def test_location_rule_before_during_after_and_overlaps() -> None:
    plate = _episode().object("o1")
    at = location_at(plate, 0.5)  # before the first movement: its start location
    assert (at.status, at.position, at.fixture, at.since_s, at.movement) == (
        "at",
        (0.5, 1.2, 0.9),
        "K_counter.001",
        None,
        None,
    )
    assert location_at(plate, 1.0).in_motion and location_at(plate, 1.999).in_motion
    done = location_at(plate, 2.0)  # a movement is complete at its end time
    assert (done.position, done.fixture, done.since_s, done.movement) == (
        (1.0, -1.0, 1.4),
        "K_cupboard.001",
        2.0,
        0,
    )
    assert location_at(plate, 2.9).position == (1.0, -1.0, 1.4)
    # 4–5 s ends inside 3–6 s: the object is still in motion until 6 s, then at the end of the latest completed one
    assert location_at(plate, 5.5).in_motion
    assert location_at(plate, 5.5).movement == 1
    after = location_at(plate, 7.0)
    assert (after.position, after.since_s, after.movement) == ((1.5, 1.3, 0.9), 6.0, 1)
    cup = _episode().object("o2")  # never moves: its initial location throughout
    assert location_at(cup, 9.0).position == (0.2, 1.3, 0.95)
    assert location_at(cup, 9.0).fixture == "K_counter.001"


def test_fixture_box_and_open_state() -> None:
    ep = _episode()
    cupboard = ep.fixture("K_cupboard.001")
    assert cupboard.is_open(2.5) and not cupboard.is_open(3.5)
    assert cupboard.box.contains([[1.0, -1.0, 1.4]])[0]  # where the plate was put
    # near the corner of the rotated box: inside it, but outside the same box without its rotation
    r = rotation_about("z", 30)
    corner = np.array([1, -1, 1.5]) + 0.29 * r[:, 0] + 0.19 * r[:, 1]
    assert cupboard.box.contains(corner)
    assert not Box3D(center=cupboard.box.center, size=cupboard.box.size).contains(corner)
    np.testing.assert_allclose(cupboard.box.to_local(corner), [0.29, 0.19, 0.0], atol=1e-12)
    assert cupboard.box.distance([[1, -1, 1.5 + 0.35 + 0.5]])[0] == pytest.approx(0.5)
    with pytest.raises(ValidationError, match="not openable"):
        Fixture(id="x", label="x", type="counter", box=Box3D.from_min_max([0, 0, 0], [1, 1, 1]),
                open_intervals=(Interval(start_s=0, end_s=1),))  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.update(actions=tuple(reversed(f["actions"]))), "actions must be sorted"),
        (lambda f: f.update(duration_s=5.5), "after the end of the video"),
        (
            lambda f: f.update(fixtures=f["fixtures"][:1]),
            "K_cupboard.001' is not among the episode's fixtures",
        ),
        (lambda f: f.update(objects=f["objects"] + f["objects"][:1]), "appears twice"),
    ],
)
def test_episode_refuses_inconsistent_content(change, message: str) -> None:
    base = _episode()
    fields = {k: getattr(base, k) for k in Episode.model_fields}
    change(fields)
    with pytest.raises(ValidationError, match=message):
        Episode(**fields)
    with pytest.raises(ValidationError, match="sorted by"):
        EpisodeObject(
            id="o",
            category="c",
            name="c",
            movements=(Movement(start_s=2, end_s=3), Movement(start_s=1, end_s=4)),
        )
    with pytest.raises(ValidationError, match="before start_s"):
        Movement(start_s=2, end_s=1)


def test_pose_lookup_frame_rule_and_interpolation() -> None:
    mats = [make_transform(rotation_about("z", a), [a, 0, 0]) for a in (0.0, 10.0, 20.0, 40.0)]
    # poses at frames 10, 11, 13, 20 of a 10 fps video (frame 12 has none)
    track = PoseTrack([1.0, 1.1, 1.3, 2.0], mats)
    assert track.nearest_index(1.04, fps=10).tolist() == 0  # frame round(10.4) = 10
    assert track.nearest_index(1.06, fps=10).tolist() == 1  # frame 11
    assert track.nearest_index(1.2, fps=10).tolist() == 2  # frame 12 has no pose: 11 and 13 tie → later
    assert track.nearest_index(0.0, fps=10).tolist() == 0  # before the first pose
    assert track.nearest_index([1.2, 5.0]).tolist() == [2, 3]  # plain nearest, ties → later
    mid = track.interpolate(1.65)
    np.testing.assert_allclose(mid[:3, 3], [30.0, 0, 0])
    np.testing.assert_allclose(mid[:3, :3], rotation_about("z", 30), atol=1e-12)
    np.testing.assert_allclose(track.interpolate([0.0, 9.0]), np.stack([mats[0], mats[-1]]), atol=1e-12)
    ep = _episode()
    np.testing.assert_array_equal(ep.pose_at(1.4), ep.poses.matrices[1])  # nearest to 1.4 s: the 1 s pose
    # 1.49 s is frame round(44.7) = 45 = 1.5 s, equally far from the 1 s and 2 s poses: the later one wins
    np.testing.assert_array_equal(ep.pose_at(1.49), ep.poses.matrices[2])
    with pytest.raises(ValueError, match="strictly increasing"):
        PoseTrack([0.0, 0.0], mats[:2])
    with pytest.raises(ValueError, match="rigid"):
        PoseTrack([0.0], [np.diag([2.0, 1, 1, 1])])


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_save_load_round_trip_is_byte_identical(tmp_path: Path) -> None:
    ep = _episode()
    a = save_episode(ep, tmp_path / "a")
    b = save_episode(_episode(), tmp_path / "b")
    assert _digest(a) == _digest(b)
    assert sorted(_digest(a)) == [
        "actions.jsonl", "episode.json", "fixtures.jsonl", "objects.jsonl", "poses.jsonl", "scene_graphs.jsonl",
    ]  # fmt: skip
    loaded = load_episode(a)
    assert loaded == ep
    np.testing.assert_array_equal(loaded.poses.matrices, ep.poses.matrices)
    c = save_episode(loaded, tmp_path / "c")
    assert _digest(c) == _digest(a)
    d = save_episode(_episode(meta={"seed": 8}), tmp_path / "d")
    assert _digest(d)["episode.json"] != _digest(a)["episode.json"]
    header = json.loads((a / "episode.json").read_text())
    assert header["format"] == "egoworld.episode/1" and header["camera"]["kind"] == "fisheye"
    assert header["counts"] == {"actions": 2, "fixtures": 2, "objects": 2, "poses": 4, "scene_graphs": 1}
    assert find_episodes(tmp_path) == [a, b, c, d] and find_episodes(a) == [a]
    # an episode without camera, poses or anything else also round-trips
    bare = Episode(id="bare", duration_s=1.0, fps=25, camera=PinholeCamera.from_fov(64, 48, 60))
    assert load_episode(save_episode(bare, tmp_path / "bare")) == bare


def _edit_line(path: Path, line: int, edit) -> None:
    rows = path.read_text().splitlines()
    obj = json.loads(rows[line - 1])
    edit(obj)
    rows[line - 1] = json.dumps(obj)
    path.write_text("\n".join(rows) + "\n")


@pytest.mark.parametrize(
    ("file", "line", "edit", "expected"),
    [
        ("objects.jsonl", 1, lambda o: o["movements"][1].update(end_s=2.5), r"objects.jsonl, line 1 \(id o1\): field 'movements.1': .*before start_s"),
        ("objects.jsonl", 2, lambda o: o.update(colour="red"), r"objects.jsonl, line 2 \(id o2\): field 'colour': Extra inputs"),
        ("objects.jsonl", 1, lambda o: o["movements"][0].update(end_fixture="K_fridge"), r"objects.jsonl, line 1: field 'movements.0.end_fixture': fixture 'K_fridge'"),
        ("actions.jsonl", 2, lambda o: o.update(end_s=12.0), r"actions.jsonl, line 2: field 'end_s': 12.0 s is after the end"),
        ("fixtures.jsonl", 1, lambda o: o["box"].update(size=[1, -1, 1]), r"fixtures.jsonl, line 1 \(id K_counter.001\): field 'box.size'"),
        ("poses.jsonl", 2, lambda o: o.update(t=0.0), r"poses.jsonl: pose times must be .*strictly increasing"),
        ("poses.jsonl", 3, lambda o: o["world_from_camera"][0].__setitem__(0, 3.0), r"poses.jsonl: poses must be rigid"),
    ],
)  # fmt: skip
def test_bad_files_are_refused_with_file_line_field_reason(
    tmp_path: Path, file: str, line: int, edit, expected: str
) -> None:
    folder = save_episode(_episode(), tmp_path / "ep")
    _edit_line(folder / file, line, edit)
    with pytest.raises(InputFileError, match=expected):
        load_episode(folder)


def test_bad_header_missing_and_truncated_files(tmp_path: Path) -> None:
    folder = save_episode(_episode(), tmp_path / "ep")
    header = json.loads((folder / "episode.json").read_text())
    header["camera"]["fx"] = -1
    (folder / "episode.json").write_text(json.dumps(header))
    with pytest.raises(
        InputFileError, match=r"episode.json: field 'camera.fisheye.fx': -1.0 must be greater than 0"
    ):
        load_episode(folder)
    folder = save_episode(_episode(), tmp_path / "ep2")
    (folder / "objects.jsonl").write_text((folder / "objects.jsonl").read_text().splitlines()[0] + "\n")
    with pytest.raises(InputFileError, match=r"objects.jsonl: 1 rows but episode.json counts 2"):
        load_episode(folder)
    (folder / "objects.jsonl").unlink()
    with pytest.raises(InputFileError, match=r"objects.jsonl: missing"):
        load_episode(folder)
    with pytest.raises(InputFileError, match=r"episode.json: not found"):
        load_episode(tmp_path / "nothing")
