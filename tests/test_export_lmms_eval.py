"""`egoworld export lmms-eval`: the real lmms-eval 0.7 runs the exported task against an OpenAI-compatible test
server on 127.0.0.1, and its per-sample scores equal an `egoworld run` + `egoworld score` with the same replies."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from benchmarks_factory import balanced_mc_bench
from egoworld.cli import app
from openai_test_server import FakeOpenAIServer

runner = CliRunner()


def test_export_writes_a_task_folder(tmp_path):
    balanced_mc_bench(tmp_path / "bench", n_mc=4, n_int=2, name="toy-b")
    out = tmp_path / "task"
    res = runner.invoke(app, ["export", "lmms-eval", str(tmp_path / "bench"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "egoworld_toy_b.yaml").is_file() and (out / "utils.py").is_file()
    docs = [json.loads(line) for line in (out / "docs.jsonl").read_text().splitlines()]
    assert [d["id"] for d in docs] == [f"mc-{i:03d}" for i in range(4)] + ["int-000", "int-001"]
    assert docs[1]["target"] == "B" and docs[4]["target"] == "1"
    assert (out / "benchmark" / "manifest.json").read_bytes() == (
        tmp_path / "bench" / "manifest.json"
    ).read_bytes()
    res = runner.invoke(app, ["export", "lmms-eval", str(tmp_path / "bench"), "--out", str(out)])
    assert res.exit_code == 2 and "not empty" in res.output


def test_utils_hooks_use_egoworld_prompt_and_scorer(tmp_path):
    import importlib.util

    balanced_mc_bench(tmp_path / "bench", n_mc=4, n_int=2)
    out = tmp_path / "task"
    assert (
        runner.invoke(app, ["export", "lmms-eval", str(tmp_path / "bench"), "--out", str(out)]).exit_code == 0
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
    pytest.importorskip("lmms_eval")
    balanced_mc_bench(tmp_path / "bench", n_mc=12, n_int=6)
    task_dir = tmp_path / "task"
    assert (
        runner.invoke(app, ["export", "lmms-eval", str(tmp_path / "bench"), "--out", str(task_dir)]).exit_code
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
            sys.executable,
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
        run = tmp_path / "run"
        res = runner.invoke(
            app,
            ["run", "--bench", str(tmp_path / "bench"), "--model", f"openai:{server.model}"]
            + ["--base-url", server.base_url, "--out", str(run), "--no-progress"],
            env={"OPENAI_API_KEY": "test-key"},
        )
        assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["score", str(run)]).exit_code == 0

    logs = sorted((tmp_path / "lmms-out").rglob("*samples_egoworld_toy*.jsonl"))
    assert logs, list((tmp_path / "lmms-out").rglob("*"))
    # lmms-eval 0.7 logs doc_id (the row of docs.jsonl), the filtered reply and our metric per doc
    ids = [json.loads(line)["id"] for line in (task_dir / "docs.jsonl").read_text().splitlines()]
    lmms = {}
    for line in logs[-1].read_text().splitlines():
        rec = json.loads(line)
        reply = rec["filtered_resps"]
        reply = reply[0] if isinstance(reply, list) else reply
        lmms[ids[rec["doc_id"]]] = (reply, rec["egoworld_score"])
    ours = {
        r["sample"]: (r["raw"], r["score"])
        for r in map(json.loads, (run / "scores.jsonl").read_text().splitlines())
    }
    assert len(lmms) == len(ours) == 18
    assert lmms == ours
    assert 0 < sum(s for _, s in ours.values()) < 18  # the replies are neither all right nor all wrong


def test_frames_setting_sends_egoworld_frames_as_images(tmp_path):
    import importlib.util

    pytest.importorskip("av")
    from egoworld.benchmarks.folder import save_benchmark
    from egoworld.benchmarks.schema import Media, Sample, TaskInfo, VideoInput
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
    argv = ["export", "lmms-eval", str(root), "--out", str(out), "--setting", "frames", "--frames", "4"]
    assert runner.invoke(app, [*argv, "--max-pixels", "0"]).exit_code == 0
    assert (out / "benchmark" / "videos" / "c.mp4").read_bytes() == (root / "videos" / "c.mp4").read_bytes()
    spec = importlib.util.spec_from_file_location("egoworld_vid_utils", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    images = utils.doc_to_visual({"id": "v0"})
    assert len(images) == 4 and all(im.size == (160, 120) and im.mode == "RGB" for im in images)
