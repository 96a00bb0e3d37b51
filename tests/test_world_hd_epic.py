"""HD-EPIC loaders on the real public files (../shared/data/hd-epic): facts, not just "it loads"."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from egoworld.geometry.transforms import world_to_camera
from egoworld.world import load_episode, location_at, save_episode
from egoworld.world.hd_epic import (
    iter_hd_epic_episodes,
    load_assoc_info,
    load_digital_twin,
    load_framewise_poses,
    load_rgb_camera,
    read_durations,
)

VIDEO = "P01-20240203-184045"  # the one video with camera poses


@pytest.fixture(scope="session")
def hd(data_dir: Path) -> Path:
    return data_dir / "hd-epic"


@pytest.fixture(scope="session")
def tracks(hd: Path):
    durations = read_durations(hd / "youtube-links" / "HD_EPIC_YouTube_URLs.csv")
    objects, report = load_assoc_info(hd / "scene-and-object-movements" / "assoc_info.json", durations)
    return objects, report, durations


@pytest.fixture(scope="session")
def fixtures(hd: Path):
    return {f.id: f for f in load_digital_twin(hd / "digital-twin" / "P01_final.glb", "P01")}


@pytest.fixture(scope="session")
def camera_and_poses(hd: Path):
    folder = hd / "intermediate-data" / "P01" / VIDEO
    camera, device_from_camera = load_rgb_camera(folder / "device_calibration.json")
    return camera, load_framewise_poses(folder / "framewise_info.jsonl", device_from_camera)


def test_track_counts_and_quirks(tracks) -> None:
    objects, report, durations = tracks
    assert (report.videos, report.objects, report.movements) == (156, 8382, 19812)
    per_participant = Counter(v.split("-")[0] for v in objects)
    assert per_participant == {
        "P01": 27,
        "P02": 19,
        "P03": 21,
        "P04": 18,
        "P05": 26,
        "P06": 11,
        "P07": 9,
        "P08": 12,
        "P09": 13,
    }
    assert sum(len(o) for o in objects.values()) == 8382
    assert sum(len(o.movements) for v in objects.values() for o in v) == 19812  # nothing dropped
    assert (report.reordered_objects, report.overlapping_pairs, len(report.clipped), report.dropped) == (
        132,
        189,
        6,
        [],
    )
    assert Counter(len(o.movements) for v in objects.values() for o in v)[1] == 4865
    assert max(len(o.movements) for v in objects.values() for o in v) == 38
    # every movement list is sorted and inside its video
    for video, objs in objects.items():
        for o in objs:
            keys = [(m.start_s, m.end_s) for m in o.movements]
            assert keys == sorted(keys)
            assert all(m.end_s <= durations[video] for m in o.movements)


def test_clipped_tracks_keep_their_annotated_end(tracks) -> None:
    objects, report, durations = tracks
    video, track_id, annotated_end, duration = report.clipped[0]
    assert (video, track_id, annotated_end, duration) == (
        "P01-20240203-132119",
        "e427532e03cdb2ec",
        1126.1333334,
        1125.133333,
    )
    move = next(m for o in objects[video] for m in o.movements if m.id == track_id)
    assert move.end_s == durations[video] == 1125.133333
    assert move.meta["annotated_end_s"] == 1126.1333334


def test_names_instances_and_categories(tracks) -> None:
    objects, report, _ = tracks
    every = [o for v in objects.values() for o in v]
    assert (report.unnamed_objects, report.skipped_objects) == (135, 1178)
    assert sum(o.name == "plate2" for o in every) == 51
    assert {o.category for o in every if o.name in ("plate2", "plate3")} == {"plate"}
    assert next(o for o in every if o.name == "lid of plastic box2").category == "lid of plastic box"
    unknown = [o for o in every if o.category == "unknown"]
    assert sum(o.meta.get("skipped", False) for o in unknown) == 1178
    names = {o.name: o for o in objects[VIDEO]}
    assert set(names) == {"chicken", "plastic container", "pot", "lid", "spatula", "pan", "heat diffuser"}
    assert [(m.start_s, m.end_s) for m in names["pot"].movements] == [
        (10.02649, 22.88081),
        (27.05165, 40.31127),
    ]
    assert names["pot"].movements[0].meta["masks"]  # mask ids kept for a later join with mask_info.json


def test_location_rule_on_overlapping_real_tracks(tracks) -> None:
    objects, _, _ = tracks
    knife = next(o for o in objects["P08-20240613-123547"] if o.id == "149014d6d9fd1a8f")
    # 499.896–561.586 s contains 514.05–514.977 s (an overlap kept as annotated)
    outer = [m.id for m in knife.movements].index("a29c61f72fe317f0")
    assert location_at(knife, 515.5).in_motion and location_at(knife, 515.5).movement == outer
    assert location_at(knife, 523.0).in_motion
    after = location_at(knife, 600.0)
    assert (after.status, after.since_s) == ("at", 561.58575)
    before = location_at(knife, 100.0)
    assert (before.status, before.since_s, before.movement) == ("at", None, None)


def test_digital_twin_fixtures_in_world_frame(fixtures) -> None:
    assert len(fixtures) == 41
    types = Counter(f.type for f in fixtures.values())
    assert (types["counter"], types["cupboard"], types["drawer"], types["shelf"], types["hook"]) == (
        9,
        9,
        5,
        5,
        2,
    )
    assert {f"P01_counter.00{i}" for i in range(1, 10)} <= set(fixtures)
    assert fixtures["P01_cupboard.009"].openable and not fixtures["P01_counter.001"].openable
    # the HD-EPIC README example location, annotated with fixture P01_cupboard.009
    example = np.array([-0.11, -3.13, -0.03])
    inside = [fid for fid, f in fixtures.items() if f.box.contains(example)]
    assert inside == ["P01_cupboard.009"]
    # counter tops at z ≈ -0.6 m, the floor at z ≈ -1.5 m (z up, from glTF (x, -z, y))
    tops = [f.box.bounds()[1][2] for f in fixtures.values() if f.type == "counter"]
    assert all(-0.63 < z < -0.57 for z in tops), tops
    assert -1.52 < fixtures["P01_floor.001"].box.bounds()[1][2] < -1.47
    # base units stand on the floor (on a ~11 cm plinth); wall cupboards hang above the counters
    floor = fixtures["P01_floor.001"].box.bounds()[1][2]
    for fid in (
        "P01_fridgefreezer.001",
        "P01_oven.001",
        "P01_dishwasher.001",
        "P01_drawer.001",
        "P01_storage.001",
    ):
        assert abs(fixtures[fid].box.bounds()[0][2] - floor) < 0.15, fid
    assert fixtures["P01_cupboard.009"].box.bounds()[0][2] > max(tops) + 0.4


def test_aria_camera_and_poses(camera_and_poses) -> None:
    camera, poses = camera_and_poses
    assert (camera.width, camera.height, camera.valid_radius) == (1408, 1408, 707.5)
    assert camera.fx == pytest.approx(611.057, abs=1e-3) and len(camera.radial) == 6
    assert len(poses) == 1535
    assert poses.times_s[0] == pytest.approx(44 / 30)  # frames 0–43 have no SLAM pose
    assert poses.times_s[-1] == pytest.approx(1578 / 30)
    # before the first pose and in the pose-less tail, the nearest frame with a pose is used
    np.testing.assert_array_equal(poses.nearest(0.0, fps=30), poses.matrices[0])
    np.testing.assert_array_equal(poses.nearest(52.8, fps=30), poses.matrices[-1])
    # the calibration's camera frame is upright: its y axis points down in the z-up world
    down = -poses.matrices[:, 2, 1]
    assert np.median(down) > 0.8


def test_poses_and_fixtures_share_a_frame(camera_and_poses, fixtures) -> None:
    camera, poses = camera_and_poses
    heights = poses.positions[:, 2]
    floor = fixtures["P01_floor.001"].box.bounds()[1][2]
    counter = fixtures["P01_counter.001"].box.bounds()[1][2]
    eye = float(np.median(heights))
    print(f"camera z median {eye:.3f} m; floor top {floor:.3f}; counter top {counter:.3f}")
    assert 1.3 < eye - floor < 1.7  # a standing wearer's eyes
    assert 0.3 < eye - counter < 0.8
    assert 0.85 < counter - floor < 0.95  # counter height
    lo, hi = fixtures["P01_floor.001"].box.bounds()
    xy = poses.positions[:, :2]
    on_floor = np.mean(np.all((xy >= lo[:2]) & (xy <= hi[:2]), axis=1))
    assert on_floor > 0.9  # measured 0.965: the wearer walks on the modelled floor

    # the video shows cooking (chicken, pot, pan, heat diffuser): the hob is in the fisheye view most of the
    # time, the sink behind the wearer rarely
    def seen(fid: str) -> float:
        centre = np.broadcast_to(np.asarray(fixtures[fid].box.center), (len(poses), 3))
        return float(camera.visible(world_to_camera(centre, poses.matrices)).mean())

    hob, sink = seen("P01_hob.001"), seen("P01_sink.001")
    print(f"hob in view {hob:.3f}, sink in view {sink:.3f}")
    assert hob > 0.8 and sink < 0.3


def test_episode_import_round_trip_and_cli(hd: Path, tmp_path: Path) -> None:
    (ep,) = iter_hd_epic_episodes(hd, videos=[VIDEO])
    assert (ep.fps, ep.duration_s, len(ep.fixtures), len(ep.objects), len(ep.poses)) == (
        30.0,
        52.833333,
        41,
        7,
        1535,
    )
    assert ep.camera.kind == "fisheye" and ep.meta["participant"] == "P01"
    assert set(ep.source["files"]) == {
        "scene-and-object-movements/assoc_info.json", "digital-twin/P01_final.glb",
        f"intermediate-data/P01/{VIDEO}/device_calibration.json", f"intermediate-data/P01/{VIDEO}/framewise_info.jsonl",
    }  # fmt: skip
    a, b = save_episode(ep, tmp_path / "a"), save_episode(ep, tmp_path / "b")
    digest = lambda d: {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in d.iterdir()}  # noqa: E731
    assert digest(a) == digest(b)
    loaded = load_episode(a)
    assert loaded == ep
    np.testing.assert_allclose(loaded.pose_at(10.0), ep.pose_at(10.0))

    from egoworld.cli import app

    runner = CliRunner()
    out = tmp_path / "world"
    res = runner.invoke(
        app,
        [
            "world",
            "import",
            "hd-epic",
            str(hd),
            "--out",
            str(out),
            "--video-id",
            VIDEO,
            "--video-id",
            "P02-20240209-194141",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "8382 objects, 19812 movements" in res.output
    res = runner.invoke(app, ["world", "show", str(out)])
    assert res.exit_code == 0 and "2 episodes" in res.output
    png = tmp_path / "p01.png"
    res = runner.invoke(app, ["world", "show", str(out), "--episode", VIDEO, "--png", str(png)])
    assert res.exit_code == 0, res.output
    assert "fixtures 41 (18 openable)" in res.output and "poses    1535" in res.output
    assert "overview plot" in res.output and Image.open(png).size[0] > 800
    res = runner.invoke(
        app, ["world", "import", "hd-epic", str(hd), "--out", str(out), "--video-id", "P01-nope"]
    )
    assert res.exit_code == 2 and "no video P01-nope" in res.output
