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


@pytest.mark.slow
def test_demo_small_takes_every_benchmark_through_every_stage(tmp_path, data_dir):
    """``egoworld demo --small``: one folder layout per part, warnings said once, one final table that names
    every benchmark, setting and model."""
    out = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--small", "--out", str(out), "--data", str(data_dir)])
    assert result.exit_code == 0, result.output
    for part, folders in (
        ("vsi-wild-official", {"bench", "runs"}),
        ("beyond3d", {"worlds", "bench", "runs"}),
        ("vsi-wild-synthetic", {"worlds", "bench", "runs"}),
        ("explore", {"worlds", "bench", "runs"}),
    ):
        assert {p.name for p in (out / part).iterdir()} == folders, part
    page = (out / "report" / "index.html").read_text()
    assert "VMR" in page and "Shuffle24" in page
    stages = [
        line.split()[0]
        for line in result.output.splitlines()
        if line.split()[:1]
        and line.split()[0] in ("vsi-official", "beyond3d", "vsi-synthetic", "explore", "report", "total")
    ]
    assert stages[-6:] == ["vsi-official", "beyond3d", "vsi-synthetic", "explore", "report", "total"], (
        result.output
    )
    warnings = [line for line in result.output.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == len(set(warnings)), warnings  # each said once
    table = result.output[result.output.rindex("results") :]  # the demo ends with one table of every run
    rows = [" ".join(line.split()) for line in table.splitlines()]
    expected = [
        ("VSI-Super-Wild (official questions) text only", ("random", "prior", "oracle")),
        ("Beyond3D (synthetic kitchens) text only", ("random", "prior", "oracle")),
        ("Beyond3D (synthetic kitchens) video + text", ("random", "oracle")),
        ("Beyond3D (synthetic kitchens) last frame + text", ("random", "oracle")),
        ("VSI-Super-Wild (synthetic walk) video + text", ("random", "prior", "oracle")),
        ("EXPLORE-Bench (synthetic scenes, lexical judge) image", ("copy-initial", "replay", "oracle")),
    ]
    for part, models in expected:
        for model in models:
            assert any(r.startswith(f"{part} {model} ") for r in rows), (part, model, table)
    assert sum(1 for r in rows if r.endswith(("(overall)", "(macro)"))) == 16, table


def test_demo_refuses_an_unknown_part(tmp_path):
    out = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--out", str(out), "--parts", "nope"])
    assert result.exit_code == 2 and "unknown demo part" in result.output
