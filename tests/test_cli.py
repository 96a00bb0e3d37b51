"""The command line: help texts, the import → run → score → report path, and clear errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from egoworld.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        ([], ["run", "score", "report", "import", "demo"]),
        (["run"], ["--bench", "--model", "--permutations", "shuffle24", "resume"]),
        (["score"], ["scores.jsonl", "offline"]),
        (["report"], ["--out", "HTML"]),
        (["import"], ["vsi-wild-qa"]),
        (["import", "vsi-wild-qa"], ["--videos", "panorama"]),
        (["bench", "check"], ["Validate"]),
        (["demo"], ["random", "oracle"]),
        (["models"], ["backends"]),
    ],
)
def test_help_explains_each_command(argv, needles):
    result = runner.invoke(app, [*argv, "--help"])
    assert result.exit_code == 0, result.output
    for needle in needles:
        assert needle in result.output, (argv, needle)


def test_import_run_score_report(tmp_path, data_dir):
    qa = data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl"
    bench = tmp_path / "bench"
    assert runner.invoke(app, ["import", "vsi-wild-qa", str(qa), "--out", str(bench)]).exit_code == 0
    result = runner.invoke(app, ["bench", "check", "--bench", str(bench)])
    assert result.exit_code == 0 and "6980 samples" in result.output and "VOC" in result.output
    run = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "run",
            "--bench",
            str(bench),
            "--model",
            "oracle",
            "--out",
            str(run),
            "--per-task",
            "5",
            "--permutations",
            "shuffle24",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["score", "--run", str(run)])
    assert result.exit_code == 0 and "Overall 100.0" in result.output
    assert json.loads((run / "scores.json").read_text())["n"] == 20
    result = runner.invoke(app, ["report", "--run", str(run), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0 and (tmp_path / "rep" / "index.html").is_file()


def test_errors_name_the_file_and_the_fix(tmp_path):
    result = runner.invoke(
        app, ["run", "--bench", str(tmp_path / "nope"), "--model", "oracle", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "manifest.json" in result.output and "egoworld import" in result.output
    result = runner.invoke(
        app, ["run", "--bench", str(tmp_path), "--model", "gpt:x", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    result = runner.invoke(app, ["score", "--run", str(tmp_path / "missing-run")])
    assert result.exit_code == 2 and "run.json" in result.output


def test_demo_official_part(tmp_path, data_dir):
    out = tmp_path / "demo"
    result = runner.invoke(
        app,
        ["demo", "--out", str(out), "--data", str(data_dir), "--parts", "vsi-official", "--per-task", "5"],
    )
    assert result.exit_code == 0, result.output
    page = (out / "report" / "index.html").read_text()
    assert "vsi_wild" in page and "VMR" in page and "Shuffle24" in page
    stages = [
        line.split() for line in result.output.splitlines() if line.startswith(("vsi-official ", "report "))
    ]
    assert [row[0] for row in stages] == ["vsi-official", "report"], (
        result.output
    )  # the per-stage timing table
    assert "total" in result.output
    table = result.output[result.output.index("results") :]  # the demo ends with one table of every run
    rows = [" ".join(line.split()) for line in table.splitlines()]
    for model in ("random", "prior", "oracle"):
        assert any(r.startswith(f"VSI-Super-Wild (official questions) text only {model} ") for r in rows), (
            table
        )
    result = runner.invoke(app, ["demo", "--out", str(out), "--parts", "nope"])
    assert result.exit_code == 2 and "unknown demo part" in result.output
