"""The benchmark contract: every sample form the three benchmarks need, validation errors, determinism."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from egoworld.core.folders.bench_folder import load_benchmark, rehash_benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.schema import FrameInput, ImageInput, Media, Sample, TaskInfo, Trajectory, VideoInput

TASKS = {
    "mc": TaskInfo(answer_type="choice", metric="accuracy"),
    "count": TaskInfo(answer_type="integer", metric="mra"),
    "scene": TaskInfo(answer_type="free", metric="explore"),
}


def every_form() -> list[Sample]:
    clip = VideoInput(path="videos/k1.mp4", start_s=0.0, end_s=125.0, duration_s=600.0)
    return [
        # several acceptable answers, variable number of choices, video clip ending at the query time
        Sample(
            id="b3d-1",
            benchmark="t",
            task="mc",
            episode="k1",
            question="Which fixture is nearest?",
            answer_type="choice",
            choices=("sink", "hob", "counter", "fridge", "oven"),
            answer=[0, 2],
            media=Media(video=clip),
            trajectory=Trajectory(id="a1", step=0),
        ),
        # a later step that depends on an earlier one
        Sample(
            id="b3d-2",
            benchmark="t",
            task="mc",
            episode="k1",
            question="Is it visible?",
            answer_type="choice",
            choices=("No", "Yes"),
            answer=0,
            media=Media(video=clip),
            trajectory=Trajectory(id="a1", step=1, depends_on=("b3d-1",)),
        ),
        # integer answer, no media
        Sample(
            id="voc-1",
            benchmark="t",
            task="count",
            question="How many cones?",
            answer_type="integer",
            answer=7,
        ),
        # frames of a video with labels (VPO) and a marked frame
        Sample(
            id="vpo-1",
            benchmark="t",
            task="mc",
            question="Order the frames.",
            answer_type="choice",
            choices=("1-2-3-4", "2-1-3-4", "4-3-2-1", "1-3-2-4"),
            answer=1,
            media=Media(
                video=VideoInput(path="v.mp4"),
                frames=tuple(
                    FrameInput(index=10 * k, label=f"Frame {k + 1}", view={"yaw_deg": 45.0}) for k in range(4)
                ),
            ),
        ),
        Sample(
            id="lf-1",
            benchmark="t",
            task="mc",
            question="Direction?",
            answer_type="choice",
            choices=("12 to 4:30", "4:30 to 7:30", "7:30 to 12"),
            answer=2,
            media=Media(video=VideoInput(path="v.mp4"), frames=(FrameInput(time_s=12.5, marker=(200, 140)),)),
        ),
        # several images, free-form answer against a reference scene annotation
        Sample(
            id="exp-1",
            benchmark="t",
            task="scene",
            question="Describe the final scene.",
            answer_type="free",
            answer=[{"category": "cup", "description": "a red cup", "relation": ["on the table"]}],
            media=Media(images=(ImageInput(path="start.jpg", label="initial scene"),)),
        ),
    ]


def test_every_form_round_trips(tmp_path):
    bench = save_benchmark(tmp_path, name="t", tasks=TASKS, samples=every_form(), seed=3)
    loaded = load_benchmark(tmp_path)
    assert [s.model_dump() for s in loaded.samples] == [s.model_dump() for s in bench.samples]
    assert loaded.sample("b3d-1").correct_indices == (0, 2)
    assert loaded.manifest.counts == {"mc": 4, "count": 1, "scene": 1}
    assert loaded.manifest.answer_distribution["mc"] == {"A": 1, "A/C": 1, "B": 1, "C": 1}


def test_same_samples_give_byte_identical_files(tmp_path):
    save_benchmark(tmp_path / "a", name="t", tasks=TASKS, samples=every_form(), seed=1)
    save_benchmark(tmp_path / "b", name="t", tasks=TASKS, samples=every_form(), seed=1)
    for f in ("manifest.json", "samples.jsonl"):
        assert sha256_file(tmp_path / "a" / f) == sha256_file(tmp_path / "b" / f)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"answer_type": "choice", "choices": ("a", "b"), "answer": 2}, "out of range"),
        ({"answer_type": "choice", "choices": ("a", "A"), "answer": 0}, "distinct"),
        ({"answer_type": "choice", "choices": ("a",), "answer": 0}, "at least 2"),
        ({"answer_type": "choice", "answer": 0}, "needs 'choices'"),
        ({"answer_type": "choice", "choices": ("a", "b"), "answer": True}, "index"),
        ({"answer_type": "integer", "answer": 2.5}, "whole"),
        ({"answer_type": "integer", "answer": "7"}, "must be a number"),
        ({"answer_type": "integer", "answer": 3, "choices": ("a", "b")}, "takes no 'choices'"),
        ({"answer_type": "free", "answer": None}, "reference"),
        ({"answer_type": "integer", "answer": 1, "media": {"frames": [{"index": 1}]}}, "'video' is missing"),
        (
            {
                "answer_type": "integer",
                "answer": 1,
                "media": {"video": {"path": "v", "start_s": 5, "end_s": 2}},
            },
            "before start_s",
        ),
        (
            {
                "answer_type": "integer",
                "answer": 1,
                "media": {"video": {"path": "v"}, "frames": [{"label": "x"}]},
            },
            "'index' or a 'time_s'",
        ),
        ({"answer_type": "integer", "answer": 1, "colour": "red"}, "Extra inputs"),
    ],
)
def test_invalid_samples_are_refused_with_a_reason(kwargs, needle):
    with pytest.raises(ValidationError) as err:
        Sample.model_validate({"id": "x", "benchmark": "t", "task": "mc", "question": "q?", **kwargs})
    assert needle in str(err.value)


def _write(tmp_path, rows, tasks=None):
    save_benchmark(tmp_path, name="t", tasks=tasks or TASKS, samples=[])
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["samples_sha256"] = sha256_file(tmp_path / "samples.jsonl")
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))


def test_load_names_file_line_id_and_field(tmp_path):
    good = {
        "id": "a",
        "benchmark": "t",
        "task": "count",
        "question": "q",
        "answer_type": "integer",
        "answer": 1,
    }
    bad = {**good, "id": "b", "answer": "seven"}
    _write(tmp_path, [good, bad])
    with pytest.raises(InputFileError) as err:
        load_benchmark(tmp_path)
    msg = str(err.value)
    assert "samples.jsonl, line 2" in msg and "(id b)" in msg and "field 'answer'" in msg


def test_load_refuses_unknown_task_duplicates_and_forward_dependencies(tmp_path):
    base = {"benchmark": "t", "question": "q", "answer_type": "integer", "answer": 1}
    _write(tmp_path, [{**base, "id": "a", "task": "nope"}])
    with pytest.raises(InputFileError, match="does not list"):
        load_benchmark(tmp_path)
    _write(tmp_path, [{**base, "id": "a", "task": "count"}, {**base, "id": "a", "task": "count"}])
    with pytest.raises(InputFileError, match="appears twice"):
        load_benchmark(tmp_path)
    step = {**base, "task": "count", "trajectory": {"id": "t1", "step": 1, "depends_on": ["later"]}}
    _write(tmp_path, [{**step, "id": "first"}, {**base, "id": "later", "task": "count"}])
    with pytest.raises(InputFileError, match="not an earlier sample"):
        load_benchmark(tmp_path)


def test_edited_samples_are_detected_and_rehash_accepts_them(tmp_path):
    save_benchmark(tmp_path, name="t", tasks=TASKS, samples=every_form())
    path = tmp_path / "samples.jsonl"
    path.write_text(path.read_text().replace("How many cones?", "How many traffic cones?"))
    with pytest.raises(InputFileError, match="rehash"):
        load_benchmark(tmp_path)
    rehash_benchmark(tmp_path)
    assert load_benchmark(tmp_path).sample("voc-1").question == "How many traffic cones?"


def test_missing_folder_says_how_to_make_one(tmp_path):
    with pytest.raises(InputFileError, match="egoworld import"):
        load_benchmark(tmp_path / "nothing")
