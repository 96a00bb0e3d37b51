"""`egoworld export hf` / `import hf` (real pyarrow + datasets) and `egoworld export parquet`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.core.folders.bench_folder import save_benchmark
from egoworld.core.schema import ImageInput, Media, Sample, TaskInfo, Trajectory, VideoInput

pytest.importorskip("pyarrow")
runner = CliRunner()
FILES = ("manifest.json", "samples.jsonl", "videos/clip0.mp4", "images/scene_1.png", "images/scene_2.png")


def media_bench(root, n=12):
    """Choice, integer and trajectory samples; a video for some, images for others (arbitrary bytes)."""
    (root / "videos").mkdir(parents=True)
    (root / "images").mkdir()
    (root / "videos" / "clip0.mp4").write_bytes(bytes(range(256)) * 40)
    for i in (1, 2):
        (root / "images" / f"scene_{i}.png").write_bytes(f"png-{i}".encode() * 100)
    samples = []
    for i in range(n):
        media = Media()
        if i % 3 == 0:
            media = Media(video=VideoInput(path="videos/clip0.mp4", end_s=3.5 + i))
        elif i % 3 == 1:
            media = Media(images=(ImageInput(path=f"images/scene_{1 + i % 2}.png", label="initial scene"),))
        samples.append(
            Sample(
                id=f"q{i:02d}",
                benchmark="toy",
                task="MC" if i % 2 == 0 else "COUNT",
                episode=f"ep{i % 2}",
                cluster=f"ep{i % 2}",
                question=f"Question {i} — ünïcode ok?",
                answer_type="choice" if i % 2 == 0 else "integer",
                choices=("left", "right", "front", "back") if i % 2 == 0 else None,
                answer=i % 4 if i % 2 == 0 else i + 0,
                media=media,
                trajectory=Trajectory(id=f"t{i // 4}", step=0) if i % 4 == 0 else None,
                metadata={"horizon_s": 1.5 * i, "band": ["near", "far"][i % 2]},
            )
        )
    tasks = {
        "MC": TaskInfo(answer_type="choice", metric="accuracy", chance=25.0),
        "COUNT": TaskInfo(answer_type="integer", metric="mra"),
    }
    return save_benchmark(
        root, name="toy", tasks=tasks, samples=samples, seed=3, source={"license": "cc-by-4.0"}
    )


def test_export_load_and_rebuild_byte_identical(tmp_path):
    media_bench(tmp_path / "bench")
    hf = tmp_path / "hf"
    res = runner.invoke(
        app, ["export", "hf", "--bench", str(tmp_path / "bench"), "--out", str(hf), "--shard-rows", "5"]
    )
    assert res.exit_code == 0, res.output
    assert len(list((hf / "data").glob("test-*-of-00003.parquet"))) == 3
    card = (hf / "README.md").read_text()
    assert 'license: "cc-by-4.0"' in card and "| MC | 6 | choice | accuracy | 25 |" in card

    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset(
        "parquet", data_files=str(hf / "data" / "*.parquet"), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert len(ds) == 12 and ds[0]["id"] == "q00" and ds[0]["choices"] == ["left", "right", "front", "back"]
    assert json.loads(ds[3]["answer_json"]) == 3 and ds[1]["media_files"] == ["media/images/scene_2.png"]
    assert json.loads(ds[5]["metadata_json"]) == {"band": "far", "horizon_s": 7.5}
    for row in ds:
        for f in row["media_files"]:
            assert (hf / f).is_file()

    rebuilt = tmp_path / "rebuilt"
    res = runner.invoke(app, ["import", "hf", str(hf), "--out", str(rebuilt)])
    assert res.exit_code == 0, res.output
    for name in FILES:
        assert (rebuilt / name).read_bytes() == (tmp_path / "bench" / name).read_bytes(), name

    # the same benchmark exports to the same bytes
    again = tmp_path / "hf2"
    assert (
        runner.invoke(
            app, ["export", "hf", "--bench", str(rebuilt), "--out", str(again), "--shard-rows", "5"]
        ).exit_code
        == 0
    )
    for f in sorted(p.relative_to(hf) for p in hf.rglob("*") if p.is_file()):
        assert (again / f).read_bytes() == (hf / f).read_bytes(), f


def test_import_refuses_edited_rows_and_missing_media(tmp_path):
    import pyarrow.parquet as pq

    media_bench(tmp_path / "bench")
    hf = tmp_path / "hf"
    assert (
        runner.invoke(app, ["export", "hf", "--bench", str(tmp_path / "bench"), "--out", str(hf)]).exit_code
        == 0
    )
    shard = next((hf / "data").glob("*.parquet"))
    table = pq.read_table(shard)
    rows = table.to_pylist()
    rows[4]["question"] = "edited"
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), shard)
    res = runner.invoke(app, ["import", "hf", str(hf), "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "sha256 differs" in res.output
    assert not (tmp_path / "r").exists()

    text_only = tmp_path / "hf-text"
    res = runner.invoke(
        app, ["export", "hf", "--bench", str(tmp_path / "bench"), "--out", str(text_only), "--text-only"]
    )
    assert res.exit_code == 0 and not (text_only / "media").exists()
    res = runner.invoke(app, ["import", "hf", str(text_only), "--out", str(tmp_path / "r2")])
    assert res.exit_code == 0, res.output
    for name in ("manifest.json", "samples.jsonl"):
        assert (tmp_path / "r2" / name).read_bytes() == (tmp_path / "bench" / name).read_bytes()
    assert not (tmp_path / "r2" / "videos").exists()

    full = tmp_path / "hf-full"
    assert (
        runner.invoke(app, ["export", "hf", "--bench", str(tmp_path / "bench"), "--out", str(full)]).exit_code
        == 0
    )
    (full / "media" / "images" / "scene_1.png").unlink()
    res = runner.invoke(app, ["import", "hf", str(full), "--out", str(tmp_path / "r3")])
    assert res.exit_code == 2 and "media/images/scene_1.png" in res.output
    assert not (tmp_path / "r3").exists()


def test_export_refuses_media_outside_the_folder(tmp_path):
    bench = media_bench(tmp_path / "bench")
    (tmp_path / "bench" / "images" / "scene_2.png").unlink()
    res = runner.invoke(app, ["export", "hf", "--bench", str(bench.root), "--out", str(tmp_path / "hf")])
    assert res.exit_code == 2 and "images/scene_2.png (sample q01: missing)" in res.output


def test_export_parquet_one_row_per_sample_order_epoch(tmp_path):
    import pyarrow.parquet as pq

    media_bench(tmp_path / "bench")
    run = tmp_path / "run"
    argv = ["run", "--bench", str(tmp_path / "bench"), "--model", "random", "--out", str(run)]
    res = runner.invoke(app, [*argv, "--permutations", "3", "--epochs", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert (
        run / "scores.jsonl"
    ).is_file()  # `egoworld run` ends with the run's score table (scored in-process)
    for name in ("scores.jsonl", "scores.json"):  # an unscored run: the export scores it first
        (run / name).unlink()
    res = runner.invoke(app, ["export", "parquet", "--run", str(run)])
    assert res.exit_code == 0 and "scored the run first" in res.output, res.output
    table = pq.read_table(run / "scores.parquet")
    assert table.num_rows == 6 * 3 * 2 + 6 * 2  # choice: 3 orders × 2 epochs; integer: 1 order × 2 epochs
    cols = table.schema
    assert str(cols.field("epoch").type) == "int64" and str(cols.field("score").type) == "double"
    assert str(cols.field("parsed").type) == "bool" and str(cols.field("pred").type) == "string"
    rows = table.to_pylist()
    scored = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert [r["score"] for r in rows] == [s["score"] for s in scored]
    assert [json.loads(r["gold"]) for r in rows] == [s["gold"] for s in scored]
    assert {r["model"] for r in rows} == {"random"} and {r["run"] for r in rows} == {"run"}
