"""`egoworld world perceive --kind kitchen`: a rendered kitchen with its truth poses and visibility hidden
(only the movement annotations, fixtures and camera kept, as HD-EPIC gives them) → perceive → `build
beyond3d`; the gold of every built question is compared with the truth-built gold."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.beyond3d import OC_DISTANCE, OO_DISTANCE, TASK_ORDER
from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
from egoworld.cli import app
from egoworld.compare.question_agreement import beyond3d_sample_agreement
from egoworld.perception.kitchen_annotations import write_annotations
from egoworld.world.episode_folder import load_episode

BUILD = BuildConfig(anchors=10, controls=10, seed=0)
TIME_TYPES = {"visibility", "last_visible_time", "last_placement_time"}


def gold_shares(perceived: object, truth: object) -> dict[str, float]:
    """Per type the perceived world built: the share of its questions whose gold equals the truth's gold of
    the same question (one the truth does not build counts as a disagreement)."""
    rows = beyond3d_sample_agreement(perceived.samples, truth.samples)  # type: ignore[attr-defined]
    return {
        t: (r["agreement_matched"] or 0.0) * r["matched"] / r["perceived"]
        for t, r in rows.items()
        if r["perceived"]
    }


def write_tum(poses: object, path: Path) -> Path:
    """A trajectory as TUM lines (what a user's MPS or SLAM export gives), the annotations' frame."""
    from scipy.spatial.transform import Rotation

    mats = poses.matrices  # type: ignore[attr-defined]
    quats = Rotation.from_matrix(mats[:, :3, :3]).as_quat()  # x y z w
    rows = np.column_stack([poses.times_s, mats[:, :3, 3], quats])  # type: ignore[attr-defined]
    path.write_text("".join(" ".join(f"{v:.9f}" for v in r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Truth world, the user's recording and annotations (no poses, visibility or detections beside them)."""
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    root = tmp_path_factory.mktemp("kitchen")
    truth = root / "truth"
    synth_world_set("kitchen", truth, 1, 7, KitchenConfig(minutes=2.0, fps=2.0, size=128, objects=24))
    ep = load_episode(truth / "kitchen_000")
    ann = write_annotations(ep, root / "annotations")
    (root / "rec").mkdir()
    video = root / "rec" / "kitchen_000.mp4"
    shutil.copyfile(truth / "kitchen_000" / "video.mp4", video)
    return {
        "truth": truth,
        "ann": ann,
        "video": video,
        "traj": write_tum(ep.poses, root / "traj.txt"),
        "root": root,
    }


def _perceive(k: dict[str, Path], out: Path, *extra: str) -> object:
    ann = k["ann"]
    args = ["world", "perceive", str(k["video"]), "--kind", "kitchen", "--out", str(out),
            "--movements", str(ann / "objects.jsonl"), "--fixtures", str(ann / "fixtures.jsonl"),
            "--camera", str(ann / "camera.json"), "--detector", f"file:{k['truth']}"]  # fmt: skip
    return CliRunner().invoke(app, [*args, *extra])


@pytest.fixture(scope="module")
def truth_bench(kitchen: dict[str, Path]) -> object:
    return build_beyond3d([kitchen["truth"]], kitchen["root"] / "b_truth", BUILD).bench


def test_perceived_kitchen_builds_visibility_and_time_types(kitchen: dict, truth_bench: object) -> None:
    out = kitchen["root"] / "perceived"
    res = _perceive(kitchen, out, "--trajectory", str(kitchen["traj"]))
    assert res.exit_code == 0, res.output
    folder = out / "kitchen_000"
    ep = load_episode(folder)
    assert not (folder / "visibility.npz").exists() and not (folder / "sim.json").exists()
    prov = ep.meta["perception"]
    assert prov["poses"]["backend"] == "tum" and prov["poses"]["metric"] is False
    assert (
        prov["detections"]["backend"] == "detections-file"
        and prov["detections"]["tracker"]["backend"] == "bytetrack"
    )
    assert prov["movements"]["objects"] == 24 and prov["settings"]["kind"] == "kitchen"
    rep = build_beyond3d([out], kitchen["root"] / "b_perc", BUILD)
    built = set(rep.bench.manifest.tasks)
    assert built >= TIME_TYPES and not built & {OC_DISTANCE, OO_DISTANCE}
    assert "no metric scale" in rep.skipped[OC_DISTANCE]
    agree = gold_shares(rep.bench, truth_bench)
    print("\nkitchen gold agreement (no scale):", agree)
    assert set(agree) == built
    from egoworld.benchmarks.beyond3d.build.builder import tracks_for
    from egoworld.compare.visibility_agreement import visibility_agreement

    truth = kitchen["truth"] / "kitchen_000"
    vis = visibility_agreement(tracks_for(folder, ep).states, tracks_for(truth, load_episode(truth)).states)
    print("kitchen visibility-track agreement:", vis)
    assert vis == {"states": 1.0, "visible": 1.0}  # the truth's poses and detector: nothing may be lost
    for task in TIME_TYPES:
        assert agree[task] >= 0.9, (task, agree[task])


def test_a_metric_trajectory_gives_all_eight_types(kitchen: dict, truth_bench: object) -> None:
    out = kitchen["root"] / "metric"
    res = _perceive(kitchen, out, "--trajectory", str(kitchen["traj"]), "--scale", "1")
    assert res.exit_code == 0, res.output
    assert load_episode(out / "kitchen_000").meta["perception"]["poses"]["metric"] is True
    rep = build_beyond3d([out], kitchen["root"] / "b_metric", BUILD)
    assert set(rep.bench.manifest.tasks) == set(TASK_ORDER)
    agree = gold_shares(rep.bench, truth_bench)
    print("\nkitchen gold agreement (metric):", agree)
    assert set(agree) == set(TASK_ORDER) and min(agree.values()) >= 0.9


def test_bad_movements_stop_with_the_file_and_the_fix(kitchen: dict, tmp_path: Path) -> None:
    traj = ["--trajectory", str(kitchen["traj"])]
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("fixtures.jsonl", "camera.json"):
        shutil.copyfile(kitchen["ann"] / name, bad / name)
    res = _perceive(kitchen | {"ann": bad}, tmp_path / "o1", *traj)
    assert res.exit_code == 2 and "objects.jsonl: no such movements file" in res.output
    assert "--movements" in res.output
    (bad / "objects.jsonl").write_text(
        '{"id": "a", "category": "mug", "name": "mug"}\n{"id": "b", "name": 3\n'
    )
    res = _perceive(kitchen | {"ann": bad}, tmp_path / "o2", *traj)
    assert res.exit_code == 2 and "objects.jsonl" in res.output and "line 2" in res.output
    res = CliRunner().invoke(app, ["world", "perceive", str(kitchen["video"]), "--kind", "kitchen",
                                   "--detector", "file:x", "--out", str(tmp_path / "o3")])  # fmt: skip
    assert res.exit_code == 2 and "--kind kitchen needs --movements" in res.output
    res = _perceive(kitchen, tmp_path / "o4", "--trajectory", "odometry")
    assert res.exit_code == 2 and "--trajectory FILE" in res.output


def test_hd_epic_assoc_info_gives_the_video_s_movements(tmp_path: Path) -> None:
    import json

    from egoworld.core.folders.files import InputFileError
    from egoworld.perception.kitchen_annotations import read_movements

    doc = {
        "P01-20240202-110250": {
            "a1": {"name": "mug", "tracks": [{"track_id": "t1", "time_segment": [3.0, 5.5]}]}
        }
    }
    path = tmp_path / "assoc_info.json"
    path.write_text(json.dumps(doc))
    (obj,) = read_movements(path, "P01-20240202-110250")
    assert obj.name == "mug" and [(m.start_s, m.end_s) for m in obj.movements] == [(3.0, 5.5)]
    with pytest.raises(InputFileError, match="no video 'P02-x'"):
        read_movements(path, "P02-x")
    # mask_info.json beside it: the movement's end position and fixture (HD-EPIC frames at 30 fps)
    doc["P01-20240202-110250"]["a1"]["tracks"][0]["masks"] = ["m1"]
    path.write_text(json.dumps(doc))
    mask = {
        "frame_number": 165,
        "3d_location": [1.0, 2.0, 0.9],
        "bbox": [1, 2, 3, 4],
        "fixture": "P01_counter.001",
    }
    (tmp_path / "mask_info.json").write_text(json.dumps({"P01-20240202-110250": {"m1": mask}}))
    (obj,) = read_movements(path, "P01-20240202-110250", {"P01_counter.001"})
    assert (
        obj.movements[0].end_position == (1.0, 2.0, 0.9) and obj.movements[0].end_fixture == "P01_counter.001"
    )
