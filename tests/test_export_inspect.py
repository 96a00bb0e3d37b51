"""`egoworld export inspect`: the real `inspect_ai.log.read_eval_log` reads the log back, images inside."""

from __future__ import annotations

import base64
import io
import json

import pytest
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.core.folders.bench_folder import save_benchmark
from egoworld.core.schema import ImageInput, Media, Sample, TaskInfo, VideoInput

pytest.importorskip("inspect_ai")
pytest.importorskip("av")
runner = CliRunner()


def image_bench(root):
    """Four-option questions over a short test-pattern video; two of them also carry a PNG image."""
    from PIL import Image

    from egoworld.media.testvideo import write_counter_video

    (root / "images").mkdir(parents=True)
    write_counter_video(root / "clip.mp4", frames=30, fps=10)
    Image.new("RGB", (64, 48), (200, 30, 30)).save(root / "images" / "red.png")
    samples = [
        Sample(
            id=f"q{i}",
            benchmark="toyimg",
            task="MC" if i < 4 else "COUNT",
            cluster="c0",
            question=f"Question {i}?",
            answer_type="choice" if i < 4 else "integer",
            choices=("a", "b", "c", "d") if i < 4 else None,
            answer=i % 4 if i < 4 else 3,
            media=Media(
                video=VideoInput(path="clip.mp4", end_s=2.0),
                images=(ImageInput(path="images/red.png", label="scene"),) if i % 2 else (),
            ),
            metadata={"horizon": i},
        )
        for i in range(5)
    ]
    tasks = {
        "MC": TaskInfo(answer_type="choice", metric="accuracy"),
        "COUNT": TaskInfo(answer_type="integer", metric="mra"),
    }
    return save_benchmark(root, name="toyimg", tasks=tasks, samples=samples)


def test_inspect_log_reads_back_with_images(tmp_path):
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ContentImage
    from PIL import Image

    image_bench(tmp_path / "bench")
    run = tmp_path / "run"
    argv = ["run", "--bench", str(tmp_path / "bench"), "--model", "random", "--out", str(run)]
    res = runner.invoke(
        app, [*argv, "--setting", "frames", "--frames", "3", "--permutations", "2", "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    log_path = tmp_path / "logs" / "run.eval"
    res = runner.invoke(app, ["export", "inspect", "--run", str(run), "--out", str(log_path)])
    assert res.exit_code == 0, res.output

    raw_log = read_eval_log(str(log_path))
    refs = [c.image for c in raw_log.samples[0].input[0].content if isinstance(c, ContentImage)]
    assert refs and all(r.startswith("attachment://") for r in refs)  # Inspect stores images once
    log = read_eval_log(str(log_path), resolve_attachments=True)
    assert log.status == "success" and log.eval.task == "egoworld/toyimg" and log.eval.model == "none/random"
    assert log.eval.task_args["setting"] == "frames" and log.eval.task_args["frames"] == 3
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert len(log.samples) == len(scores) == 4 * 2 + 1
    by_id = {(s.id, s.epoch): s for s in log.samples}
    for row in scores:
        sid = row["sample"] if row["sample"] == "q4" else f"{row['sample']}@{row['permutation']}"
        sample = by_id[(sid, row["epoch"] + 1)]
        assert sample.scores["egoworld"].value == row["score"]
        assert sample.output.completion == row["raw"]
        assert sample.metadata["egoworld_sample"] == row["sample"]
        images = [c for c in sample.input[0].content if isinstance(c, ContentImage)]
        n_expected = 3 + (1 if int(row["sample"][1:]) % 2 else 0)
        assert len(images) == n_expected, sid
        for img in images:
            head, data = img.image.split(",", 1)
            assert head.startswith("data:image/")
            assert Image.open(io.BytesIO(base64.b64decode(data))).size[0] > 0
        text = sample.input[0].text
        assert f"Question {row['sample'][1:]}?" in text
    q1 = (
        by_id[("q1@0123", 1)]
        if ("q1@0123", 1) in by_id
        else next(s for s in log.samples if s.id.startswith("q1@"))
    )
    assert q1.target in "ABCD" and q1.choices is not None and len(q1.choices) == 4
    metrics = log.results.scores[0].metrics
    summary = json.loads((run / "scores.json").read_text())
    assert metrics["mean"].value == pytest.approx(summary["overall"] / 100)  # Inspect's 0–1 scale


def test_inspect_refuses_other_suffix(tmp_path):
    res = runner.invoke(app, ["export", "inspect", "--run", str(tmp_path), "--out", str(tmp_path / "x.txt")])
    assert res.exit_code == 2
