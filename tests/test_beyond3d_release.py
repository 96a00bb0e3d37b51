"""Importing the official Beyond3D release format (`egoworld import beyond3d-qa`), its official prompt
layout (byte-identical to the official logs' `input`), and its time + point answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.beyond3d.importer import docs_to_records, import_beyond3d_qa
from egoworld.benchmarks.beyond3d.prompts import Beyond3DPromptBuilder
from egoworld.cli import app
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import InputFileError

LOGS = "beyond3d-official/logs"


def log_lines(data_dir: Path) -> list[tuple[Path, list[dict]]]:
    files = sorted((data_dir / LOGS).glob("*/*.jsonl"))
    assert len(files) == 6
    return [(f, [json.loads(line) for line in f.open()]) for f in files]


def write_release(path: Path, lines: list[dict]) -> Path:
    records = docs_to_records([ln["oos_score"] for ln in lines])
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_release_import_keeps_official_ids_steps_and_fields(data_dir: Path, tmp_path: Path) -> None:
    _, lines = log_lines(data_dir)[3]  # Qwen3.6-27B with video: whole trajectories, steps 1–5c
    bench = import_beyond3d_qa(write_release(tmp_path / "rel.jsonl", lines), tmp_path / "b")
    by_id = {s.id: s for s in bench.samples}
    assert list(by_id) == [ln["oos_score"]["id"] for ln in lines]
    step5b = next(s for s in bench.samples if s.id.endswith("__step_5b"))
    doc = next(ln["oos_score"] for ln in lines if ln["oos_score"]["id"] == step5b.id)
    assert step5b.task == "object_object_direction"
    assert step5b.trajectory is not None and step5b.trajectory.step == 5 and step5b.trajectory.label == "5b"
    assert step5b.cluster == doc["source_video_id"] and step5b.episode == doc["trajectory_id"]
    assert all(d in by_id for d in step5b.trajectory.depends_on)
    assert step5b.metadata["official"]["answer_metadata"] == doc["answer_metadata"]
    assert step5b.metadata["official"]["generation_info"] == doc["generation_info"]
    assert "accuracy" not in step5b.metadata["official"]  # the harness's verdict is not a producer field
    assert step5b.answer == sorted(doc["acceptable_answer_idxs"]) or step5b.answer == doc["answer_idx"]
    open_step = next(s for s in bench.samples if s.task == "last_placement_time")
    assert open_step.answer_type == "time_point"
    assert open_step.answer["time_tolerance_s"] == 3.0 and open_step.answer["point_tolerance"] == 0.2
    m = bench.manifest
    assert m.tasks["last_placement_time"].metric == "time_point"
    assert m.builder["time_tolerance_s"] == 3.0 and m.builder["step23_mode"] == "time_point"
    # the same file gives the same bytes
    again = import_beyond3d_qa(tmp_path / "rel.jsonl", tmp_path / "b2")
    assert again.hash == bench.hash


def test_prompts_equal_the_logged_input(data_dir: Path, tmp_path: Path) -> None:
    builder = Beyond3DPromptBuilder()
    n = 0
    for i, (_, lines) in enumerate(log_lines(data_dir)):
        bench = import_beyond3d_qa(write_release(tmp_path / f"{i}.jsonl", lines), tmp_path / f"b{i}")
        for ln in lines:
            s = bench.sample(ln["oos_score"]["id"])
            assert builder.question_text(s, s.choices) == ln["input"], s.id
            n += 1
    assert n == 58


def test_skipped_steps_single_questions_and_time_only(tmp_path: Path) -> None:
    steps = [
        {"step": "1", "step_question_class": "oos_step1_visibility", "question": "Visible?",
         "choices": ["No", "Yes"], "correct_idx": 1},
        {"step": "2", "step_question_class": "oos_step2_last_visible", "question": "When?", "skipped": True},
        {"step": "3", "step_question_class": "oos_step3_last_placement", "question": "Stop?",
         "depends_on_steps": ["1", "2"],
         "answer_metadata": {"last_placement_time_sec": 10.0, "normalized_projected_pixel": [0.5, 0.5]}},
    ]  # fmt: skip
    records = [
        {"trajectory_id": "t1", "video_id": "P01-1", "mode": "multi_turn", "query_time_sec": 20, "steps": steps},
        {"doc_id": "q1", "video_id": "P01-2", "step_question_class": "oos_branch_object_object_distance",
         "question": "How far?", "choices": ["close", "medium", "far"], "correct_idx": 2, "acceptable_idxs": [1, 2]},
    ]  # fmt: skip
    f = tmp_path / "r.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records))
    from egoworld.benchmarks.beyond3d.importer import ReleaseSettings

    b = import_beyond3d_qa(f, tmp_path / "b", settings=ReleaseSettings(time_only=True, time_tolerance_s=1.0))
    assert [s.id for s in b.samples] == ["t1__step_1", "t1__step_3", "q1"]
    s3 = b.sample("t1__step_3")
    assert s3.trajectory is not None and s3.trajectory.depends_on == ("t1__step_1",)  # step 2 was skipped
    assert s3.answer["time_only"] and s3.answer["candidates"][0]["time_s"] == 10.0
    assert "x" not in s3.answer["candidates"][0]
    assert b.sample("q1").answer == [1, 2] and b.sample("q1").trajectory is None
    assert b.manifest.builder["step23_mode"] == "time_only"


@pytest.mark.parametrize(
    ("record", "needle"),
    [
        ({"doc_id": "q", "step_question_class": "oos_step1_visibility", "choices": ["No", "Yes"], "correct_idx": 0},
         "field 'question'"),
        ({"doc_id": "q", "step_question_class": "oos_step1_visibility", "question": "?", "choices": ["No", "Yes"],
          "correct_idx": 2}, "field 'correct_idx'"),
        ({"doc_id": "q", "step_question_class": "oos_step9", "question": "?"}, "field 'step_question_class'"),
        ({"trajectory_id": "t", "mode": "multi_turn", "steps": [{"step": "x1", "question": "?"}]}, "field 'step'"),
        ({"doc_id": "q", "step_question_class": "oos_step2_last_visible", "question": "?", "answer_metadata": {}},
         "field 'answer_metadata'"),
    ],
)  # fmt: skip
def test_bad_records_name_line_and_field(tmp_path: Path, record: dict, needle: str) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text("\n" + json.dumps(record) + "\n")
    with pytest.raises(InputFileError) as err:
        import_beyond3d_qa(f, tmp_path / "b")
    assert "line 2" in str(err.value) and needle in str(err.value)


def test_cli_with_videos_gives_prefix_clip_and_anchor_marker(data_dir: Path, tmp_path: Path) -> None:
    _, lines = log_lines(data_dir)[3]
    rel = write_release(tmp_path / "rel.jsonl", lines)
    videos = tmp_path / "videos"
    videos.mkdir()
    args = ["import", "beyond3d-qa", str(rel), "--videos", str(videos), "--out", str(tmp_path / "b")]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "does not exist" in res.output  # a missing video is refused at import
    for ln in lines:
        (videos / Path(ln["oos_score"]["video_path"]).name).write_bytes(b"not decoded at import")
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    b = load_benchmark(tmp_path / "b")
    marked = 0
    for ln in lines:
        doc, s = ln["oos_score"], b.sample(ln["oos_score"]["id"])
        assert s.media.video is not None and s.media.video.end_s == pytest.approx(doc["query_time_sec"])
        assert s.media.video.path == "videos/" + Path(doc["video_path"]).name
        xy = doc["answer_metadata"].get("object_y_normalized_projected_pixel")
        if s.task.startswith("object_object") and xy and all(0 <= v <= 1 for v in xy):
            (frame,) = s.media.frames
            assert frame.marker == pytest.approx((xy[0] * 448, xy[1] * 448))
            marked += 1
        else:
            assert s.media.frames == ()
    assert marked >= 2
    assert (tmp_path / "b" / "videos").is_symlink()


def test_gold_history_uses_the_official_conversation_layout(tmp_path: Path) -> None:
    from egoworld.benchmarks.beyond3d.prompts import SYSTEM, TIME_POINT_INSTRUCTION
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from openai_test_server import FakeOpenAIServer

    meta = {"sampled_last_visible_time_sec": 20.0, "normalized_projected_pixel": [0.31744, 0.79091]}
    steps = [
        {"step": "1", "step_question_class": "oos_step1_visibility", "question": "Is the cup visible?",
         "choices": ["No", "Yes"], "correct_idx": 0},
        {"step": "2", "step_question_class": "oos_step2_last_visible", "question": "When was it last visible?",
         "depends_on_steps": ["1"], "answer_metadata": meta},
        {"step": "4", "step_question_class": "oos_step4_fixture", "question": "Which fixture?",
         "choices": ["hob", "sink"], "correct_idx": 1, "depends_on_steps": ["1", "2"]},
    ]  # fmt: skip
    rec = {
        "trajectory_id": "t",
        "video_id": "P01-1",
        "mode": "multi_turn",
        "object_a_name": "cup",
        "steps": steps,
    }
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    import_beyond3d_qa(f, tmp_path / "b")
    prompts: list[str] = []
    with FakeOpenAIServer(reply=lambda p: prompts.append(p) or "A") as srv:
        cfg = RunConfig(bench=tmp_path / "b", model="openai:fake-vlm-1", out=tmp_path / "run",
                        model_args={"base_url": srv.base_url}, history="gold", progress=False)  # fmt: skip
        assert run_benchmark(cfg).ok == 3
    want = "\n\n".join(
        [
            SYSTEM,
            "Conversation history:",
            "USER: Is the cup visible?\nOptions:\nA. No\nB. Yes",
            "ASSISTANT: No",
            "USER: When was it last visible?",
            "ASSISTANT: cup was last visible at <TIME 00:00:20.0 video 1>, at normalized image coordinates "
            "(x=0.3174, y=0.7909), where x and y are in [0, 1].",
            "Question: Which fixture?\nOptions:\nA. hob\nB. sink\nSelect the best option and output only its letter.",
        ]
    )
    assert want in prompts
    assert (
        f"{SYSTEM}\n\nQuestion: When was it last visible?\n{TIME_POINT_INSTRUCTION}" not in prompts
    )  # has history


def test_baselines_answer_time_point_steps(data_dir: Path, tmp_path: Path) -> None:
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    _, lines = log_lines(data_dir)[3]
    import_beyond3d_qa(write_release(tmp_path / "rel.jsonl", lines), tmp_path / "b")
    for model in ("oracle", "random", "prior"):
        cfg = RunConfig(bench=tmp_path / "b", model=model, out=tmp_path / model, progress=False)
        assert run_benchmark(cfg).errors == 0
        summary = score_run(tmp_path / model)
        assert summary["complete"] and summary["parse_rate"] == 100.0
        if model == "oracle":
            assert summary["overall"] == 100.0 and summary["official"]["trajectory_success_rate"] == 100.0


def test_official_protocol_sends_the_prefix_as_one_video(data_dir: Path, tmp_path: Path) -> None:
    """``--option protocol=official``: text-only requests are egoworld's; the video setting sends the official
    prefix (every frame from 0 to the query time) as one video part with the anchor marker on its last frame,
    and no separate query-frame image; the official harness has no last-frame setting."""
    import math

    from egoworld.core.folders.store import ResponseStore
    from egoworld.core.run_config import RunConfig
    from egoworld.media.testvideo import write_counter_video
    from egoworld.runner.run import run_benchmark

    _, lines = log_lines(data_dir)[3]
    rel = write_release(tmp_path / "rel.jsonl", lines)
    videos = tmp_path / "videos"
    videos.mkdir()
    for name in {Path(ln["oos_score"]["video_path"]).name for ln in lines}:
        end = max(
            ln["oos_score"]["query_time_sec"] for ln in lines if ln["oos_score"]["video_path"].endswith(name)
        )
        write_counter_video(videos / name, frames=math.ceil(end) + 2, fps=1, size=(448, 448), gop=30)
    import_beyond3d_qa(rel, tmp_path / "b", videos=videos)

    def requests(setting: str, protocol: str) -> dict[str, list[dict]]:
        out = tmp_path / f"{setting}-{protocol}"
        opts = {"protocol": protocol}
        cfg = RunConfig(
            bench=tmp_path / "b", model="oracle", out=out, setting=setting, options=opts, progress=False
        )
        assert run_benchmark(cfg).errors == 0
        with ResponseStore(out / "responses.sqlite", readonly=True) as store:
            return {sid: store.request(k)["messages"][0]["content"] for sid, _, _, k, _ in store.planned()}

    assert requests("text", "official") == requests("text", "egoworld")
    b = load_benchmark(tmp_path / "b")
    official, ours = requests("frames", "official"), requests("frames", "egoworld")
    for sid, parts in official.items():
        media, text = parts[:-1], parts[-1]
        assert text == ours[sid][-1]
        (video,) = media
        assert video["type"] == "video" and video["role"] == "clip" and video["first"] == 0
        assert video["last"] == round(b.sample(sid).media.video.end_s)
        assert ("marker" in video) == bool(b.sample(sid).media.frames)
        # the official marker style (ffmpeg's drawbox square: tests/test_media_overlays.py)
        assert video.get("marker_style") == ("square" if "marker" in video else None)
        assert all(p["type"] == "image" for p in ours[sid][:-1])  # egoworld: images
    with pytest.raises(Exception, match="no 'last-frame' setting"):
        requests("last-frame", "official")
