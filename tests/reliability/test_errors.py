"""Class 5: every loader reports bad input through one formatter — file, line, field and the fix, no traceback."""

from __future__ import annotations

import json

import pytest
from faults import (
    assert_fails_cleanly,
    cli,
    edit_samples,
    sample_lines,
    tiny_bench,
    vsi_row,
    write_lines,
)


# -- benchmark folders (`bench check`, and every command that loads one) -------------------------------------
def test_non_utf8_bytes_name_the_line(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    rows = [json.dumps(r) for r in sample_lines(bench)]
    rows[2] = rows[2].replace("Question", "Qu\xe9stion").encode("latin-1")
    edit_samples(bench, rows)
    r = cli("bench", "check", "--bench", bench)
    assert_fails_cleanly(r, 2, "samples.jsonl, line 3", "not UTF-8", "byte 0xe9", "save the file as UTF-8")


@pytest.mark.parametrize(
    ("line", "kind"),
    [("[1, 2, 3]", "a list"), ("42", "the number 42"), ("null", "null"), ('"text"', "a string")],
)
def test_a_line_that_is_not_an_object(tmp_path, line, kind):
    bench = tiny_bench(tmp_path / "b")
    rows = [json.dumps(r) for r in sample_lines(bench)]
    rows.insert(1, line)
    edit_samples(bench, rows)
    r = cli("bench", "check", "--bench", bench)
    assert_fails_cleanly(r, 2, "samples.jsonl, line 2", f"expected a JSON object {{…}}, got {kind}")


def test_duplicate_id_is_reported_against_the_input_lines(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    rows = [json.dumps(r) for r in sample_lines(bench)]
    rows.append(rows[1])
    edit_samples(bench, rows)
    r = cli("bench", "check", "--bench", bench)
    assert_fails_cleanly(r, 2, f"samples.jsonl, line {len(rows)}", "appears twice", "samples.jsonl, line 2")


def test_a_field_of_the_wrong_type_names_line_and_field(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    rows = sample_lines(bench)
    rows[0]["question"] = ["not", "a", "string"]
    edit_samples(bench, [json.dumps(r) for r in rows])
    r = cli("bench", "check", "--bench", bench)
    assert_fails_cleanly(r, 2, "samples.jsonl, line 1", "field 'question'")


def test_manifest_that_is_a_list(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    (bench / "manifest.json").write_text("[]\n")
    assert_fails_cleanly(
        cli("bench", "check", "--bench", bench), 2, "manifest.json", "expected a JSON object", "got a list"
    )


def test_manifest_with_non_utf8_bytes(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    data = (bench / "manifest.json").read_bytes().replace(b'"toy"', b'"t\xffy"', 1)
    (bench / "manifest.json").write_bytes(data)
    assert_fails_cleanly(
        cli("bench", "check", "--bench", bench), 2, "manifest.json, line", "not UTF-8", "byte 0xff"
    )


def test_a_file_given_where_a_folder_belongs(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    r = cli("bench", "check", "--bench", bench / "samples.jsonl")
    assert_fails_cleanly(r, 2, "manifest.json", "not found", "a benchmark folder holds")


# -- the official VSI-Super-Wild import ------------------------------------------------------------------------
def test_import_of_a_folder_says_it_is_a_folder(tmp_path):
    folder = tmp_path / "qa"
    write_lines(folder / "vsi_super_wild_qa.jsonl", [json.dumps(vsi_row())])
    r = cli("import", "vsi-wild-qa", folder, "--out", tmp_path / "b")
    assert_fails_cleanly(r, 2, str(folder), "is a folder, expected a file", "vsi_super_wild_qa.jsonl")


def test_import_of_a_missing_file(tmp_path):
    r = cli("import", "vsi-wild-qa", tmp_path / "nope.jsonl", "--out", tmp_path / "b")
    assert_fails_cleanly(r, 2, "nope.jsonl", "not found")


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("[1, 2]", "got a list"),
        ("7", "the number 7"),
        ("null", "null"),
        (json.dumps(vsi_row(question=5)), "field 'question'"),
        (json.dumps(vsi_row(frame_indices="12")), "field 'frame_indices'"),
        (json.dumps(vsi_row(options="A) x")), "option"),
        (json.dumps(vsi_row(answer=["B"])), "answer"),
    ],
)
def test_import_reports_bad_rows_by_line(tmp_path, line, needle):
    qa = write_lines(tmp_path / "qa.jsonl", [json.dumps(vsi_row("q0")), line])
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b")
    assert_fails_cleanly(r, 2, "qa.jsonl, line 2", needle)


def test_import_non_utf8_names_the_line(tmp_path):
    qa = write_lines(
        tmp_path / "qa.jsonl",
        [json.dumps(vsi_row("q0")), json.dumps(vsi_row("q1")).encode()[:-2] + b'\x81"}'],
    )
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b")
    assert_fails_cleanly(r, 2, "qa.jsonl, line 2", "not UTF-8", "0x81")


def test_import_duplicate_doc_id_names_both_input_lines(tmp_path):
    qa = write_lines(
        tmp_path / "qa.jsonl",
        [json.dumps(vsi_row("q0")), json.dumps(vsi_row("q1")), json.dumps(vsi_row("q0"))],
    )
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b")
    assert_fails_cleanly(r, 2, "qa.jsonl, line 3", "'q0' appears twice", "qa.jsonl, line 1")
    assert not (tmp_path / "b" / "samples.jsonl").exists()  # before the fix: reported against the output


# -- run folders -------------------------------------------------------------------------------------------------
def test_score_of_a_run_json_that_is_a_list(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    out = tmp_path / "r"
    assert cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress").code == 0
    (out / "run.json").write_text("[1]\n")
    assert_fails_cleanly(cli("score", "--run", out), 2, "run.json", "expected a JSON object", "got a list")
    assert_fails_cleanly(
        cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress"),
        2,
        "run.json",
        "got a list",
    )


def test_score_of_a_folder_that_is_not_a_run(tmp_path):
    assert_fails_cleanly(cli("score", "--run", tmp_path), 2, "run.json", "not found")


def test_report_of_broken_scores(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    out = tmp_path / "r"
    assert cli("run", "--bench", bench, "--model", "oracle", "--out", out, "--no-progress").code == 0
    assert cli("score", "--run", out).code == 0
    (out / "scores.jsonl").write_bytes(b'{"sample": "mc-000"}\n\xfe\n')
    (out / "scores.json").write_text("null\n")
    r = cli("report", "--run", out, "--out", tmp_path / "rep")
    assert_fails_cleanly(r, 2, "scores.json", "expected a JSON object", "got null")


def test_csv_with_non_utf8_bytes_names_the_line(tmp_path):
    qa = write_lines(tmp_path / "qa.jsonl", [json.dumps(vsi_row("q0"))])
    csv = write_lines(
        tmp_path / "durations.csv", ["video_name,duration_s", "abc_front.mp4,12.5", b"caf\xe9.mp4,3"]
    )
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b", "--durations", csv)
    assert_fails_cleanly(r, 2, "durations.csv, line 3", "not UTF-8", "0xe9")


def test_csv_given_as_a_folder(tmp_path):
    qa = write_lines(tmp_path / "qa.jsonl", [json.dumps(vsi_row("q0"))])
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b", "--durations", tmp_path)
    assert_fails_cleanly(r, 2, str(tmp_path), "is a folder, expected a file")


def test_world_episode_header_that_is_not_an_object(tmp_path):
    ep = tmp_path / "w" / "ep"
    ep.mkdir(parents=True)
    (ep / "episode.json").write_text("[]\n")
    assert_fails_cleanly(cli("world", "show", ep), 2, "episode.json", "expected a JSON object", "got a list")
