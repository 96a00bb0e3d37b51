"""EXPLORE instances: official schema import, partitions, the tiny subset, EPIC-KITCHENS-100 sequences,
episode builds, strategies (segments / windows) and robust parsing of stepwise list replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from egoworld.benchmarks.explore.build.builder import ActionEpisode, build_from_episodes
from egoworld.benchmarks.explore.build.epic import build_epic, load_epic_actions, third_person
from egoworld.benchmarks.explore.importer import import_explore_anno
from egoworld.benchmarks.explore.instances import SceneObject, instance_from_sample
from egoworld.benchmarks.explore.partitions import partition_of, quotas, tiny_subset
from egoworld.benchmarks.explore.strategy import Strategy, parse_scene_list, step_labels
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import InputFileError


def _actions(n: int) -> str:
    return "|".join(f"C does step {i}" for i in range(n))


def official_items() -> list[dict]:
    return [
        {
            "start_frame": "vidA_0001.jpg",
            "atomic_actions": _actions(12),
            "end_frame_info": [
                {"category": "cup", "description": "a white cup", "relation": ["inside the cupboard"]},
                {"category": "cupboard", "description": "a wooden cupboard", "relation": []},
            ],
            "middle_frame_2_info": [
                {"category": "cup", "description": "a white cup", "relation": "on the table"}
            ],
            "middle_frame_1_info": [{"category": "cup", "description": "a white cup", "relation": []}],
            "video_uid": "vidA",
        },
        {
            "start_frame": "vidB_0002.jpg",
            "atomic_actions": _actions(150),
            "end_frame_info": [
                {
                    "category": "pan",
                    "description": "a black pan",
                    "relation": ["in the sink"],
                    "key_state": "dirty",
                }
            ],
        },
        {
            "start_frame": "vidC_0003.jpg",
            "atomic_actions": _actions(250),
            "end_frame_info": [{"category": "knife", "description": "a knife", "relation": ["on the board"]}],
        },
    ]


def test_official_import_maps_schema_partitions_and_tasks(tmp_path: Path) -> None:
    anno = tmp_path / "anno.json"
    anno.write_text(json.dumps(official_items()))
    images = tmp_path / "imgs"
    images.mkdir()
    for item in official_items():
        (images / item["start_frame"]).write_bytes(b"jpeg bytes (not decoded at import)")
    bench = import_explore_anno(anno, tmp_path / "b", images=images)
    assert [s.task for s in bench.samples] == ["scene", "abnormal", "scene"]
    assert [s.metadata["partition"] for s in bench.samples] == ["short", "medium", "long"]
    first = bench.samples[0]
    assert first.id == "vidA_0001" and first.media.images[0].path == "images/vidA_0001.jpg"
    assert (tmp_path / "b/images").is_symlink()
    inst = instance_from_sample(first)
    # middle frames are ordered by their number, a relation string becomes a one-element list
    assert [m.objects[0].relations for m in inst.middle] == [(), ("on the table",)]
    assert inst.final.objects[1].relations == () and first.metadata["extra"] == {"video_uid": "vidA"}
    assert instance_from_sample(bench.samples[1]).abnormal
    # deterministic: the same input gives byte-identical files
    again = import_explore_anno(anno, tmp_path / "b2")
    assert (tmp_path / "b/samples.jsonl").read_bytes() == (tmp_path / "b2/samples.jsonl").read_bytes()
    assert load_benchmark(tmp_path / "b2").manifest.counts == {"scene": 2, "abnormal": 1}
    assert again.manifest.builder["tiny"]["ratio"] == [52, 37, 11]


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ({"atomic_actions": "C a"}, "start_frame"),
        ({"start_frame": "x.jpg", "atomic_actions": "  |  "}, "atomic_actions"),
        (
            {"start_frame": "x.jpg", "atomic_actions": "C a", "end_frame_info": [{"description": "d"}]},
            "category",
        ),
        (
            {
                "start_frame": "x.jpg",
                "atomic_actions": "C a",
                "end_frame_info": [{"category": "c", "relation": [3]}],
            },
            "relation",
        ),
    ],
)
def test_bad_official_items_name_file_item_and_field(tmp_path: Path, item: dict, fragment: str) -> None:
    anno = tmp_path / "anno.json"
    anno.write_text(json.dumps([item]))
    with pytest.raises(InputFileError) as exc:
        import_explore_anno(anno, tmp_path / "b")
    assert "anno.json, item 0" in str(exc.value) and fragment in str(exc.value)


def test_partitions_and_tiny_subset_ratio_and_determinism() -> None:
    assert [partition_of(n) for n in (10, 11, 99, 100, 199, 200, 694, 695)] == [
        None,
        "short",
        "short",
        "medium",
        "medium",
        "long",
        "long",
        None,
    ]
    assert quotas(100) == [52, 37, 11] and quotas(10) == [5, 4, 1] and sum(quotas(37)) == 37
    pool = [(f"s{i}", 11 + i % 89) for i in range(300)] + [(f"m{i}", 100 + i % 100) for i in range(200)]
    pool += [(f"l{i}", 200 + i) for i in range(5)]
    chosen, report = tiny_subset(pool, seed=3)
    assert report["short"]["taken"] == 52 and report["medium"]["taken"] == 37
    assert report["long"] == {"quota": 11, "taken": 5, "available": 5}  # shortfall shown, not redistributed
    again, _ = tiny_subset(list(reversed(pool)), seed=3)
    other, _ = tiny_subset(pool, seed=4)
    assert chosen == again and chosen != other


def test_epic_sequences_are_real_ordered_and_deterministic(tmp_path: Path, data_dir: Path) -> None:
    folder = data_dir / "epic-kitchens-100"
    videos = load_epic_actions(folder)
    assert sum(len(v) for v in videos.values()) == 9668 and len(videos) == 138
    assert all(
        a.start_frame <= b.start_frame for v in videos.values() for a, b in zip(v, v[1:], strict=False)
    )
    assert (
        third_person("put down plate") == "C puts down plate"
        and third_person("wash cloth") == "C washes cloth"
    )
    assert third_person("dry hands") == "C dries hands"
    bench = build_epic(folder, tmp_path / "e", per_partition=3, seed=1)
    assert {s.task for s in bench.samples} == {"unannotated"}
    parts = [s.metadata["partition"] for s in bench.samples]
    assert parts.count("short") == parts.count("medium") == parts.count("long") == 3
    s = bench.samples[-1]
    extra = s.metadata["extra"]
    acts = videos[extra["video_id"]]
    start = next(i for i, a in enumerate(acts) if a.narration_id == extra["first_narration_id"])
    expected = [third_person(a.narration) for a in acts[start : start + s.metadata["n_actions"]]]
    assert s.question.split("|") == expected
    build_epic(folder, tmp_path / "e2", per_partition=3, seed=1)
    assert (tmp_path / "e/samples.jsonl").read_bytes() == (tmp_path / "e2/samples.jsonl").read_bytes()


def test_build_from_episodes_copies_images_and_keeps_initial_and_middle_scenes(tmp_path: Path) -> None:
    img = tmp_path / "frame.png"
    img.write_bytes(b"\x89PNG fake")
    cup = SceneObject("cup", "a red cup", ("on the table",))
    ep = ActionEpisode(
        id="ep1",
        actions=[f"C moves thing {i}" for i in range(20)],
        final_scene=[cup],
        initial_image=img,
        initial_scene=[SceneObject("cup", "a red cup", ("in the sink",))],
        middle_scenes=[(10, [SceneObject("cup", "a red cup", ("in C's hand",))])],
    )
    bench = build_from_episodes([ep], tmp_path / "b")
    s = bench.samples[0]
    assert (tmp_path / "b/images/ep1.png").read_bytes() == b"\x89PNG fake"
    inst = instance_from_sample(s)
    assert inst.initial.objects[0].relations == ("in the sink",)
    assert inst.middle[0].after_action == 10 and len(inst.actions) == 20
    with pytest.raises(InputFileError, match="contain no"):
        build_from_episodes([ActionEpisode(id="x", actions=["a|b"], final_scene=[cup])], tmp_path / "c")


def test_segments_windows_and_step_labels() -> None:
    text = _actions(10)
    seg3 = Strategy("stepwise", segment_num=3).segments(text)
    assert [len(s.split("|")) for s in seg3] == [3, 3, 4]  # equal parts, the last takes the remainder
    assert "|".join(seg3) == text
    win4 = Strategy("stepwise", window_size=4, turns="multi")
    assert [len(s.split("|")) for s in win4.segments(text)] == [4, 4, 2]
    assert win4.step_ends(text) == [4, 8, 10]
    assert step_labels(win4, text) == ["turn-001", "turn-002", "turn-003"]
    # fewer actions than segments: one action per segment (the public code makes empty leading segments)
    assert Strategy("stepwise", segment_num=5).segments(_actions(3)) == [
        "C does step 0",
        "C does step 1",
        "C does step 2",
    ]
    assert Strategy().segments(text) == [text] and step_labels(Strategy(), text) == ["one-go"]
    for bad in (
        dict(kind="stepwise"),
        dict(kind="stepwise", segment_num=1),
        dict(kind="one-go", window_size=3),
    ):
        with pytest.raises(ValueError):
            Strategy(**bad)


@pytest.mark.parametrize(
    ("reply", "expected", "rule"),
    [
        ('["Scene one.", "Scene two."]', ["Scene one.", "Scene two."], "json"),
        ('Sure!\n```json\n["A [red] cup.", "B"]\n```', ["A [red] cup.", "B"], "json"),
        # the public parser's non-greedy \[.*?\] stops at the first ']' inside a string
        (
            'Here: ["The cup [left] is red.", "The pan is hot."] done',
            ["The cup [left] is red.", "The pan is hot."],
            "json",
        ),
        ("<think>maybe [1]</think>[“one”, “two”,]", ["one", "two"], "json"),
        ("['single quoted', 'python list']", ["single quoted", "python list"], "json"),
        (
            "Scene 1: A cup on a table.\nScene 2: The cup is in the sink.",
            ["A cup on a table.", "The cup is in the sink."],
            "headings",
        ),
        ("A plain description without a list.", None, "failed"),
    ],
)
def test_parse_scene_list(reply: str, expected: list[str] | None, rule: str) -> None:
    assert parse_scene_list(reply) == (expected, rule)
