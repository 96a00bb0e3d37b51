"""The last faults (issue 24, items 2–4): a folder where a file belongs, an empty or unreadable file, odd
shapes and impossible numbers named by file, line and field, and nothing less than asked without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faults import assert_fails_cleanly, cli, tiny_bench, vsi_row

from conftest import egoworld, refused, run_args, sample_row, write_bench

FIX_FOLDER = "pass the file itself, not a folder"


# -- item 2: one file-opening rule ----------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["vsi-wild-qa", "explore-anno"])
def test_import_of_a_folder_names_the_folder_and_the_fix(tmp_path, command):
    folder = tmp_path / "qa"
    folder.mkdir()
    refused(
        egoworld("import", command, folder, "--out", tmp_path / "b"), str(folder), "is a folder", FIX_FOLDER
    )


def test_samples_file_that_is_a_folder(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    (bench / "samples.jsonl").unlink()
    (bench / "samples.jsonl").mkdir()
    refused(egoworld("bench", "check", "--bench", bench), "samples.jsonl", "is a folder", FIX_FOLDER)


def _episode(root: Path, **media: str) -> Path:
    root.mkdir(parents=True)
    doc = {"format": "egoworld.episode/1", "id": "e1", "duration_s": 6, "fps": 6, "media": media}
    (root / "episode.json").write_text(json.dumps(doc))
    return root


def test_world_rows_file_that_is_a_folder_is_not_read_as_absent(tmp_path):
    ep = _episode(tmp_path / "ep")
    (ep / "objects.jsonl").mkdir()
    refused(egoworld("world", "show", ep, "--no-picture"), "objects.jsonl", "is a folder", FIX_FOLDER)


def test_world_show_of_a_video_that_is_a_folder_draws_no_overview(tmp_path):
    ep = _episode(tmp_path / "ep", video="video.mp4")
    (ep / "video.mp4").mkdir()
    png = tmp_path / "e1.png"
    refused(egoworld("world", "show", ep, "--png", png), "video.mp4", "is a folder", FIX_FOLDER)
    assert not png.exists()
    (ep / "video.mp4").rmdir()
    (ep / "video.mp4").write_bytes(b"")
    refused(egoworld("world", "show", ep, "--png", png), "video.mp4", "empty (0 bytes)")


def test_run_with_a_video_path_that_is_a_folder(tmp_path, server):
    bench = write_bench(tmp_path / "b", [sample_row("q0", media={"video": {"path": "videos/a.mp4"}})])
    (bench / "videos" / "a.mp4").mkdir(parents=True)
    res = egoworld(*run_args(bench, tmp_path / "run", server, "--setting", "frames"))
    refused(res, "videos/a.mp4", "folder(s), not file(s)", "put the media files themselves there")
    assert server.bodies == []


def test_build_refuses_a_media_path_that_is_a_folder(tmp_path):
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps(vsi_row(task_type="VOC", answer="3", frame_indices=[], options=None)) + "\n")
    (tmp_path / "videos" / "abc_front.mp4").mkdir(parents=True)
    res = egoworld("import", "vsi-wild-qa", qa, "--out", tmp_path / "b", "--videos", tmp_path / "videos")
    refused(res, "abc_front.mp4", "it is a folder")


def test_an_empty_json_file_says_empty(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    (bench / "manifest.json").write_bytes(b"")
    refused(egoworld("bench", "check", "--bench", bench), "manifest.json", "is empty (0 bytes)")


def test_an_unreadable_file_names_the_file_and_the_fix(tmp_path, monkeypatch):
    """(Run as root a chmod 000 file stays readable, so the read itself is made to fail.)"""
    bench = tiny_bench(tmp_path / "b")
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "manifest.json":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    refused(
        egoworld("bench", "check", "--bench", bench),
        "manifest.json",
        "cannot be read (Permission denied)",
        "check its permissions",
    )


def test_perception_readers_go_through_the_file_rule():
    src = (
        Path(__file__).resolve().parents[2]
        / "src"
        / "egoworld"
        / "perception"
        / "video"
        / "trajectory_import.py"
    )
    text = src.read_text()
    assert ".read_text(" not in text and "path.open(" not in text


# -- item 3: odd shapes and impossible numbers, named by field ---------------------------------------------
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1" + "0" * 400, "1e400"])
def test_impossible_gold_number_names_the_answer_field(tmp_path, literal):
    row = json.dumps(sample_row("q0", task="N", answer_type="number", choices=None, answer="X"))
    bench = write_bench(tmp_path / "b", [row.replace('"X"', literal)])
    refused(egoworld("bench", "check", "--bench", bench), "samples.jsonl, line 1", "field 'answer'")


def _hd_epic(root: Path, assoc: object, csv_rows: str = "P01-1,https://youtu.be/x,60\n") -> Path:
    (root / "scene-and-object-movements").mkdir(parents=True)
    (root / "youtube-links").mkdir(parents=True)
    text = assoc if isinstance(assoc, str) else json.dumps(assoc)
    (root / "scene-and-object-movements" / "assoc_info.json").write_text(text)
    (root / "youtube-links" / "HD_EPIC_YouTube_URLs.csv").write_text(
        "video_id,youtube_url,duration\n" + csv_rows
    )
    return root


_TRACK = '{"P01-1": {"a1": {"name": "cup", "tracks": [{"track_id": "t1", "time_segment": SEG}]}}}'


@pytest.mark.parametrize(
    ("assoc", "needles"),
    [
        ({"P01-1": [1, 2]}, ["video P01-1", "expected an object keyed by association id", "a list"]),
        ({"P01-1": {"a1": ["cup"]}}, ["association a1", "expected {name, tracks"]),
        ({"P01-1": {"a1": {"name": "cup", "tracks": {"t": 1}}}}, ["association a1", "field 'tracks'"]),
        ({"P01-1": {"a1": {"name": "cup", "tracks": ["t1"]}}}, ["track 0", "expected a track object"]),
        (_TRACK.replace("SEG", "[NaN, NaN]"), ["field 'P01-1.a1.tracks.0.time_segment.0'", "NaN"]),
        (_TRACK.replace("SEG", "[1, Infinity]"), ["field 'P01-1.a1.tracks.0.time_segment.1'", "Infinity"]),
        (_TRACK.replace("SEG", "[1, 1e400]"), ["time_segment.1", "overflows"]),
    ],
    ids=["video-list", "assoc-list", "tracks-object", "track-string", "nan", "infinity", "overflow"],
)
def test_world_import_hd_epic_names_odd_shapes(tmp_path, assoc, needles):
    src = _hd_epic(tmp_path / "hd", assoc)
    refused(egoworld("world", "import", "hd-epic", src, "--out", tmp_path / "w"), "assoc_info.json", *needles)


def test_world_import_hd_epic_names_a_video_the_csv_lacks(tmp_path):
    assoc = {"P01-1": {}, "P01-2": {}}
    src = _hd_epic(tmp_path / "hd", assoc)
    res = egoworld("world", "import", "hd-epic", src, "--out", tmp_path / "w")
    refused(res, "HD_EPIC_YouTube_URLs.csv", "no row for video P01-2", "assoc_info.json")


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        ({"view": "front", "object": "o1", "category": "cup"}, "field 'intervals'"),
        (
            {"view": "front", "object": "o1", "category": "cup", "intervals": [[0, "x"]]},
            "field 'intervals.0.1'",
        ),
        ({"view": "front", "object": "o1", "category": "cup", "intervals": [[2, 1]]}, "end 1.0 is before"),
        ({"view": 3, "object": "o1", "category": "cup", "intervals": [[0, 1]]}, "field 'view'"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_appearance_rows_are_checked_by_line_and_field(tmp_path, row, needle):
    from egoworld.core.folders.files import InputFileError
    from egoworld.world.walk_source import AppearanceRow, _rows

    path = tmp_path / "appearances.jsonl"
    ok = {"view": "front", "object": "o0", "category": "cup", "intervals": [[0, 1]]}
    path.write_text(json.dumps(ok) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(InputFileError) as exc:
        _rows(path, AppearanceRow)
    assert "appearances.jsonl, line 2" in str(exc.value) and needle in str(exc.value), str(exc.value)


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        ('{"time_s": "soon", "detections": []}', "field 'time_s'"),
        ('{"time_s": -1, "detections": []}', "field 'time_s'"),
        (
            '{"time_s": 0, "detections": [{"label": "cup", "bbox": [0, 0, NaN, 4]}]}',
            "field 'detections.0.bbox.2'",
        ),
        ('{"time_s": 0, "detections": [{"label": "cup", "bbox": [0, 0, "a", 4]}]}', "detections[0].bbox"),
        ('{"time_s": 0, "detections": [{"label": "cup", "bbox": [0, 0, 1, 4], "score": true}]}', "score"),
    ],
)
def test_detections_file_names_line_and_field(tmp_path, row, needle):
    from egoworld.core.folders.files import InputFileError
    from egoworld.perception.detectors.detector import read_detections

    path = tmp_path / "detections.jsonl"
    path.write_text(row + "\n")
    with pytest.raises(InputFileError) as exc:
        read_detections(path)
    assert "detections.jsonl, line 1" in str(exc.value) and needle in str(exc.value), str(exc.value)
    path.unlink()
    path.mkdir()
    with pytest.raises(InputFileError, match="is a folder"):
        read_detections(path)


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("0 0 0 0 0 0 0 1\n1 0 0 nan 0 0 0 1", "line 2, field 'tz'"),
        ("0 0 0 0 0 0 0 1\n1 0 0 0 inf 0 0 1", "line 2, field 'qx'"),
        ("0 0 0 0 0 0 0 0", "line 1: the quaternion is zero"),
        ("0 0 0 0 0 0 0 x", "line 1, field 'qw'"),
    ],
)
def test_perceived_trajectory_names_line_and_field(tmp_path, line, needle):
    from egoworld.core.folders.files import InputFileError
    from egoworld.perception.video.trajectory_import import read_tum

    path = tmp_path / "traj.txt"
    path.write_text(line + "\n")
    with pytest.raises(InputFileError) as exc:
        read_tum(path)
    assert needle in str(exc.value), str(exc.value)
    path.unlink()
    path.mkdir()
    with pytest.raises(InputFileError, match="is a folder"):
        read_tum(path)


# -- item 4: nothing less than asked without a word ------------------------------------------------------------
def test_a_benchmark_without_samples_exits_3_at_run(tmp_path, server):
    bench = write_bench(tmp_path / "b", [])
    (bench / "samples.jsonl").write_text("")
    doc = json.loads((bench / "manifest.json").read_text())
    doc["samples_sha256"] = ""
    (bench / "manifest.json").write_text(json.dumps(doc))
    res = egoworld(*run_args(bench, tmp_path / "run", server))
    refused(res, "samples.jsonl", "holds no samples", "nothing to run", code=3)
    assert server.bodies == [] and not (tmp_path / "run").exists()


def test_fewer_questions_than_per_task_are_said(tmp_path, server):
    bench = tiny_bench(tmp_path / "b", n_mc=4, n_int=2)
    res = egoworld(*run_args(bench, tmp_path / "run", server, "--per-task", "3"))
    assert res.code == 0, res.output
    assert "--per-task 3: fewer questions than asked in 1 task(s) (COUNT 2)" in " ".join(res.output.split())
    assert any(
        "--per-task 3" in w for w in json.loads((tmp_path / "run" / "run.json").read_text())["warnings"]
    )


def test_fewer_frames_than_asked_are_said_per_sample_and_in_the_label(tmp_path, server):
    from egoworld.media.testvideo import write_counter_video
    from egoworld.render.tables import run_label

    bench = write_bench(
        tmp_path / "b",
        [sample_row("q0", media={"video": {"path": "videos/a.mp4"}})],
        media_roots=[],
    )
    (bench / "videos").mkdir()
    write_counter_video(bench / "videos" / "a.mp4", frames=12, fps=6, size=(64, 48), gop=6)
    out = tmp_path / "run"
    res = egoworld(*run_args(bench, out, server, "--setting", "frames", "--frames", "32"))
    assert res.code == 0, res.output
    flat = " ".join(res.output.split())
    assert "--frames 32: 1 sample(s) got fewer frames than asked (12–12; first: q0 12)" in flat, res.output
    sent = json.loads((out / "run.json").read_text())["frames_sent"]
    assert sent == {"asked": 32, "min": 12, "max": 12, "samples": 1, "short_samples": 1, "short": {"q0": 12}}
    images = [p for p in server.bodies[0]["messages"][-1]["content"] if p.get("type") == "image_url"]
    assert len(images) == 12
    assert egoworld("score", "--run", out).code == 0
    summary = json.loads((out / "scores.json").read_text())
    assert "(frames, 12 fr)" in run_label(summary) and "32 fr" not in run_label(summary)


def _lmms_out(
    root: Path, task: str = "egoworld_toy", score: object = 0.5, n: int = 3, logged: int = 3
) -> Path:
    """lmms-eval 0.7's output folder: ``<model>/<time>_results.json`` and the samples log beside it."""
    folder = root / "openai__fake-vlm-1"
    folder.mkdir(parents=True)
    doc = {
        "results": {task: {"alias": task, "egoworld_score,none": score, "egoworld_score_stderr,none": "N/A"}},
        "n-samples": {task: {"original": 3, "effective": n}},
        "configs": {task: {"task": task, "dataset_path": "json"}},
        "versions": {task: "Yaml"},
    }
    (folder / "20261201_120000_results.json").write_text(json.dumps(doc))
    rows = [json.dumps({"doc_id": i, "egoworld_score": 1.0}) for i in range(logged)]
    (folder / f"20261201_120000_samples_{task}.jsonl").write_text("\n".join(rows) + "\n")
    return root


def test_lmms_eval_results_are_checked_not_its_exit_code(tmp_path):
    from egoworld.core.folders.files import InputFileError
    from egoworld.interchange.lmms_eval_results import check_results

    got = check_results(_lmms_out(tmp_path / "ok"), "egoworld_toy", 3)
    assert (got.score, got.samples, got.results_file.name) == (0.5, 3, "20261201_120000_results.json")
    cases = [
        (tmp_path / "none", "wrote no *_results.json"),
        (_lmms_out(tmp_path / "task", task="other"), "field 'results': no entry for task 'egoworld_toy'"),
        (_lmms_out(tmp_path / "na", score="N/A"), "field 'results.egoworld_toy.egoworld_score,none': 'N/A'"),
        (_lmms_out(tmp_path / "short", n=2), "field 'n-samples.egoworld_toy.effective': 2 samples scored"),
        (_lmms_out(tmp_path / "log", logged=1), "1 logged samples, but the task has 3"),
    ]
    (tmp_path / "none").mkdir()
    for out, needle in cases:
        with pytest.raises(InputFileError) as exc:
            check_results(out, "egoworld_toy", 3)
        assert needle in str(exc.value), str(exc.value)


def test_the_viewer_shows_a_text_only_run_no_video(tmp_path, server):
    pytest.importorskip("starlette.testclient")
    from starlette.testclient import TestClient

    from egoworld.media.testvideo import write_counter_video
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    bench = write_bench(tmp_path / "b", [sample_row("q0", media={"video": {"path": "videos/a.mp4"}})])
    (bench / "videos").mkdir()
    write_counter_video(bench / "videos" / "a.mp4", frames=12, fps=6, size=(64, 48), gop=6)
    assert egoworld(*run_args(bench, tmp_path / "runs" / "text", server)).code == 0
    with TestClient(create_app(ViewApp(Workspace([tmp_path / "runs"])))) as client:
        page = client.get("/b/toy-b/s/q0")
    assert page.status_code == 200, page.text
    assert "<video" not in page.text and 'data-testid="text-only"' in page.text
    assert "No media sent (setting text)" in page.text


def test_the_viewer_rebuilds_explores_image_input(tmp_path):
    import hashlib

    from PIL import Image

    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.view.media import MediaSource

    bench = write_bench(
        tmp_path / "b",
        [sample_row("q0", media={"images": [{"path": "images/initial.png", "label": "Initial"}]})],
    )
    (bench / "images").mkdir()
    Image.new("RGB", (32, 24), (200, 30, 30)).save(bench / "images" / "initial.png")
    data = (bench / "images" / "initial.png").read_bytes()
    b = load_benchmark(bench)
    media = MediaSource()
    try:
        got = media.sent_part(b, b.samples[0], {"setting": "image"}, hashlib.sha256(data).hexdigest())
        assert got == (data, "image/png")
        assert media.sent_part(b, b.samples[0], {"setting": "image"}, "0" * 64) is None
    finally:
        media.close()


def test_a_config_or_sweep_file_that_is_a_folder(tmp_path, server):
    folder = tmp_path / "cfg.yaml"
    folder.mkdir()
    bench = tiny_bench(tmp_path / "b")
    res = egoworld(*run_args(bench, tmp_path / "run", server, "--config", folder))
    refused(res, "cfg.yaml", "is a folder", FIX_FOLDER)
    res = cli("sweep", "run", folder, "--out", tmp_path / "sw")  # through the console entry point
    assert_fails_cleanly(res, 2, "cfg.yaml", "is a folder", FIX_FOLDER)
