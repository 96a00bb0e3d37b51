"""A kitchen from the video alone: `world perceive --kind kitchen --trajectory odometry --align FILE` (a
Sim(3) fitted to a few camera positions in the annotations' frame) on a rendered pinhole kitchen, measured
against its truth poses; `world annotations` (movements / fixtures CSV, camera flags) read back by
`world perceive`; and the refusals of both."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.perception.kitchen_annotations import write_annotations
from egoworld.world.episode_folder import load_episode

#: measured 1.07 m (odometry on the 256 px, 4 frames/s, 1-minute kitchen below, 4 positions; 6.6 m of path)
ODOMETRY_ATE_M = 1.5


def ate_m(folder: Path, truth: object) -> float:
    """RMS distance of the perceived positions to the true ones at the same times, no further fitting."""
    ep = load_episode(folder)
    assert ep.poses is not None
    est = ep.poses.matrices[:, :3, 3]
    ref = truth.interpolate(ep.poses.times_s)[:, :3, 3]  # type: ignore[attr-defined]
    return float(np.sqrt(np.mean(np.sum((est - ref) ** 2, axis=1))))


def spread_times(truth: object, duration: float, k: int = 4) -> np.ndarray:
    """``k`` whole seconds at which the true camera stands farthest apart (as a user picks places)."""
    grid = np.arange(1.0, duration - 1.0, 1.0)
    pos = truth.interpolate(grid)[:, :3, 3]  # type: ignore[attr-defined]
    pick = [int(np.argmin(np.abs(grid - duration / 2)))]
    while len(pick) < k:
        pick.append(int(np.argmax(np.min(np.linalg.norm(pos[:, None] - pos[pick][None], axis=2), axis=1))))
    return np.sort(grid[pick])


def write_align(path: Path, truth: object, times: np.ndarray) -> Path:
    pos = truth.interpolate(times)[:, :3, 3]  # type: ignore[attr-defined]
    rows = [f"{t:.3f},{x:.5f},{y:.5f},{z:.5f}" for t, (x, y, z) in zip(times, pos, strict=True)]
    path.write_text("t_s,x,y,z\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A rendered pinhole kitchen: the user's video, annotations, 4 known camera positions; truth kept apart."""
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    root = tmp_path_factory.mktemp("kitchen_align")
    truth = root / "truth"
    cfg = KitchenConfig(minutes=1.0, fps=4.0, size=256, objects=24, camera="pinhole")
    synth_world_set("kitchen", truth, 1, 7, cfg)
    ep = load_episode(truth / "kitchen_000")
    (root / "rec").mkdir()
    video = root / "rec" / "kitchen_000.mp4"
    shutil.copyfile(truth / "kitchen_000" / "video.mp4", video)
    times = spread_times(ep.poses, ep.duration_s)
    return {
        "root": root,
        "truth": truth,
        "episode": ep,
        "video": video,
        "ann": write_annotations(ep, root / "ann"),
        "align": write_align(root / "align.csv", ep.poses, times),
    }


def perceive(k: dict, out: Path, *extra: str) -> object:
    ann = k["ann"]
    args = ["world", "perceive", str(k["video"]), "--kind", "kitchen", "--out", str(out),
            "--movements", str(ann / "objects.jsonl"), "--fixtures", str(ann / "fixtures.jsonl"),
            "--camera", str(ann / "camera.json"), "--detector", f"file:{k['truth']}"]  # fmt: skip
    return CliRunner().invoke(app, [*args, *extra])


def test_a_trajectory_in_its_own_frame_is_aligned_exactly(kitchen: dict) -> None:
    """The truth moved, turned and shrunk (a SLAM export in its own frame) comes back onto the truth."""
    from scipy.spatial.transform import Rotation

    from egoworld.benchmarks.beyond3d import TASK_ORDER
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d

    poses = kitchen["episode"].poses
    rot, scale, shift = (
        Rotation.from_euler("zyx", [40, -15, 70], degrees=True),
        0.37,
        np.array([3.0, -1.0, 0.5]),
    )
    mats = np.array(poses.matrices)
    pos = scale * rot.apply(mats[:, :3, 3]) + shift
    quats = (rot * Rotation.from_matrix(mats[:, :3, :3])).as_quat()
    tum = kitchen["root"] / "own_frame.txt"
    tum.write_text(
        "".join(" ".join(f"{v:.9f}" for v in r) + "\n" for r in np.column_stack([poses.times_s, pos, quats]))
    )
    out = kitchen["root"] / "aligned_file"
    res = perceive(kitchen, out, "--trajectory", str(tum), "--align", str(kitchen["align"]))
    assert res.exit_code == 0, res.output
    assert "aligned to align.csv (4 positions)" in res.output and "residual RMS 0.000 m" in res.output
    poses_rec = load_episode(out / "kitchen_000").meta["perception"]["poses"]
    assert poses_rec["metric"] is True and poses_rec["unit"] == "m"
    al = poses_rec["alignment"]
    assert al["points"] == 4 and al["file"] == "align.csv" and abs(al["scale"] - 1 / scale) < 1e-4
    assert al["residual_rms_m"] < 1e-4
    assert ate_m(out / "kitchen_000", poses) < 1e-4
    rep = build_beyond3d([out], kitchen["root"] / "b_aligned", BuildConfig(anchors=10, controls=10, seed=0))
    assert set(rep.bench.manifest.tasks) == set(TASK_ORDER)  # metric: the distance types build too


def test_odometry_aligned_by_four_positions(kitchen: dict) -> None:
    out = kitchen["root"] / "odometry"
    res = perceive(kitchen, out, "--trajectory", "odometry", "--align", str(kitchen["align"]))
    assert res.exit_code == 0, res.output
    poses_rec = load_episode(out / "kitchen_000").meta["perception"]["poses"]
    assert poses_rec["backend"] == "opencv-odometry" and poses_rec["metric"] is True
    al = poses_rec["alignment"]
    assert al["points"] == 4 and al["scale"] > 0 and al["residual_rms_m"] >= 0
    ate = ate_m(out / "kitchen_000", kitchen["episode"].poses)
    print(f"\nodometry + 4-position alignment: ATE {ate:.3f} m, {al}")
    assert ate < ODOMETRY_ATE_M


def test_estimated_trajectories_need_align_and_good_positions(kitchen: dict, tmp_path: Path) -> None:
    res = perceive(kitchen, tmp_path / "o1", "--trajectory", "odometry")
    assert res.exit_code == 2 and "--align FILE" in res.output
    bad = tmp_path / "two.csv"
    bad.write_text("t_s,x,y,z\n1,0,0,0\n2,1,0,0\n")
    res = perceive(kitchen, tmp_path / "o2", "--trajectory", "odometry", "--align", str(bad))
    assert res.exit_code == 2 and "two.csv" in res.output and "at least 3" in res.output
    bad.write_text("t_s,x,y,z\n1,0,0,0\n2,1,1,0\n3,2,2,0\n")
    res = perceive(kitchen, tmp_path / "o3", "--trajectory", "odometry", "--align", str(bad))
    assert res.exit_code == 2 and "on one line" in res.output
    bad.write_text("t_s,x,y\n1,0,0\n")
    res = perceive(kitchen, tmp_path / "o4", "--trajectory", "odometry", "--align", str(bad))
    assert res.exit_code == 2 and "line 1" in res.output and "missing column(s) z" in res.output
    bad.write_text("t_s,x,y,z\n1,0,0,0\n2,1,x,0\n3,0,1,0\n")
    res = perceive(kitchen, tmp_path / "o5", "--trajectory", "odometry", "--align", str(bad))
    assert res.exit_code == 2 and "line 3, field 'y'" in res.output
    bad.write_text("t_s,x,y,z\n1,0,0,0\n2,1,0,0\n900,0,1,0\n")
    res = perceive(kitchen, tmp_path / "o6", "--trajectory", "odometry", "--align", str(bad))
    assert res.exit_code == 2 and "line 4, field 't_s'" in res.output and "outside" in res.output
    res = perceive(kitchen, tmp_path / "o7", "--trajectory", "odometry", "--align", str(kitchen["align"]),
                   "--scale", "2")  # fmt: skip
    assert res.exit_code == 2 and "not both" in res.output
    from egoworld.sim.world_cameras import aria_fisheye

    fisheye = tmp_path / "fisheye.json"
    fisheye.write_text(aria_fisheye(256).model_dump_json())
    res = perceive(kitchen | {"ann": _with_camera(kitchen["ann"], fisheye, tmp_path)}, tmp_path / "o8",
                   "--trajectory", "odometry", "--align", str(kitchen["align"]))  # fmt: skip
    assert res.exit_code == 2 and "fisheye" in res.output and "pinhole" in res.output
    walk = CliRunner().invoke(app, ["world", "perceive", str(kitchen["video"]), "--out", str(tmp_path / "w"),
                                    "--align", str(kitchen["align"])])  # fmt: skip
    assert walk.exit_code == 2 and "--align" in walk.output


def _with_camera(ann: Path, camera: Path, tmp: Path) -> Path:
    out = tmp / "ann_cam"
    shutil.copytree(ann, out)
    shutil.copyfile(camera, out / "camera.json")
    return out


def movement_csv(ep: object, path: Path) -> Path:
    """The truth's movements as the CSV a user writes (one movement a row)."""
    head = "object_id,category,name,start_s,end_s,start_x,start_y,start_z,end_x,end_y,end_z,start_fixture,end_fixture"
    rows = [head]
    for o in ep.objects:  # type: ignore[attr-defined]
        for m in o.movements:
            xyz = [f"{v:.6f}" for v in (*m.start_position, *m.end_position)]
            rows.append(",".join([o.id, o.category, o.name, f"{m.start_s:.6f}", f"{m.end_s:.6f}", *xyz,
                                  m.start_fixture or "", m.end_fixture or ""]))  # fmt: skip
    path.write_text("\n".join(rows) + "\n")
    return path


def fixture_csv(ep: object, path: Path) -> Path:
    rows = ["id,label,type,center_x,center_y,center_z,size_x,size_y,size_z,openable"]
    for f in ep.fixtures:  # type: ignore[attr-defined]
        vals = [f"{v:.6f}" for v in (*f.box.center, *f.box.size)]
        rows.append(",".join([f.id, f.label, f.type, *vals, str(f.openable).lower()]))
    path.write_text("\n".join(rows) + "\n")
    return path


def annotate(*args: str) -> object:
    return CliRunner().invoke(app, ["world", "annotations", *args])


def test_annotations_from_csv_are_read_by_perceive(kitchen: dict, tmp_path: Path) -> None:
    ep = kitchen["episode"]
    moves, fixes = movement_csv(ep, tmp_path / "movements.csv"), fixture_csv(ep, tmp_path / "fixtures.csv")
    ann = tmp_path / "ann"
    res = annotate("--movements", str(moves), "--fixtures", str(fixes), "--camera-fov", "90",
                   "--video", str(kitchen["video"]), "--out", str(ann))  # fmt: skip
    assert res.exit_code == 0, res.output
    moved = [o for o in ep.objects if o.movements]
    assert f"{len(moved)} objects" in res.output and "next: egoworld world perceive" in res.output
    assert {p.name for p in ann.iterdir()} == {"objects.jsonl", "fixtures.jsonl", "camera.json"}
    cam = ep.camera
    from egoworld.perception.kitchen_annotations import read_camera

    made = read_camera(ann / "camera.json")
    assert made.kind == "pinhole" and (made.width, made.height) == (cam.width, cam.height)
    assert abs(made.fx - cam.fx) < 1e-6  # the sim's pinhole is a 90° one
    out = tmp_path / "world"
    tum = tmp_path / "truth.txt"
    from scipy.spatial.transform import Rotation

    m = ep.poses.matrices
    rows = np.column_stack([ep.poses.times_s, m[:, :3, 3], Rotation.from_matrix(m[:, :3, :3]).as_quat()])
    tum.write_text("".join(" ".join(f"{v:.9f}" for v in r) + "\n" for r in rows))
    res = perceive(kitchen | {"ann": ann}, out, "--trajectory", str(tum), "--scale", "1")
    assert res.exit_code == 0, res.output
    got = load_episode(out / "kitchen_000")

    def key(objs: object) -> list:
        return sorted((o.id, o.category, o.name, [(round(x.start_s, 5), round(x.end_s, 5),
                       np.round(x.end_position, 5).tolist(), x.end_fixture) for x in o.movements])
                      for o in objs)  # type: ignore[attr-defined]  # fmt: skip

    assert key(got.objects) == key(moved)
    assert [(f.id, f.type, f.openable) for f in got.fixtures] == [
        (f.id, f.type, f.openable) for f in ep.fixtures
    ]
    # the CSVs straight to perceive, too
    res = perceive(kitchen | {"ann": ann}, tmp_path / "world2", "--trajectory", str(tum), "--scale", "1",
                   "--movements", str(moves), "--fixtures", str(fixes))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert key(load_episode(tmp_path / "world2" / "kitchen_000").objects) == key(moved)


HEAD = "object_id,category,name,start_s,end_s,start_x,start_y,start_z,end_x,end_y,end_z"


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        ("object_id,category,name,start_s\n", "line 1: missing column(s) end_s"),
        (f"{HEAD}\na,mug,mug1,1,2,0,0,0,1,x,1\n", "line 2, field 'end_y'"),
        (f"{HEAD}\na,mug,mug1,1,2,0,0,0,1,1,1\na,cup,mug1,3,4,1,1,1,2,2,2\n", "line 3, field 'category'"),
        (f"{HEAD}\na,mug,mug1,5,2,0,0,0,1,1,1\n", "line 2, field 'end_s'"),
        (f"{HEAD},end_fixture\na,mug,mug1,1,2,0,0,0,1,1,1,drawer.1\n", "line 2, field 'end_fixture'"),
        (f"{HEAD}\n,mug,mug1,1,2,0,0,0,1,1,1\n", "line 2, field 'object_id'"),
        (f"{HEAD}\n", "no rows"),
    ],
)
def test_annotation_tables_are_refused_by_line_and_field(tmp_path: Path, rows: str, where: str) -> None:
    path = tmp_path / "moves.csv"
    path.write_text(rows)
    res = annotate("--movements", str(path), "--out", str(tmp_path / "ann"))
    assert res.exit_code == 2 and "moves.csv" in res.output and where in res.output, res.output
    assert not (tmp_path / "ann").exists()


def test_annotation_camera_and_fixture_refusals(tmp_path: Path) -> None:
    moves = tmp_path / "moves.csv"
    moves.write_text(f"{HEAD}\na,mug,mug1,1,2,0,0,0,1,1,1\n")
    out = ["--out", str(tmp_path / "ann")]
    res = annotate("--movements", str(moves), "--camera-fov", "90", *out)
    assert res.exit_code == 2 and "--camera-fov needs the frame size" in res.output
    res = annotate("--movements", str(moves), "--camera-pinhole", "500,500,320", *out)
    assert res.exit_code == 2 and "expected 6 numbers" in res.output
    res = annotate("--movements", str(moves), "--camera-pinhole", "500,500,319.5,239.5,640,480", *out)
    assert res.exit_code == 0, res.output
    assert '"fx": 500.0' in (tmp_path / "ann" / "camera.json").read_text()
    fixes = tmp_path / "fix.csv"
    fixes.write_text(
        "id,label,type,center_x,center_y,center_z,size_x,size_y,size_z\nd1,drawer 1,drawer,0,0,0,1,1\n"
    )
    res = annotate("--movements", str(moves), "--fixtures", str(fixes), *out)
    assert res.exit_code == 2 and "fix.csv, line 2, field 'size_z'" in res.output
    assoc = tmp_path / "assoc_info.json"
    assoc.write_text("{}")
    res = annotate("--movements", str(assoc), *out)
    assert res.exit_code == 2 and "give --video-id" in res.output


def test_hd_epic_annotations_become_objects_jsonl(tmp_path: Path) -> None:
    import json

    vid = "P01-20240202-110250"
    track = {"track_id": "t1", "time_segment": [3.0, 5.5], "masks": ["m1"]}
    (tmp_path / "assoc_info.json").write_text(json.dumps({vid: {"a1": {"name": "mug", "tracks": [track]}}}))
    mask = {
        "frame_number": 165,
        "3d_location": [1.0, 2.0, 0.9],
        "bbox": [1, 2, 3, 4],
        "fixture": "P01_counter.001",
    }
    (tmp_path / "mask_info.json").write_text(json.dumps({vid: {"m1": mask}}))
    fixes = tmp_path / "fixtures.csv"
    fixes.write_text("id,label,type,center_x,center_y,center_z,size_x,size_y,size_z\n"
                     "P01_counter.001,counter.001,counter,1,2,0.45,2,0.6,0.9\n")  # fmt: skip
    ann = tmp_path / "ann"
    res = annotate("--movements", str(tmp_path / "assoc_info.json"), "--fixtures", str(fixes),
                   "--video-id", vid, "--out", str(ann))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "1 objects, 1 movements (1 with an end position), 1 fixtures" in res.output
    (row,) = [json.loads(line) for line in (ann / "objects.jsonl").read_text().splitlines()]
    assert row["name"] == "mug" and row["movements"][0]["end_fixture"] == "P01_counter.001"
