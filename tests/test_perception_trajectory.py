"""Perceived camera trajectories and places against a rendered sim walk's exact truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from egoworld.compare.trajectory_agreement import place_agreement, trajectory_agreement
from egoworld.core.folders.files import InputFileError, read_jsonl
from egoworld.geometry.cameras import PinholeCamera
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.odometry import OpenCVOdometry
from egoworld.perception.video.place_visits import place_visits, write_places
from egoworld.perception.video.poses_write import write_poses
from egoworld.perception.video.trajectory import Trajectory
from egoworld.perception.video.trajectory_import import read_colmap_text, read_mps, read_tum
from egoworld.sim.walk.synth import WalkConfig, synth_walk
from egoworld.world.episode_folder import load_episode

# 1.5 min at 4 frames/s: 360 frames, a 128 px front view, two places joined by a corner (seed 4)
WALK = WalkConfig(minutes=1.5, fps=4.0, pano_width=256, view_size=128, min_pixels=4)


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synth_walk(tmp_path_factory.mktemp("walk") / "w", "walk_000", 4, WALK)


def _front_camera(folder: Path) -> PinholeCamera:
    cam = load_episode(folder).meta["views"]["front"]["camera"]
    return PinholeCamera(**{k: v for k, v in cam.items() if k != "kind"})


def test_opencv_odometry_recovers_the_walk(walk: Path) -> None:
    truth = load_episode(walk).poses
    traj = OpenCVOdometry(camera=_front_camera(walk)).estimate(walk / "front.mp4")
    assert len(traj) == 360 and not traj.metric and traj.provenance.backend == "opencv-odometry"
    got = trajectory_agreement(traj, truth)
    print("odometry", got)
    # measured: ATE 3.96 % of the path before the walker looked aside while walking (38–52° for 25–80 s,
    # issue 23's diagonal motion), 8.3 % with it: the front view then moves diagonally for most of a leg
    assert got["ate_pct"] < 10.0 and got["rpe_pct"] < 1.0 and got["registration_rate"] > 0.3


@pytest.mark.slow
def test_pycolmap_recovers_the_walk(walk: Path) -> None:
    from egoworld.perception.video.colmap import ColmapEstimator

    truth = load_episode(walk).poses
    traj = ColmapEstimator(camera=_front_camera(walk)).estimate(walk / "front.mp4")
    got = trajectory_agreement(traj, truth)
    reg = trajectory_agreement(traj, truth, registered_only=True)
    print("pycolmap", got, reg, traj.notes)
    # measured (360 frames, 128 px, 4 frames/s): 49 % registered in the largest model (the map splits in
    # two or three at the corner between places: models 176 + 160 or 177 + 108 + 53 frames, thread-order
    # dependent), ATE 1.4–2.7 % of its path on the registered frames, 12.5–20.5 % over all frames (held ones
    # too: half the frames are interpolated, so this figure swings with the thread order; CI once measured 20.5 %
    # at the same 166-frame model) — the registered frames carry the assertion, the overall figure a loose bound
    assert len(traj) == 360 and traj.provenance.record()["version"] and traj.notes["models"][0] > 100
    assert got["registration_rate"] > 0.4 and got["ate_pct"] < 30.0 and reg["ate_pct"] < 5.0
    assert traj.summary()["unregistered_s"]  # reported, not dropped


def test_places_agree_with_the_true_visits(walk: Path, tmp_path: Path) -> None:
    ep = load_episode(walk)
    truth = list(read_jsonl(walk / "place_visits.jsonl"))
    assert len(truth) >= 2
    odo = OpenCVOdometry(camera=_front_camera(walk)).estimate(walk / "front.mp4")
    exact = Trajectory(ep.poses.times_s, ep.poses.matrices, Provenance("truth"))
    # measured: 1.00 and 0.03 s from the true poses; from odometry 0.81 before the walker looked aside while
    # walking, 0.49 with it (its larger drift adds false corners: weaker, said in README)
    for name, traj, least in (("truth poses", exact, 0.95), ("odometry", odo, 0.4)):
        visits, places, prov = place_visits(traj, end_s=ep.duration_s)
        got = place_agreement(visits, truth)
        print(name, got)
        assert got["time_agreement"] > least and got["perceived_places"] >= 2
    assert place_agreement(place_visits(exact, end_s=ep.duration_s)[0], truth)["boundary_error_s"] < 1.0
    # written into an episode folder the VSI-Super-Wild source reads
    import shutil

    folder = tmp_path / "ep"
    shutil.copytree(walk, folder)
    write_poses(folder, odo)
    write_places(folder, visits, places, prov)
    from egoworld.world.walk_source import load_source

    src = load_source(folder)
    assert [v.place for v in src.visits] == [v["place"] for v in visits] and set(src.places) <= {
        p["id"] for p in places
    }
    meta = load_episode(folder).meta["perception"]
    assert meta["poses"]["backend"] == "opencv-odometry" and meta["poses"]["metric"] is False
    assert meta["place_visits"]["backend"] == "trajectory-corners"
    assert np.allclose(src.episode.poses.matrices, odo.world_from_camera)


def _truth_traj(walk: Path) -> Trajectory:
    ep = load_episode(walk)
    return Trajectory(ep.poses.times_s[:40], ep.poses.matrices[:40], Provenance("truth"))


def test_tum_round_trip(walk: Path, tmp_path: Path) -> None:
    from scipy.spatial.transform import Rotation

    tr = _truth_traj(walk)
    q = Rotation.from_matrix(tr.world_from_camera[:, :3, :3]).as_quat()
    rows = [f"{t + 100:.6f} " + " ".join(f"{x:.9f}" for x in [*p, *qq]) for t, p, qq in
            zip(tr.times_s, tr.positions, q, strict=True)]  # fmt: skip
    (tmp_path / "t.txt").write_text("# timestamp tx ty tz qx qy qz qw\n" + "\n".join(rows) + "\n")
    back = read_tum(tmp_path / "t.txt")
    assert np.allclose(back.times_s, tr.times_s, atol=1e-6)
    assert np.allclose(back.world_from_camera, tr.world_from_camera, atol=1e-6) and not back.metric
    (tmp_path / "nan.txt").write_text(rows[0] + "\n" + rows[1].replace(rows[1].split()[2], "nan") + "\n")
    with pytest.raises(InputFileError, match=r"nan.txt, line 2, field 'tx': .*NaN"):
        read_tum(tmp_path / "nan.txt")


def test_colmap_text_round_trip(walk: Path, tmp_path: Path) -> None:
    import pycolmap

    tr = _truth_traj(walk)
    rec = pycolmap.Reconstruction()
    cam = pycolmap.Camera(model="PINHOLE", width=128, height=128, params=[64, 64, 64, 64], camera_id=1)
    rec.add_camera_with_trivial_rig(cam)
    for k, m in enumerate(tr.world_from_camera):
        inv = np.linalg.inv(m)
        pose = pycolmap.Rigid3d(pycolmap.Rotation3d(inv[:3, :3]), inv[:3, 3])
        rec.add_image_with_trivial_frame(
            pycolmap.Image(name=f"{k:06d}.png", camera_id=1, image_id=k + 1), pose
        )
    (tmp_path / "model").mkdir()
    rec.write_text(tmp_path / "model")
    back = read_colmap_text(tmp_path / "model", fps=WALK.fps)
    assert np.allclose(back.times_s, tr.times_s) and np.allclose(
        back.world_from_camera, tr.world_from_camera, atol=1e-6
    )


def test_mps_round_trip_is_metric(walk: Path, tmp_path: Path) -> None:
    from scipy.spatial.transform import Rotation

    tr = _truth_traj(walk)
    q = Rotation.from_matrix(tr.world_from_camera[:, :3, :3]).as_quat()
    head = "graph_uid,tracking_timestamp_us,utc_timestamp_ns,tx_world_device,ty_world_device,tz_world_device,"
    head += "qx_world_device,qy_world_device,qz_world_device,qw_world_device"
    rows = [f"g,{int(round(t * 1e6)) + 5000},0," + ",".join(f"{x:.9f}" for x in [*p, *qq]) for t, p, qq in
            zip(tr.times_s, tr.positions, q, strict=True)]  # fmt: skip
    (tmp_path / "closed_loop_trajectory.csv").write_text(head + "\n" + "\n".join(rows) + "\n")
    back = read_mps(tmp_path / "closed_loop_trajectory.csv")
    assert back.metric and np.allclose(back.world_from_camera, tr.world_from_camera, atol=1e-6)
    assert np.allclose(back.times_s, tr.times_s, atol=1e-6)
    (tmp_path / "bad.csv").write_text(head.replace(",qw_world_device", "") + "\n")
    with pytest.raises(InputFileError, match=r"bad.csv, line 1: missing columns qw_world_device"):
        read_mps(tmp_path / "bad.csv")


def test_undecodable_video_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(200))
    with pytest.raises(InputFileError, match="broken.mp4"):
        OpenCVOdometry().estimate(bad)


def test_odometry_on_the_panorama_tracks_its_front_view(walk: Path) -> None:
    """An equirectangular video (2:1) is cut into its front perspective view (geometry.equirect)."""
    traj = OpenCVOdometry().estimate(walk / "pano.mp4")
    got = trajectory_agreement(traj, load_episode(walk).poses)
    print("panorama odometry", got)
    assert traj.provenance.settings["view_size"] == 128 and got["ate_pct"] < 10.0  # measured 5.4 %


def test_write_poses_starts_an_episode_from_a_video(walk: Path, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "my_walk"
    folder.mkdir()
    shutil.copy(walk / "front.mp4", folder / "front.mp4")
    traj = _truth_traj(walk).scaled(2.0)
    write_poses(folder, traj, video=folder / "front.mp4")
    ep = load_episode(folder)
    assert ep.id == "my_walk" and ep.media.video == "front.mp4" and ep.fps == pytest.approx(WALK.fps)
    rec = ep.meta["perception"]["poses"]
    assert rec["metric"] is True and rec["scale_m_per_unit"] == 2.0 and rec["registration_rate"] == 1.0
    assert np.allclose(ep.poses.positions, 2.0 * _truth_traj(walk).positions)
    with pytest.raises(InputFileError, match="pass the video"):
        write_poses(tmp_path / "empty", traj)
