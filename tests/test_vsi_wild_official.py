"""The duration analyses on the official question file: durations probed from the user's videos (PyAV) or
read from a CSV, then the report's duration-group table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.vsi_wild.durations import probe_duration, read_durations_csv
from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa
from egoworld.benchmarks.vsi_wild.timing import duration_group, hms
from egoworld.cli import app
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.media.writer import VideoWriter

#: minutes per video, one per duration group (one frame a minute keeps the files tiny)
MINUTES = (4.0, 12.0, 45.0, 90.0, 130.0)


@pytest.fixture(scope="module")
def official(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> tuple[Path, Path, dict[str, float]]:
    root = tmp_path_factory.mktemp("vsi_official")
    all_rows = [json.loads(line) for line in (data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl").open()]
    names = list(dict.fromkeys(r["video_name"] for r in all_rows))[:4]
    names.append(
        next(r["video_name"] for r in all_rows if r["task_type"] == "VOO" and r["video_name"] not in names)
    )
    per: dict[tuple[str, str], int] = {}
    rows = []
    for r in all_rows:
        key = (r["video_name"], r["task_type"])
        if r["video_name"] in names and per.get(key, 0) < 4:
            per[key] = per.get(key, 0) + 1
            rows.append(r)
    qa = root / "qa.jsonl"
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    videos = root / "videos"
    want = {}
    for name, minutes in zip(names, MINUTES, strict=True):
        with VideoWriter(videos / name, 1 / 60, (16, 16)) as vw:  # one frame a minute
            for k in range(int(minutes)):
                vw.write(np.full((16, 16, 3), k % 200, np.uint8))
        want[name] = minutes * 60
    return qa, videos, want


def test_probe_and_csv(official: tuple[Path, Path, dict[str, float]], tmp_path: Path) -> None:
    _, videos, want = official
    for name, seconds in want.items():
        assert probe_duration(videos / name) == pytest.approx(seconds, rel=1e-3)
    csv = tmp_path / "d.csv"
    csv.write_text("video_name,duration_min\n" + "".join(f"{n},{s / 60}\n" for n, s in want.items()))
    assert read_durations_csv(csv) == pytest.approx(want)
    bad = tmp_path / "bad.csv"
    bad.write_text("name,length\nx,1\n")
    with pytest.raises(InputFileError, match="video_name"):
        read_durations_csv(bad)
    assert [duration_group(s) for s in sorted(want.values())] == ["0-10", "10-30", "30-60", "60-120", "120+"]
    assert duration_group(600.0) == "10-30" and hms(3725.4) == "01:02:05"


def test_official_questions_get_durations_and_the_report_groups_them(
    official: tuple[Path, Path, dict[str, float]], tmp_path: Path
) -> None:
    qa, videos, want = official
    bench_dir = tmp_path / "bench"
    import_vsi_wild_qa(qa, bench_dir, videos=videos)
    runner = CliRunner()
    res = runner.invoke(app, ["import", "vsi-wild-durations", "--bench", str(bench_dir)])
    assert res.exit_code == 2 and "exactly one" in res.output
    res = runner.invoke(
        app, ["import", "vsi-wild-durations", "--bench", str(bench_dir), "--videos", str(tmp_path)]
    )
    assert res.exit_code == 2 and "missing" in res.output
    res = runner.invoke(
        app, ["import", "vsi-wild-durations", "--bench", str(bench_dir), "--videos", str(videos)]
    )
    assert res.exit_code == 0, res.output
    bench = load_benchmark(bench_dir)
    assert bench.manifest.builder["durations"] == "probed with PyAV"
    for s in bench.samples:
        assert s.metadata["duration_s"] == pytest.approx(want[s.metadata["video_name"]], rel=1e-3)
    assert {s.metadata["duration_group"] for s in bench.samples} == {
        "0-10",
        "10-30",
        "30-60",
        "60-120",
        "120+",
    }
    # the same from a CSV gives the same samples
    csv = tmp_path / "d.csv"
    probed = {s.metadata["video_name"]: s.metadata["duration_s"] for s in bench.samples}
    csv.write_text("video,duration_s\n" + "".join(f"{n},{d}\n" for n, d in probed.items()))
    other = tmp_path / "bench2"
    import_vsi_wild_qa(qa, other)
    assert (
        runner.invoke(
            app, ["import", "vsi-wild-durations", "--bench", str(other), "--durations", str(csv)]
        ).exit_code
        == 0
    )
    assert [s.metadata for s in load_benchmark(other).samples] == [s.metadata for s in bench.samples]

    from egoworld.core.run_config import RunConfig
    from egoworld.report.build import build_report
    from egoworld.runner.run import run_benchmark

    run = tmp_path / "run"
    run_benchmark(RunConfig(bench=bench_dir, model="oracle", out=run, progress=False))
    build_report([run], tmp_path / "rep")
    md = (tmp_path / "rep" / "tables.md").read_text()
    assert "### VSI-Super-Wild by video duration" in md
    overall = next(line for line in md.splitlines() if "| Overall |" in line and line.startswith("| oracle"))
    assert overall.count("100.0 ± 0.0") == 5
    assert "### VOO: first vs last appearance" in md
