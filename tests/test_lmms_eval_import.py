"""`egoworld import lmms-eval`: every line of the official Beyond3D sample logs re-scores to the log's own
verdict; a release file rebuilt from them runs against a replaying server with byte-identical prompts;
VSI-Super-Wild logs re-score with `--scoring official`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.beyond3d.importer import docs_to_records, import_beyond3d_qa
from egoworld.cli import app
from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.run_config import RunConfig
from egoworld.interchange.lmms_eval_log import import_lmms_eval_log
from egoworld.runner.run import run_benchmark
from egoworld.scoring.score import score_run
from openai_test_server import FakeOpenAIServer

LOGS = "beyond3d-official/logs"


def _logs(data_dir: Path) -> list[Path]:
    files = sorted((data_dir / LOGS).glob("*/*.jsonl"))
    assert len(files) == 6
    return files


def test_every_logged_line_agrees_with_the_logs_verdict(data_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    total = 0
    for i, log in enumerate(_logs(data_dir)):
        out = tmp_path / f"imp{i}"
        res = runner.invoke(app, ["import", "lmms-eval", str(log), "--out", str(out)])
        assert res.exit_code == 0, res.output
        for scoring in ("official", "egoworld"):  # egoworld last: its scores.json is read below
            res = runner.invoke(app, ["score", "--run", str(out / "run"), "--scoring", scoring])
            assert res.exit_code == 0, res.output
            assert "reference_agreement 100.0%" in res.output, res.output
        summary = read_json(out / "run" / "scores.json")
        lines = [json.loads(x) for x in log.open()]
        assert summary["reference_agreement"]["rows"] == len(lines)
        assert summary["reference_agreement"]["disagreeing"] == []
        rows = {r["sample"]: r for r in map(json.loads, (out / "run" / "scores.jsonl").open())}
        for ln in lines:
            row = rows[ln["oos_score"]["id"]]  # the official id
            assert row["raw"] == ln["filtered_resps"]
            assert row["score"] == row["reference_score"] == ln["oos_score"]["accuracy"]
        run = read_json(out / "run" / "run.json")
        assert run["model"]["model"] == log.parent.name
        assert run["inputs"]["setting"] == ("text" if "without_video" in log.name else "video")
        if any(ln["oos_score"]["step"] in ("2", "3") for ln in lines):
            assert run["logged_scoring"] == [{"time_tolerance_s": 3.0, "point_tolerance": 0.2}]
        official = summary["official"]
        assert official["total_count"] == len(lines)
        assert official["micro_avg"] == pytest.approx(
            100 * sum(ln["oos_score"]["accuracy"] for ln in lines) / len(lines)
        )
        total += len(lines)
    assert total == 58


def test_official_aggregates_match_the_official_definitions(data_dir: Path, tmp_path: Path) -> None:
    log = _logs(data_dir)[3]  # Qwen with video: whole trajectories
    res = import_lmms_eval_log(log, tmp_path / "imp")
    official = score_run(res.run)["official"]
    docs = [json.loads(x)["oos_score"] for x in log.open()]
    per_class: dict[str, list[float]] = {}
    for d in docs:
        per_class.setdefault(d["question_class"], []).append(d["accuracy"])
    for cls, accs in per_class.items():
        assert official[f"{cls}_accuracy"] == pytest.approx(100 * sum(accs) / len(accs))
    assert official["macro_avg"] == pytest.approx(
        100 * sum(sum(a) / len(a) for a in per_class.values()) / len(per_class)
    )
    by_traj: dict[str, list[tuple[str, float]]] = {}
    for d in docs:
        by_traj.setdefault(d["trajectory_id"], []).append((d["step"], d["accuracy"]))
    success = [all(a == 1.0 for _, a in steps) for steps in by_traj.values()]
    assert official["trajectory_count"] == len(by_traj)
    assert official["trajectory_success_rate"] == pytest.approx(100 * sum(success) / len(success))
    assert official["step_5b_accuracy"] is not None
    # "<TIME 00:38.0 video 1>" (MM:SS) is unparsed by the official parser, parsed (and still wrong) by ours
    assert official["parse_rate"] == 100.0
    assert score_run(res.run, scoring="official")["official"]["parse_rate"] == pytest.approx(100 * 13 / 14)
    # the report shows the same names
    from egoworld.report.build import build_report

    index = build_report([res.run], tmp_path / "report")
    text = Path(index).read_text()
    assert "trajectory_success_rate" in text and "oos_step4_fixture_accuracy" in text


@pytest.mark.slow
def test_release_rebuilt_from_logs_replays_with_identical_prompts(data_dir: Path, tmp_path: Path) -> None:
    seen = 0
    for i, log in enumerate(_logs(data_dir)):
        lines = [json.loads(x) for x in log.open()]
        rel = tmp_path / f"rel{i}.jsonl"
        rel.write_text(
            "".join(json.dumps(r) + "\n" for r in docs_to_records([ln["oos_score"] for ln in lines]))
        )
        import_beyond3d_qa(rel, tmp_path / f"b{i}")
        replies = {ln["input"]: ln["filtered_resps"] for ln in lines}
        prompts: list[str] = []

        def reply(prompt: str, prompts: list[str] = prompts, replies: dict = replies) -> str:
            prompts.append(prompt)
            return replies.get(prompt, "prompt differs from the log")

        with FakeOpenAIServer(reply=reply) as srv:
            cfg = RunConfig(
                bench=tmp_path / f"b{i}", model="openai:fake-vlm-1", out=tmp_path / f"run{i}",
                model_args={"base_url": srv.base_url}, progress=False,
            )  # fmt: skip
            summary = run_benchmark(cfg)
        assert summary.ok == len(lines)
        assert sorted(prompts) == sorted(replies)  # every prompt received equals a logged input
        seen += len(prompts)
        # replayed replies score exactly as the log did
        scores = score_run(tmp_path / f"run{i}")
        want = sum(ln["oos_score"]["accuracy"] for ln in lines) / len(lines)
        assert scores["official"]["micro_avg"] == pytest.approx(100 * want)
    assert seen == 58


def test_attach_to_an_existing_benchmark(data_dir: Path, tmp_path: Path) -> None:
    log = _logs(data_dir)[1]
    lines = [json.loads(x) for x in log.open()]
    rel = tmp_path / "rel.jsonl"
    rel.write_text("".join(json.dumps(r) + "\n" for r in docs_to_records([ln["oos_score"] for ln in lines])))
    bench = import_beyond3d_qa(rel, tmp_path / "bench")
    res = CliRunner().invoke(
        app, ["import", "lmms-eval", str(log), "--bench", str(bench.root), "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 0, res.output
    assert not (tmp_path / "o" / "bench").exists()
    summary = score_run(tmp_path / "o" / "run")
    assert summary["reference_agreement"]["share"] == 100.0 and summary["complete"]
    other = _logs(data_dir)[2]  # questions the benchmark does not hold
    with pytest.raises(InputFileError, match="is not in"):
        import_lmms_eval_log(other, tmp_path / "o2", bench=bench.root)


def _vsi_line(i: int, row: dict, reply: str, verdict: float) -> dict:
    metric = "voc_mra" if row["task_type"] == "VOC" else f"{row['task_type'].lower()}_accuracy"
    return {"doc_id": i, "doc": row, "target": row["answer"], "filtered_resps": [reply], "input": row["question"],
            metric: verdict, "overall": {"task_type": row["task_type"], "score": verdict}}  # fmt: skip


def test_vsi_super_wild_log_rescored_officially(data_dir: Path, tmp_path: Path) -> None:
    rows = [json.loads(x) for x in (data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl").open()]
    vmr = next(r for r in rows if r["task_type"] == "VMR")
    voc = [r for r in rows if r["task_type"] == "VOC" and int(r["answer"]) >= 10][:4]
    gold = vmr["answer"]
    other = "A" if gold != "A" else "B"
    g = int(voc[0]["answer"])
    # (row, reply, the official verdict): the official rules, worked out by hand
    cases = [
        (vmr, gold, 1.0),
        (vmr, f"{other}. but maybe option {gold}", 1.0),  # OPTION X anywhere wins over the leading letter
        (voc[0], f"{g}.5", 1.0),  # first run of digits
        (voc[1], "-5", max(0.0, 1 - abs(5 - int(voc[1]["answer"])) / int(voc[1]["answer"]))),
        (voc[2], "1,000", max(0.0, 1 - abs(1 - int(voc[2]["answer"])) / int(voc[2]["answer"]))),
        (voc[3], "no idea", max(0.0, 1 - int(voc[3]["answer"]) / int(voc[3]["answer"]))),
    ]
    log = tmp_path / "vsi_model" / "samples_vsi_super_wild.jsonl"
    log.parent.mkdir()
    # one question per line: VMR twice needs two different docs
    vmr2 = dict(vmr, doc_id=vmr["doc_id"] + "_copy")
    cases[1] = (vmr2, cases[1][1], cases[1][2])
    log.write_text("".join(json.dumps(_vsi_line(i, r, rep, v)) + "\n" for i, (r, rep, v) in enumerate(cases)))
    res = import_lmms_eval_log(log, tmp_path / "imp")
    assert res.kind == "vsi_wild" and res.model == "vsi_model"
    official = score_run(res.run, scoring="official")
    assert official["reference_agreement"]["share"] == 100.0, official["reference_agreement"]
    ours = score_run(res.run)
    # ours refuses "53.5" / "-5" as counts and reads "1,000" as 1000: documented differences
    assert set(ours["reference_agreement"]["disagreeing"]) >= {voc[0]["doc_id"], voc[2]["doc_id"]}


def test_older_json_logs_are_read(data_dir: Path, tmp_path: Path) -> None:
    log = _logs(data_dir)[4]
    lines = [json.loads(x) for x in log.open()]
    old = tmp_path / "qwen" / "20250101_samples_oos_videoqa.json"
    old.parent.mkdir()
    old.write_text(json.dumps({"logs": lines}, indent=1))
    res = import_lmms_eval_log(old, tmp_path / "o")
    assert res.lines == len(lines) and res.model == "qwen"
    assert score_run(res.run)["reference_agreement"]["share"] == 100.0


def test_unknown_or_broken_lines_are_named(tmp_path: Path) -> None:
    log = tmp_path / "x.jsonl"
    log.write_text(json.dumps({"doc_id": 0, "filtered_resps": ["A"], "exact_match": 1.0}) + "\n")
    with pytest.raises(InputFileError, match=r"line 1: not a Beyond3D"):
        import_lmms_eval_log(log, tmp_path / "o")
    log.write_text(json.dumps({"doc_id": 0, "filtered_resps": ["A"], "vmr_accuracy": 1.0}) + "\n")
    with pytest.raises(
        InputFileError, match=r"line 1: 1 of 1 lines name their question by doc_id only.*--bench"
    ):
        import_lmms_eval_log(log, tmp_path / "o")
