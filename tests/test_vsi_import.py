"""Facts of the official VSI-Super-Wild question file, read through the importer."""

from __future__ import annotations

import json
import statistics
from collections import Counter

import pytest

from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa, panorama_id
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_file
from egoworld.runner.inputs import InputSettings, check_media


def test_counts_tasks_and_clusters(vsi_bench_dir):
    bench = load_benchmark(vsi_bench_dir)
    assert len(bench.samples) == 6980
    assert bench.manifest.counts == {"VMR": 1215, "VPO": 1302, "VOO": 3350, "VOC": 1113}
    assert bench.tasks() == ["VMR", "VPO", "VOO", "VOC"]
    assert len({s.cluster for s in bench.samples}) == 113  # panoramas
    assert len({s.episode for s in bench.samples}) == 442  # view videos
    views = Counter(s.metadata["view"] for s in bench.samples)
    assert set(views) == {"front", "back", "left", "right"}
    voo = Counter(s.metadata["order_by"] for s in bench.samples if s.task == "VOO")
    assert voo == {"first": 1675, "last": 1675}


def test_choices_answers_and_frames(vsi_bench_dir):
    bench = load_benchmark(vsi_bench_dir)
    s = bench.sample("Z7ta3z5qcMA_back.mp4|8|VMR|0")
    assert s.choices == ("forward", "left", "backward", "right") and s.answer == 0
    assert s.cluster == "Z7ta3z5qcMA" and s.media.video.path == "videos/Z7ta3z5qcMA_back.mp4"
    assert [f.index for f in s.media.frames] == [1558]
    vpo = bench.sample("Z7ta3z5qcMA_back.mp4|5|VPO|0")
    assert [f.label for f in vpo.media.frames] == ["Frame 1", "Frame 2", "Frame 3", "Frame 4"]
    assert [f.index for f in vpo.media.frames] == [3006, 7810, 6546, 7113]
    assert vpo.choices[vpo.answer] == "Frame 1 → Frame 3 → Frame 4 → Frame 2"
    assert all(len(x.choices) == 4 and not x.choices[0].startswith("A)") for x in bench.samples if x.choices)
    counts = [s.answer for s in bench.samples if s.task == "VOC"]
    assert min(counts) == 1 and max(counts) == 609 and statistics.median(counts) == 7
    letters = bench.manifest.answer_distribution
    assert letters["VMR"] == {"A": 275, "B": 292, "C": 319, "D": 329}
    assert letters["VOO"] == {"A": 842, "B": 827, "C": 798, "D": 883}


def test_import_is_byte_identical(tmp_path, data_dir, vsi_bench_dir):
    import_vsi_wild_qa(data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl", tmp_path)
    for f in ("manifest.json", "samples.jsonl"):
        assert sha256_file(tmp_path / f) == sha256_file(vsi_bench_dir / f)


def test_panorama_id():
    assert panorama_id("YKBcT2Xkh_I_left.mp4") == "YKBcT2Xkh_I"
    assert panorama_id("a_b_front.mp4") == "a_b"
    assert panorama_id("no_view.mp4") == "no_view"


def test_video_settings_list_every_missing_file_once(vsi_bench_dir, tmp_path):
    bench = load_benchmark(vsi_bench_dir)
    check_media(bench, bench.samples, InputSettings(setting="text"))  # text needs nothing
    with pytest.raises(InputFileError) as err:
        check_media(bench, bench.samples, InputSettings(setting="frames"))
    msg = str(err.value)
    assert "442 media file(s)" in msg and "--videos" in msg and "Z7ta3z5qcMA_back.mp4" in msg


def test_attached_videos_satisfy_the_check(tmp_path, data_dir):
    qa = tmp_path / "qa.jsonl"
    rows = [json.loads(line) for line in (data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl").open()][:5]
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    videos = tmp_path / "videos_src"
    videos.mkdir()
    for r in rows:
        (videos / r["video_name"]).write_bytes(b"not really a video")
    bench = import_vsi_wild_qa(qa, tmp_path / "bench", videos=videos)
    check_media(bench, bench.samples, InputSettings(setting="frames"))


def test_bad_rows_name_the_line(tmp_path, data_dir):
    row = json.loads((data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl").open().readlines()[1])
    row["options"][2] = "X) wrong letter"
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n" + json.dumps(row) + "\n")
    with pytest.raises(InputFileError, match=r"qa.jsonl, line 2: option 3"):
        import_vsi_wild_qa(qa, tmp_path / "out")


def test_import_with_a_durations_csv(tmp_path, data_dir):
    from typer.testing import CliRunner

    from egoworld.cli import app

    rows = [json.loads(line) for line in (data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl").open()][
        :40
    ]
    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    names = sorted({r["video_name"] for r in rows})
    csv = tmp_path / "durations.csv"
    csv.write_text("video_name,duration_s\n" + "".join(f"{n},{(i + 1) * 900}\n" for i, n in enumerate(names)))
    result = CliRunner().invoke(
        app, ["import", "vsi-wild-qa", str(qa), "--out", str(tmp_path / "b"), "--durations", str(csv)]
    )
    assert result.exit_code == 0, result.output
    bench = load_benchmark(tmp_path / "b")
    first = next(s for s in bench.samples if s.metadata["video_name"] == names[0])
    assert first.metadata["duration_s"] == 900 and first.metadata["duration_group"] == "10-30"
    result = CliRunner().invoke(
        app, ["import", "vsi-wild-qa", str(qa), "--out", str(tmp_path / "c"), "--probe-durations"]
    )
    assert result.exit_code == 2 and "--videos" in result.output
