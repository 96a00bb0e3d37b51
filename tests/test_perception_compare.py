"""`egoworld world compare`: a "perceived" world made by perturbing a copy of a rendered truth world, and
the figures moving as they must (identical → full agreement; a similarity transform → ATE 0 after Sim(3);
noise → ATE > 0; a removed object → one VOC question wrong; an identity switch → IDF1 and HOTA below 1)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.vsi_wild.build.config import ANNOTATOR, VisibilityRules
from egoworld.cli import app
from egoworld.compare.question_agreement import beyond3d_sample_agreement
from egoworld.compare.worlds import compare_worlds
from egoworld.core.folders.files import read_jsonl, write_jsonl
from egoworld.sim.walk.synth import WalkConfig, synth_walk
from egoworld.world.episode_folder import load_episode, save_episode
from egoworld.world.poses import PoseTrack
from sim_worlds import sim_kitchens

# 3 min at 1 frame/s, tiny views: 6 places, so all four VSI-Super-Wild tasks have questions
WALK = WalkConfig(minutes=3.0, fps=1.0, pano_width=128, view_size=64, min_pixels=4)


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("truth")
    synth_walk(root / "walk_000", "walk_000", 0, WALK)
    return root


def _copy(truth: Path, tmp: Path) -> Path:
    out = tmp / "perceived"
    shutil.copytree(truth, out)
    return out


def _set_poses(folder: Path, matrices: np.ndarray) -> None:
    ep = load_episode(folder)
    save_episode(ep.model_copy(update={"poses": PoseTrack(ep.poses.times_s, matrices)}), folder)


def test_identical_worlds_agree_fully(truth: Path, tmp_path: Path) -> None:
    res = compare_worlds(_copy(truth, tmp_path), truth)
    s, q = res["summary"], res["questions"]["vsi_wild"]
    assert s["trajectory.ate_pct"] == pytest.approx(0.0, abs=1e-6) and s["count_mra"] == 1.0
    assert s["first_s_error"] == 0.0 and s["places.time_agreement"] == pytest.approx(1.0)
    for task in ("VMR", "VPO", "VOO", "VOC"):
        f = q[task]
        assert f["perceived"] > 0 and f["perceived"] == f["truth"] == f["matched"], task
        assert f["agreement"] == f["agreement_matched"] == f["agreement_perceived"] == f["coverage"] == 1.0


def test_a_similarity_transform_is_aligned_away(truth: Path, tmp_path: Path) -> None:
    perceived = _copy(truth, tmp_path)
    m = load_episode(perceived / "walk_000").poses.matrices.copy()
    c, s = np.cos(0.7), np.sin(0.7)
    rot = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    m[:, :3, :3] = rot @ m[:, :3, :3]
    m[:, :3, 3] = 0.5 * m[:, :3, 3] @ rot.T + [3.0, 0.0, -2.0]  # half scale: VMR directions are unchanged
    _set_poses(perceived / "walk_000", m)
    res = compare_worlds(perceived, truth)
    traj = res["episodes"]["walk_000"]["trajectory"]
    assert traj["ate_pct"] == pytest.approx(0.0, abs=1e-4) and traj["scale"] == pytest.approx(2.0)
    vmr = res["questions"]["vsi_wild"]["VMR"]
    assert vmr["agreement_perceived"] == vmr["agreement_matched"] == 1.0
    # half the speed: other moments pass the speed rule, so the two builds ask other questions and say so;
    # asked of the perceived world, every truth question still gets the truth's gold
    assert vmr["perceived"] != vmr["truth"] and vmr["unmatched_truth"] == vmr["truth"] - vmr["matched"] > 0
    assert vmr["agreement"] == vmr["coverage"] == vmr["agreement_answered"] == 1.0


def test_a_truth_question_the_perceived_world_cannot_answer_counts_against(
    truth: Path, tmp_path: Path
) -> None:
    """Poses flagged untrusted over the first half: the truth's VMR questions there cannot be asked of the
    perceived world (coverage below 1, each counted against); merged places leave no VPO question answerable."""
    perceived = _copy(truth, tmp_path)
    ep_dir = perceived / "walk_000"
    ep = load_episode(ep_dir)
    flags = [{"start_s": 0.0, "end_s": 90.0, "why": "test"}]
    visits = list(read_jsonl(ep_dir / "place_visits.jsonl"))
    save_episode(ep.model_copy(update={"meta": {**ep.meta, "pose_flags": flags}}), ep_dir)
    write_jsonl(ep_dir / "place_visits.jsonl", [{**v, "place": "one"} for v in visits])
    q = compare_worlds(perceived, truth)["questions"]["vsi_wild"]
    vmr, vpo = q["VMR"], q["VPO"]
    assert 0 < vmr["coverage"] < 1 and vmr["agreement_answered"] == 1.0
    assert vmr["agreement"] == pytest.approx(vmr["coverage"])
    assert (
        vpo["truth"] > 0 and vpo["coverage"] == vpo["agreement"] == 0.0 and vpo["agreement_answered"] is None
    )


def test_noise_and_a_removed_object_move_the_figures(truth: Path, tmp_path: Path) -> None:
    perceived = _copy(truth, tmp_path)
    ep_dir = perceived / "walk_000"
    m = load_episode(ep_dir).poses.matrices.copy()
    m[:, :3, 3] += np.random.default_rng(0).normal(0.0, 0.3, (len(m), 3))
    _set_poses(ep_dir, m)
    rows = list(read_jsonl(ep_dir / "appearances.jsonl"))
    front = Counter(r["category"] for r in rows if r["view"] == "front")
    cat = sorted(c for c, n in front.items() if n >= 2)[0]
    gone = next(r for r in rows if r["view"] == "front" and r["category"] == cat)
    kept = [r for r in rows if r is not gone]
    late = min((r for r in kept if r["view"] == "front" and r["category"] != cat), key=lambda r: r["first_s"])
    for r in kept:  # the earliest other category of the front view is seen 40 s later: VOO orders change
        if r["view"] == "front" and r["category"] == late["category"]:
            r["intervals"] = [[min(a + 40, 179.0), min(b + 40, 179.0)] for a, b in r["intervals"]]
            r["first_s"], r["last_s"] = r["intervals"][0][0], r["intervals"][-1][1]
    write_jsonl(ep_dir / "appearances.jsonl", kept)
    res = compare_worlds(perceived, truth)
    e = res["episodes"]["walk_000"]
    assert e["trajectory"]["ate_m"] > 0.1 and e["trajectory"]["rpe_m"] > 0.1
    view = e["objects"]["views"]["front"]
    assert view["count"]["per_category"][cat] == pytest.approx(1 - 1 / front[cat])
    assert e["objects"]["count_mra"] < 1.0 and view["times"]["matched"] < view["times"]["truth_objects"]
    voo = res["questions"]["vsi_wild"]["VOO"]
    assert 0 < voo["agreement_perceived"] < 1 and voo["unanswerable"] == 0 and 0 < voo["agreement"] < 1
    voc = res["questions"]["vsi_wild"]["VOC"]
    assert voc["perceived"] == voc["truth"] == voc["matched"]
    assert (
        voc["agreement"]
        == voc["agreement_perceived"]
        == pytest.approx((voc["perceived"] - 1) / voc["perceived"])
    )
    seen = sum(r["max_pixels"] >= ANNOTATOR.min_visible_px for r in rows if r["view"] == "front"
               and r["category"] == cat)  # fmt: skip  # what VOC counts: compare's visibility rule
    assert voc["count_mra"] == pytest.approx(1 - (1 / seen) / voc["perceived"])


def _sample(sid: str, question: str, answer: int) -> SimpleNamespace:
    """The fields of a built sample that question agreement reads."""
    return SimpleNamespace(id=sid, task="visibility", question=question, choices=["yes", "no"], answer=answer)


def test_an_unasked_truth_question_counts_against() -> None:
    """Two truth questions, the perceived build asks one with the truth's gold: agreement 1/2 over the truth
    (the matched-only figure stays 1.0); a perceived question without a truth twin changes neither."""
    truth = [_sample("a", "q", 0), _sample("b", "q", 1)]
    perceived = [_sample("a", "q", 0), _sample("c", "q", 1)]
    row = beyond3d_sample_agreement(perceived, truth)["visibility"]
    assert row["agreement_matched"] == 1.0 and row["coverage"] == 0.5 and row["agreement"] == 0.5
    assert row["unmatched_truth"] == row["unmatched_perceived"] == 1


def _boxes(frames: int, switch_at: int | None, perceived: bool) -> list[dict]:
    """Two objects crossing the front view: truth rows name the object, perceived rows the track (ids swap at
    ``switch_at``)."""
    rows = []
    for f in range(frames):
        dets = []
        for k, (name, cat) in enumerate((("a", "bench"), ("b", "tree"))):
            x = 2 * f + 30 * k
            d = {"label": cat, "bbox": [x, 10, x + 12, 30], "object": name}
            if perceived:
                d = d | {
                    "object": None,
                    "track": f"p{k}" if switch_at is None or f < switch_at else f"p{1 - k}",
                }
            dets.append(d)
        rows.append({"time_s": float(f), "detections": dets})
    return rows


@pytest.mark.parametrize("switch_at", [None, 10])
def test_tracking_figures(truth: Path, tmp_path: Path, switch_at: int | None) -> None:
    truth = _copy(truth, tmp_path / "t")
    perceived = _copy(truth, tmp_path / "p")
    for root, rows in ((truth, _boxes(20, None, False)), (perceived, _boxes(20, switch_at, True))):
        ep_dir = root / "walk_000"
        write_jsonl(ep_dir / "detections_front.jsonl", rows)
        ep = load_episode(ep_dir)
        extra = ep.media.extra | {"detections_front": "detections_front.jsonl"}
        save_episode(ep.model_copy(update={"media": ep.media.model_copy(update={"extra": extra})}), ep_dir)
    got = compare_worlds(perceived, truth)["episodes"]["walk_000"]["objects"]["views"]["front"]
    t = got["tracking"]
    assert got["times"]["matched_by"] == "boxes"
    if switch_at is None:
        assert t["idf1"] == pytest.approx(1.0) and t["hota"] == pytest.approx(1.0) and t["id_switches"] == 0
    else:  # each object keeps one id for half its frames: IDF1 1/2, AssA 10 / (20 + 20 − 10)
        assert t["idf1"] == pytest.approx(0.5) and t["id_switches"] == 2
        assert t["deta"] == pytest.approx(1.0) and t["assa"] == pytest.approx(1 / 3)
        assert t["hota"] == pytest.approx(np.sqrt(1 / 3))


def test_cli_prints_the_table_and_writes_json(truth: Path, tmp_path: Path) -> None:
    perceived = _copy(truth, tmp_path)
    out = tmp_path / "compare.json"
    res = CliRunner().invoke(app, ["world", "compare", str(perceived), str(truth), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "gold agreement (of truth)" in res.stdout and "| vsi_wild | VOC |" in res.stdout
    assert "coverage" in res.stdout and "agreement of answered" in res.stdout
    saved = json.loads(out.read_text())
    assert saved["questions"]["vsi_wild"]["VMR"]["agreement"] == 1.0
    res = CliRunner().invoke(app, ["world", "compare", str(perceived), str(truth), "--json"])
    assert json.loads(res.stdout)["summary"]["count_mra"] == 1.0
    assert "Example:" in CliRunner().invoke(app, ["world", "compare", "--help"]).stdout


def test_cli_refuses_non_worlds_and_disjoint_worlds(truth: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    res = CliRunner().invoke(app, ["world", "compare", str(empty), str(truth)])
    assert res.exit_code == 2 and "not a world" in res.output and str(empty) in res.output
    other = tmp_path / "other"
    shutil.copytree(truth / "walk_000", other / "walk_000")
    ep = load_episode(other / "walk_000")
    save_episode(ep.model_copy(update={"id": "walk_999"}), other / "walk_000")
    res = CliRunner().invoke(app, ["world", "compare", str(other), str(truth)])
    assert res.exit_code == 2 and "share no episode" in res.output


def test_cli_refuses_two_recordings_that_share_an_episode_id(truth: Path, tmp_path: Path) -> None:
    """A 1-minute walk is not the 3-minute walk of the same name: refused, both named (no figures)."""
    other = tmp_path / "other"
    synth_walk(
        other / "walk_000", "walk_000", 1, WalkConfig(minutes=1.0, fps=1.0, pano_width=128, view_size=64)
    )
    res = CliRunner().invoke(app, ["world", "compare", str(other), str(truth)])
    assert res.exit_code == 2 and "not the recording" in res.output, res.output
    assert "60 s" in res.output and "180 s" in res.output


def test_beyond3d_questions_of_a_kitchen(tmp_path: Path) -> None:
    truth = sim_kitchens(tmp_path / "truth", 1, 4.0, objects=20)
    perceived = tmp_path / "perceived"
    shutil.copytree(truth, perceived)
    same = compare_worlds(perceived, truth, anchors=50)
    b3d = same["questions"]["beyond3d"]
    assert {"visibility", "last_visible_time"} <= set(b3d)
    assert all(f["agreement"] == f["coverage"] == 1.0 and f["matched"] == f["truth"] for f in b3d.values())
    tracked = same["episodes"]["kitchen_000"]["objects"]["views"]["video"]
    assert tracked["tracking"]["idf1"] == pytest.approx(1.0) and tracked["count"]["per_category"]
    m = load_episode(perceived / "kitchen_000").poses.matrices.copy()
    m[:, :3, 3] += [0.8, 0.0, 0.8]  # the camera 1.1 m off: visibility and the metre questions change
    _set_poses(perceived / "kitchen_000", m)
    moved = compare_worlds(perceived, truth, anchors=50)["questions"]["beyond3d"]
    assert any(f["agreement"] != 1.0 or f["matched"] != f["truth"] for f in moved.values())


def test_doubt_puts_a_wrong_gold_early(truth: Path, tmp_path: Path) -> None:
    """One spurious one-frame instance in the perceived front view (a detector's glimpse): its category's
    VOC gold is one too many, and the doubt order puts that question in its first 10 %."""
    perceived = _copy(truth, tmp_path)
    ep_dir = perceived / "walk_000"
    rows = list(read_jsonl(ep_dir / "appearances.jsonl"))
    cat = Counter(r["category"] for r in rows if r["view"] == "front").most_common(1)[0][0]
    ghost = {"view": "front", "object": "ghost", "category": cat, "first_s": 90.0, "last_s": 90.0,
             "intervals": [[90.0, 90.0]], "frames": 1, "score": 0.3}  # fmt: skip
    write_jsonl(ep_dir / "appearances.jsonl", [*rows, ghost])
    voc = compare_worlds(perceived, truth)["questions"]["vsi_wild"]["VOC"]
    catch = voc["doubt_catch"]
    assert catch["wrong"] == 1 and catch["first_10pct"] == 1, catch
    assert catch["questions"] >= 10  # the first 10 % holds one or two questions, the wrong one among them


def test_the_visibility_rule_applies_to_both_sides(truth: Path, tmp_path: Path) -> None:
    """An instance below the minimum visible size is not counted, on the truth side as on the perceived."""
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig
    from egoworld.compare.question_agreement import walk_agreement

    cfg = BuildConfig(visibility=VisibilityRules(min_visible_px=30.0, min_visible_s=0.0))
    tiny = _copy(truth, tmp_path / "t")
    perceived = _copy(truth, tmp_path / "p")
    rows = list(read_jsonl(tiny / "walk_000" / "appearances.jsonl"))
    big = [r for r in rows if r["view"] == "front" and r["max_pixels"] >= 30]
    cat = Counter(r["category"] for r in big).most_common(1)[0][0]
    small = next(r for r in big if r["category"] == cat)
    small["max_pixels"] = 12  # the truth saw it, but never bigger than 12 px²
    write_jsonl(tiny / "walk_000" / "appearances.jsonl", rows)
    pairs = [(perceived / "walk_000", tiny / "walk_000")]
    voc = walk_agreement(pairs, cfg)["VOC"]
    assert voc["visibility"]["truth_small"] == voc["visibility"]["perceived_small"] + 1
    assert voc["agreement_perceived"] < 1.0  # the perceived count holds the instance the truth does not
    write_jsonl(perceived / "walk_000" / "appearances.jsonl", rows)  # the perceived side saw it as small
    voc = walk_agreement(pairs, cfg)["VOC"]
    assert voc["agreement"] == voc["agreement_perceived"] == 1.0
    assert voc["visibility"]["truth_small"] == voc["visibility"]["perceived_small"] > 0


def test_a_build_records_the_visibility_rule_and_leaves_out_small_instances(
    truth: Path, tmp_path: Path
) -> None:
    """`build vsi-wild` with the rule: the manifest holds it, the report says what it left out, and a VOC
    count holds only the instances at least that large."""
    from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig

    rules = VisibilityRules(min_visible_px=30.0, min_visible_s=0.0)
    report = build_vsi_wild(
        [truth], tmp_path / "b", BuildConfig(per_task=None, tasks=("VOC",), visibility=rules)
    )
    assert report.bench.manifest.builder["config"]["visibility"] == {
        "min_visible_px": 30.0,
        "min_visible_s": 0.0,
    }
    assert any(n.startswith("visibility rule") for n in report.notes)
    rows = list(read_jsonl(truth / "walk_000" / "appearances.jsonl"))
    for s in report.bench.samples:
        view, cat = s.metadata["view"], s.metadata["category"]
        mine = [r for r in rows if r["view"] == view and r["category"] == cat]
        assert s.answer == sum(r["max_pixels"] >= 30 for r in mine)
    assert any(r["max_pixels"] < 30 for r in rows)  # the rule had something to leave out
