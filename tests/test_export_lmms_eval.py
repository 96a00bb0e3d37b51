"""`egoworld export lmms-eval`: the real lmms-eval 0.7 runs the exported task against an OpenAI-compatible test
server on 127.0.0.1, and its per-sample scores equal an `egoworld run` + `egoworld score` with the same replies."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from typer.testing import CliRunner

from benchmarks_factory import balanced_mc_bench
from egoworld.cli import app
from openai_test_server import FakeOpenAIServer
from peer_harnesses import lmms_eval_python

runner = CliRunner()


def test_export_writes_a_task_folder(tmp_path):
    balanced_mc_bench(tmp_path / "bench", n_mc=4, n_int=2, name="toy-b")
    out = tmp_path / "task"
    res = runner.invoke(app, ["export", "lmms-eval", "--bench", str(tmp_path / "bench"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "egoworld_toy_b.yaml").is_file() and (out / "utils.py").is_file()
    docs = [json.loads(line) for line in (out / "docs.jsonl").read_text().splitlines()]
    assert [d["id"] for d in docs] == [f"mc-{i:03d}" for i in range(4)] + ["int-000", "int-001"]
    assert docs[1]["target"] == "B" and docs[4]["target"] == "1"
    assert (out / "benchmark" / "manifest.json").read_bytes() == (
        tmp_path / "bench" / "manifest.json"
    ).read_bytes()
    res = runner.invoke(app, ["export", "lmms-eval", "--bench", str(tmp_path / "bench"), "--out", str(out)])
    assert res.exit_code == 2 and "not empty" in res.output


def test_utils_hooks_use_egoworld_prompt_and_scorer(tmp_path):
    import importlib.util

    balanced_mc_bench(tmp_path / "bench", n_mc=4, n_int=2)
    out = tmp_path / "task"
    assert (
        runner.invoke(
            app, ["export", "lmms-eval", "--bench", str(tmp_path / "bench"), "--out", str(out)]
        ).exit_code
        == 0
    )
    spec = importlib.util.spec_from_file_location("egoworld_task_utils", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    doc = {"id": "mc-002"}
    text = utils.doc_to_text(doc)
    assert text.startswith("Question 2") and "C) left" in text and text.endswith("(A, B, C, or D).")
    assert utils.doc_to_visual(doc) == [] and utils.doc_to_target(doc) == "C"
    assert utils.process_results(doc, ["The answer is C."]) == {"egoworld_score": 1.0}
    assert utils.process_results(doc, ["B"]) == {"egoworld_score": 0.0}
    assert utils.process_results(doc, ["no idea"]) == {"egoworld_score": 0.0}
    assert utils.process_results({"id": "int-001"}, ["2"]) == {"egoworld_score": 1.0}


@pytest.mark.slow
def test_lmms_eval_round_trip_matches_egoworld_run(tmp_path):
    python = lmms_eval_python()
    balanced_mc_bench(tmp_path / "bench", n_mc=12, n_int=6)
    task_dir = tmp_path / "task"
    assert (
        runner.invoke(
            app, ["export", "lmms-eval", "--bench", str(tmp_path / "bench"), "--out", str(task_dir)]
        ).exit_code
        == 0
    )
    with FakeOpenAIServer() as server:
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp_path / "hf-home"),
            "OPENAI_API_KEY": "test-key",
            "WANDB_MODE": "disabled",
        }
        cmd = [
            python,
            "-m",
            "lmms_eval",
            "--model",
            "openai",
            "--model_args",
            f"model_version={server.model},base_url={server.base_url},api_key=test-key",
            "--tasks",
            "egoworld_toy",
            "--include_path",
            str(task_dir),
            "--batch_size",
            "1",
            "--log_samples",
            "--output_path",
            str(tmp_path / "lmms-out"),
        ]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=400, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-4000:]
        # lmms-eval exits 0 even when its evaluation failed: its own result files must say it scored all 18
        from egoworld.interchange.lmms_eval_results import check_results

        checked = check_results(tmp_path / "lmms-out", "egoworld_toy", 18)
        assert 0 < checked.score < 1 and checked.samples == 18
        run = tmp_path / "run"
        res = runner.invoke(
            app,
            ["run", "--bench", str(tmp_path / "bench"), "--model", f"openai:{server.model}"]
            + ["--base-url", server.base_url, "--out", str(run), "--no-progress"],
            env={"OPENAI_API_KEY": "test-key"},
        )
        assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["score", "--run", str(run)]).exit_code == 0

    logs = sorted((tmp_path / "lmms-out").rglob("*samples_egoworld_toy*.jsonl"))
    assert logs, list((tmp_path / "lmms-out").rglob("*"))
    # lmms-eval 0.7 logs doc_id only: --bench maps it to the question; without it, the task folder named in
    # lmms-eval's results file beside the log
    for out, extra in (("imported", ["--bench", str(tmp_path / "bench")]), ("found", [])):
        res = runner.invoke(app, ["import", "lmms-eval", str(logs[-1]), "--out", str(tmp_path / out), *extra])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["score", "--run", str(tmp_path / out / "run")])
        assert res.exit_code == 0 and "reference_agreement 100.0% (18/18 rows)" in res.output, res.output
    logged = {
        ids[rec["doc_id"]]: rec["egoworld_score"]
        for ids in [[json.loads(x)["id"] for x in (task_dir / "docs.jsonl").read_text().splitlines()]]
        for rec in map(json.loads, logs[-1].read_text().splitlines())
    }
    ours = _rows(run / "scores.jsonl")
    assert len(ours) == 18 and 0 < sum(r["score"] for r in ours.values()) < 18  # neither all right nor wrong
    for out in ("imported", "found"):
        imported = _rows(tmp_path / out / "run" / "scores.jsonl")
        # the sample is the egoworld id, reference_score lmms-eval's own egoworld_score
        assert {k: r.pop("reference_score") for k, r in imported.items()} == logged
        assert imported == ours  # same rows (reply, parse, score) as `egoworld run` + `egoworld score`
        summary = json.loads((tmp_path / out / "run" / "scores.json").read_text())
        assert summary["overall"] == json.loads((run / "scores.json").read_text())["overall"]


def _rows(path):
    return {r["sample"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_import_of_an_exported_tasks_log_checks_the_benchmark(tmp_path):
    """A log in lmms-eval 0.7's format (doc_id, target, filtered_resps, egoworld_score) attaches to the
    exported task folder; a log of another benchmark, a doc_id past the docs, or no folder fail by line."""
    balanced_mc_bench(tmp_path / "bench", n_mc=4, n_int=2)
    balanced_mc_bench(tmp_path / "other", n_mc=2, n_int=4)
    task_dir = tmp_path / "task"
    assert (
        runner.invoke(
            app, ["export", "lmms-eval", "--bench", str(tmp_path / "bench"), "--out", str(task_dir)]
        ).exit_code
        == 0
    )
    docs = [json.loads(x) for x in (task_dir / "docs.jsonl").read_text().splitlines()]
    replies = {5: "2", 0: "The answer is A.", 3: "C", 1: "I am not sure"}

    def write_log(name, lines):
        path = tmp_path / "lmms-out" / "m1" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        return path

    lines = [
        {"doc_id": i, "target": docs[i]["target"], "filtered_resps": r, "egoworld_score": 0.5, "input": "q"}
        for i, r in replies.items()
    ]
    log = write_log("t_samples_egoworld_toy.jsonl", lines)
    res = runner.invoke(
        app, ["import", "lmms-eval", str(log), "--task-dir", str(task_dir), "--out", str(tmp_path / "a")]
    )
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["score", "--run", str(tmp_path / "a" / "run")]).exit_code == 0
    rows = _rows(tmp_path / "a" / "run" / "scores.jsonl")
    assert sorted(rows) == sorted(docs[i]["id"] for i in replies)
    assert rows[docs[5]["id"]]["raw"] == "2" and {r["reference_score"] for r in rows.values()} == {0.5}
    summary = json.loads((tmp_path / "a" / "run" / "scores.json").read_text())
    assert summary["reference_agreement"]["agree"] == 0 and summary["model"]["model"] == "m1"

    res = runner.invoke(
        app,
        ["import", "lmms-eval", str(log), "--bench", str(tmp_path / "other"), "--out", str(tmp_path / "b")],
    )
    assert res.exit_code == 2 and "line 1" in res.output and "gold reply" in res.output, res.output
    res = runner.invoke(
        app,
        ["import", "lmms-eval", str(log), "--task-dir", str(task_dir), "--bench", str(tmp_path / "other")]
        + ["--out", str(tmp_path / "b")],
    )
    assert res.exit_code == 2 and "exported from benchmark" in res.output, res.output
    past = write_log("t_samples_past.jsonl", [lines[0], {**lines[1], "doc_id": 6}])
    res = runner.invoke(
        app,
        ["import", "lmms-eval", str(past), "--bench", str(tmp_path / "bench"), "--out", str(tmp_path / "c")],
    )
    assert res.exit_code == 2 and "line 2: doc_id 6" in res.output, res.output
    res = runner.invoke(app, ["import", "lmms-eval", str(log), "--out", str(tmp_path / "d")])
    assert res.exit_code == 2 and "--task-dir" in res.output, res.output


def test_frames_setting_sends_egoworld_frames_as_images(tmp_path):
    import importlib.util

    pytest.importorskip("av")
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput
    from egoworld.media.testvideo import write_counter_video

    root = tmp_path / "bench"
    (root / "videos").mkdir(parents=True)
    write_counter_video(root / "videos" / "c.mp4", frames=40, fps=10, size=(160, 120))
    sample = Sample(
        id="v0",
        benchmark="vid",
        task="MC",
        question="Where did it go?",
        answer_type="choice",
        choices=("left", "right"),
        answer=1,
        media=Media(video=VideoInput(path="videos/c.mp4", end_s=3.0)),
    )
    save_benchmark(
        root, name="vid", tasks={"MC": TaskInfo(answer_type="choice", metric="accuracy")}, samples=[sample]
    )
    out = tmp_path / "task"
    argv = [
        "export",
        "lmms-eval",
        "--bench",
        str(root),
        "--out",
        str(out),
        "--setting",
        "frames",
        "--frames",
        "4",
    ]
    assert runner.invoke(app, [*argv, "--max-pixels", "0"]).exit_code == 0
    assert (out / "benchmark" / "videos" / "c.mp4").read_bytes() == (root / "videos" / "c.mp4").read_bytes()
    spec = importlib.util.spec_from_file_location("egoworld_vid_utils", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    images = utils.doc_to_visual({"id": "v0"})
    assert len(images) == 4 and all(im.size == (160, 120) and im.mode == "RGB" for im in images)
