"""Class 2: impossible values are refused at the door, naming file, line and field.

One validated numeric type (`egoworld.core.numbers`) serves the sample schema, the world loaders and the
importers: no float→int truncation, no boolean as a number, no negative counts, no NaN / ±Infinity / huge
integers, and nothing egoworld writes is ever non-JSON (``Infinity``).
"""

from __future__ import annotations

import json

import pytest

from conftest import egoworld, refused, sample_row, write_bench


def _voc_row(answer):
    return {
        "doc_id": "voc0", "video_name": "abc_front.mp4", "task_type": "VOC", "question": "How many chairs?",
        "answer": answer, "frame_indices": [], "options": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    "answer, needle",
    [
        (3.7, "not a whole number"),
        (True, "a boolean"),
        (-5, "below the minimum 0"),
        ("3.7", "not a whole number"),
        ("lots", "not a number"),
    ],
)
def test_import_vsi_wild_refuses_an_impossible_voc_count(tmp_path, answer, needle):
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        json.dumps(_voc_row(3)) + "\n" + json.dumps(_voc_row(answer)).replace("voc0", "voc1") + "\n"
    )
    res = egoworld("import", "vsi-wild-qa", qa, "--out", tmp_path / "b")
    refused(res, f"{qa}, line 2", "field 'answer'", needle)
    assert not (tmp_path / "b" / "manifest.json").exists()


@pytest.mark.parametrize(
    "literal, needle",
    [
        ("NaN", "NaN is not a JSON number"),
        ("Infinity", "Infinity is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
        ("1e400", "overflows a 64-bit float"),
        ("9" * 400, "too long"),
    ],
)
def test_bench_check_refuses_non_finite_and_huge_gold_answers(tmp_path, literal, needle):
    good = json.dumps(sample_row("n0", task="N", answer_type="integer", choices=None, answer=4))
    bad = good.replace('"n0"', '"n1"').replace('"answer": 4', f'"answer": {literal}')
    bench = write_bench(tmp_path / "bench", [good, bad])
    refused(egoworld("bench", "check", "--bench", bench), "samples.jsonl, line 2", needle)


def test_an_integer_too_large_for_json_readers_is_refused(tmp_path):
    row = sample_row("n0", task="N", answer_type="integer", choices=None, answer=2**60)
    bench = write_bench(tmp_path / "bench", [row])
    refused(egoworld("bench", "check", "--bench", bench), "line 1 (id n0)", "field 'answer'", "too large")


@pytest.mark.parametrize(
    "media, field, needle",
    [
        (
            {"video": {"path": "v.mp4"}, "frames": [{"index": 2.5}]},
            "media.frames.0.index",
            "not a whole number",
        ),
        ({"video": {"path": "v.mp4"}, "frames": [{"index": True}]}, "media.frames.0.index", "a boolean"),
        (
            {"video": {"path": "v.mp4"}, "frames": [{"index": -1}]},
            "media.frames.0.index",
            "below the minimum",
        ),
        ({"video": {"path": "v.mp4", "end_s": -3}}, "media.video.end_s", "below the minimum"),
        ({"video": {"path": "v.mp4", "end_s": "10"}}, "media.video.end_s", "expected a number"),
        (
            {"video": {"path": "v.mp4"}, "frames": [{"time_s": 1, "marker": [1, True]}]},
            "marker.1",
            "a boolean",
        ),
    ],
)
def test_bench_check_refuses_impossible_media_numbers(tmp_path, media, field, needle):
    bench = write_bench(tmp_path / "bench", [sample_row(media=media)])
    refused(egoworld("bench", "check", "--bench", bench), "samples.jsonl, line 1 (id q0)", field, needle)


def test_run_refuses_a_non_finite_answer_before_any_request(tmp_path, server):
    from conftest import run_args

    good = json.dumps(sample_row("n0", task="N", answer_type="integer", choices=None, answer=4))
    bench = write_bench(tmp_path / "bench", [good, good.replace('"n0"', '"n1"').replace("4}", "NaN}")])
    refused(egoworld(*run_args(bench, tmp_path / "run", server)), "samples.jsonl, line 2", "NaN")
    assert server.bodies == []


def _hd_epic(root, duration):
    (root / "scene-and-object-movements").mkdir(parents=True)
    (root / "youtube-links").mkdir(parents=True)
    assoc = {"P01-1": {"a1": {"name": "cup", "tracks": [{"track_id": "t1", "time_segment": [1.0, 2.0]}]}}}
    (root / "scene-and-object-movements" / "assoc_info.json").write_text(json.dumps(assoc))
    (root / "youtube-links" / "HD_EPIC_YouTube_URLs.csv").write_text(
        f"video_id,youtube_url,duration\nP01-1,https://youtu.be/x,{duration}\n"
    )
    return root


@pytest.mark.parametrize("duration", ["inf", "nan", "-5", "0", "1e999", ""])
def test_world_import_hd_epic_refuses_an_impossible_duration(tmp_path, duration):
    src = _hd_epic(tmp_path / "hd", duration)
    out = tmp_path / "world"
    res = egoworld("world", "import", "hd-epic", src, "--out", out)
    refused(res, "HD_EPIC_YouTube_URLs.csv, line 2", "field 'duration'")
    assert not list(out.rglob("episode.json")) if out.exists() else True


def test_world_show_refuses_non_finite_numbers_in_episode_files(tmp_path):
    ep = tmp_path / "ep"
    ep.mkdir()
    (ep / "episode.json").write_text(
        '{"format": "egoworld.episode/1", "id": "e1", "duration_s": Infinity, "fps": 30}'
    )
    refused(egoworld("world", "show", ep, "--no-picture"), "episode.json", "line 1", "Infinity")
    (ep / "episode.json").write_text(
        '{"format": "egoworld.episode/1", "id": "e1", "duration_s": 9, "fps": true}'
    )
    refused(egoworld("world", "show", ep, "--no-picture"), "episode.json", "field 'fps'", "a boolean")


def test_no_writer_produces_non_json_infinity(tmp_path):
    """Belt and braces: `write_json` refuses NaN / Infinity instead of writing a file no reader accepts."""
    from egoworld.core.folders.files import write_json

    with pytest.raises(ValueError, match="not JSON compliant"):
        write_json(tmp_path / "x.json", {"duration_s": float("inf")})
    assert not (tmp_path / "x.json").exists()


def test_the_numeric_rule_in_one_place():
    from egoworld.core.numbers import check_number, parse_number, strict_loads

    assert check_number(3.0, kind="int") == 3 and isinstance(check_number(3.0, kind="int"), int)
    assert parse_number(" 2.5 ") == 2.5
    for bad in (True, float("nan"), float("-inf"), 2**53 + 1, "3", None, [1]):
        with pytest.raises(ValueError):
            check_number(bad)
    with pytest.raises(json.JSONDecodeError) as info:
        strict_loads('{\n  "a": 1,\n  "b": NaN\n}')
    assert (info.value.lineno, info.value.colno) == (3, 8)


@pytest.mark.parametrize("duration", ["inf", "nan", "-3", "true"])
def test_import_vsi_wild_durations_refuses_an_impossible_duration(tmp_path, duration):
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps(_voc_row(3)) + "\n")
    bench = tmp_path / "b"
    assert egoworld("import", "vsi-wild-qa", qa, "--out", bench).code == 0
    before = (bench / "samples.jsonl").read_bytes()
    csv = tmp_path / "durations.csv"
    csv.write_text(f"video_name,duration_s\nabc_front.mp4,{duration}\n")
    res = egoworld("import", "vsi-wild-durations", "--bench", bench, "--durations", csv)
    refused(res, f"{csv}, line 2", "field 'duration_s'")
    assert (bench / "samples.jsonl").read_bytes() == before


def test_world_import_epic_kitchens_refuses_impossible_numbers(tmp_path):
    root = tmp_path / "ek"
    root.mkdir()
    head = "narration_id,participant_id,video_id,narration_timestamp,start_timestamp,stop_timestamp,start_frame,stop_frame,narration,verb,verb_class,noun,noun_class,all_nouns,all_noun_classes"
    row = "P01_11_0,P01,P01_11,00:00:00.560,00:00:00.00,00:00:01.89,1.5,113,take plate,take,0,plate,2,['plate'],[2]"
    (root / "EPIC_100_validation.csv").write_text(f"{head}\n{row}\n")
    (root / "EPIC_100_video_info.csv").write_text(
        "video_id,duration,fps,resolution\nP01_11,10,60,1920x1080\n"
    )
    res = egoworld("world", "import", "epic-kitchens", root, "--out", tmp_path / "w")
    refused(res, "EPIC_100_validation.csv, line 2", "1.5 is not a whole number")
    (root / "EPIC_100_validation.csv").write_text(f"{head}\n{row.replace(',1.5,', ',1,')}\n")
    (root / "EPIC_100_video_info.csv").write_text(
        "video_id,duration,fps,resolution\nP01_11,inf,60,1920x1080\n"
    )
    res = egoworld("world", "import", "epic-kitchens", root, "--out", tmp_path / "w")
    refused(res, "EPIC_100_video_info.csv, line 2", "inf")
    assert not (tmp_path / "w").exists() or not list((tmp_path / "w").rglob("episode.json"))


def test_world_files_refuse_booleans_and_strings_as_coordinates(tmp_path):
    ep = tmp_path / "ep"
    ep.mkdir()
    camera = {"kind": "pinhole", "width": 64, "height": "48", "fx": 50, "fy": 50, "cx": 32, "cy": 24}
    header = {"format": "egoworld.episode/1", "id": "e1", "duration_s": 9, "fps": 30}
    (ep / "episode.json").write_text(json.dumps(header | {"camera": camera}))
    refused(egoworld("world", "show", ep, "--no-picture"), "episode.json", "camera.pinhole.height", "str")
    (ep / "episode.json").write_text(json.dumps(header | {"counts": {"objects": 1}}))
    obj = {"id": "o1", "category": "cup", "initial_position": [0.5, True, 1.0]}
    (ep / "objects.jsonl").write_text(json.dumps(obj) + "\n")
    refused(
        egoworld("world", "show", ep, "--no-picture"),
        "objects.jsonl, line 1",
        "initial_position.1",
        "a boolean",
    )


@pytest.mark.parametrize("field, value", [("seed", True), ("seed", 1.5), ("counts", {"MC": -1})])
def test_manifest_numbers_follow_the_same_rule(tmp_path, field, value):
    bench = write_bench(tmp_path / "bench", [sample_row()], **{field: value})
    refused(egoworld("bench", "check", "--bench", bench), "manifest.json", f"field '{field}")
