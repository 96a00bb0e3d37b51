"""Audit of visibility tracks against marks (Tables 4–6): metrics, cluster-bootstrap CIs, the CSV reader,
and the pipeline against the exact visibility of rendered sim kitchens (perfect and simulated detector)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.beyond3d.build.audit import (
    Mark,
    audit,
    audit_worlds,
    metrics,
    metrics_ci,
    read_marks_csv,
)
from egoworld.benchmarks.beyond3d.build.visibility_tracks import build_tracks
from egoworld.core.folders.files import InputFileError
from sim_worlds import sim_kitchens
from test_beyond3d_tracks import hand_made_episode


def test_metrics_of_a_known_confusion() -> None:
    m = metrics(np.array([40, 10, 45, 5]))  # tp, fp, tn, fn
    assert m["accuracy"] == pytest.approx(85.0)
    assert m["precision"] == pytest.approx(80.0)
    assert m["recall"] == pytest.approx(40 / 45 * 100)
    assert m["f1"] == pytest.approx(2 * 0.8 * (40 / 45) / (0.8 + 40 / 45) * 100)
    assert m["balanced_accuracy"] == pytest.approx((40 / 45 + 45 / 55) / 2 * 100)
    per_video = np.array([[10, 2, 10, 1], [20, 3, 15, 2], [10, 5, 20, 2]])
    ci = metrics_ci(per_video, n_boot=500)
    point = metrics(per_video.sum(axis=0))
    for k, (lo, hi) in ci.items():
        assert lo <= point[k] <= hi
    assert metrics_ci(per_video, n_boot=500) == ci  # seeded
    one = metrics_ci(per_video[:1])
    assert one["accuracy"][0] == one["accuracy"][1]


def test_marks_from_csv_and_their_errors(tmp_path: Path) -> None:
    good = tmp_path / "marks.csv"
    good.write_text(
        "episode,time_s,object,visible,participant\nhand,3,a,yes,P01\nhand,25,a,0,P01\nhand,5,b,false,\n"
    )
    marks = read_marks_csv(good)
    assert marks == [
        Mark("hand", 3.0, "a", True, "P01"),
        Mark("hand", 25.0, "a", False, "P01"),
        Mark("hand", 5.0, "b", False, None),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("episode,time_s,object,visible\nhand,3,a,maybe\n")
    with pytest.raises(InputFileError, match=r"bad\.csv, line 2: visible 'maybe'"):
        read_marks_csv(bad)
    bad.write_text("video,t,object,visible\nhand,3,a,1\n")
    with pytest.raises(InputFileError, match="line 2: needs columns"):
        read_marks_csv(bad)


def test_audit_tables_count_per_state() -> None:
    ep = hand_made_episode()
    tr = build_tracks(ep)
    marks = [Mark("hand", 3.0, "a", True), Mark("hand", 4.4, "a", False), Mark("hand", 25.0, "a", True),
             Mark("hand", 5.0, "b", False), Mark("hand", 46.0, "b", True), Mark("hand", 10.0, "a", True),
             Mark("hand", 7.0, "d", True), Mark("hand", 7.0, "zz", True), Mark("other", 1.0, "a", True)]  # fmt: skip
    res = audit({"hand": tr}, marks)
    assert res.per_state == {
        "detected_visible": (3, 2),
        "out_of_view": (1, 1),
        "occluded": (1, 0),
        "in_motion": (1, 1),
        "not_groundable": (1, 1),
    }
    assert res.scored == 5 and res.unmatched == 2
    assert res.overall["accuracy"] == pytest.approx(60.0) and res.overall["precision"] == pytest.approx(
        200 / 3
    )
    t4, t5, t6 = res.tables()
    assert t4[1] == ["out_of_view", "1", "1", "0.0"] and ["in_motion", "1", "1", "—"] in t4
    assert t5[1][0] == "Accuracy" and t6[-1][0] == "All"
    assert "Table 5" in res.markdown()


@pytest.fixture(scope="module")
def sim_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sim_kitchens(tmp_path_factory.mktemp("b3d_audit"), episodes=2, minutes=3.0, seed=5, size=96)


def test_perfect_detector_agrees_with_exact_visibility(sim_world: Path) -> None:
    res = audit_worlds([sim_world], truth=True, detections="perfect")
    assert res.overall["accuracy"] >= 98.0 and res.scored > 2000
    assert set(res.per_participant) == {"kitchen_000", "kitchen_001"}
    lo, hi = res.ci["accuracy"]
    assert lo <= res.overall["accuracy"] <= hi
    worse = audit_worlds([sim_world], truth=True)  # the simulator's detector misses small, far objects
    assert worse.overall["recall"] < res.overall["recall"]  # missed detections cost recall
    assert (
        worse.per_state.get("visually_unconfirmed", (0, 0))[0]
        > res.per_state.get("visually_unconfirmed", (0, 0))[0]
    )


def test_audit_cli_prints_tables_4_to_6(sim_world: Path, tmp_path: Path) -> None:
    from egoworld.cli import app

    res = CliRunner().invoke(
        app,
        ["beyond3d", "audit", "--world", str(sim_world), "--truth", "--out", str(tmp_path / "a.json")],
    )
    assert res.exit_code == 0, res.output
    for title in ("Table 4", "Table 5", "Table 6", "Balanced acc.", "detected_visible"):
        assert title in res.output
    assert (tmp_path / "a.json").is_file()
    res = CliRunner().invoke(app, ["beyond3d", "audit", "--world", str(sim_world)])
    assert res.exit_code == 2 and "--marks" in res.output
