"""The viewer's benchmark index (`egoworld.view.bench_index`): reused while the folder is unchanged, rebuilt
on any edit — even one that keeps ``samples.jsonl``'s size and modification time — and never served stale;
and the indexed sample list gives exactly what a scan of the loaded benchmark gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks_factory import balanced_mc_bench


def _edit_keeping_stat(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length) and set the file's times back: size and mtime unchanged."""
    assert len(old) == len(new)
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Index builds counted (the cache in ``tmp_path``)."""
    from egoworld.view import bench_index

    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    builds: list[Path] = []
    real = bench_index._write
    monkeypatch.setattr(bench_index, "_write", lambda path, *a: (builds.append(path), real(path, *a)))
    return builds


def _question(root: Path, sid: str) -> str:
    from egoworld.view.workspace import Workspace

    (bv,) = Workspace([root]).benches.values()
    return bv.bench.sample(sid).question


def test_bench_index_rebuilt_on_any_edit_never_stale(tmp_path, counted) -> None:
    from egoworld.core.folders.bench_folder import MANIFEST, rehash_benchmark
    from egoworld.core.folders.files import InputFileError, read_json, write_json
    from egoworld.view.queries import SampleFilter, list_samples
    from egoworld.view.workspace import Workspace

    root = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4).root
    samples = root / "samples.jsonl"
    assert _question(root, "mc-001").startswith("Question 1:") and len(counted) == 1
    assert _question(root, "mc-001").startswith("Question 1:") and len(counted) == 1  # reused
    # an edit the manifest's hash does not accept: refused as `load_benchmark` refuses it, not served
    _edit_keeping_stat(samples, "Question 1:", "Puzzle   1:")
    with pytest.raises(InputFileError, match="sha256"):
        Workspace([root])
    # accepted with `bench rehash`: rebuilt, the new text served (and found by the text search)
    rehash_benchmark(root)
    assert _question(root, "mc-001").startswith("Puzzle   1:") and len(counted) == 2
    (bv,) = Workspace([root]).benches.values()
    assert [r["sample"].id for r in list_samples(bv, SampleFilter(text="puzzle")).rows] == ["mc-001"]
    # a manifest without a samples hash (a hand edit accepted as it is): only the content tells the edit
    manifest = read_json(root / MANIFEST)
    manifest["samples_sha256"] = ""
    write_json(root / MANIFEST, manifest, sort_keys=False)
    assert _question(root, "mc-002").startswith("Question 2:") and len(counted) == 3
    _edit_keeping_stat(samples, "Question 2:", "Riddle   2:")
    assert _question(root, "mc-002").startswith("Riddle   2:") and len(counted) == 4
    assert _question(root, "mc-002").startswith("Riddle   2:") and len(counted) == 4  # reused again


def test_bench_index_replaced_whole_and_damaged_one_rebuilt(tmp_path, counted) -> None:
    from egoworld.view.bench_index import bench_index_path

    root = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4).root
    assert _question(root, "int-003").startswith("How many chairs")
    path = bench_index_path(root)
    assert path.is_file() and not list(path.parent.glob(".*.tmp"))  # written aside, then moved in place
    path.write_bytes(b"not a database")
    assert _question(root, "int-003").startswith("How many chairs") and len(counted) == 2


def test_run_index_rebuilt_when_scores_change_keeping_size_and_mtime(tmp_path, monkeypatch) -> None:
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run
    from egoworld.view.workspace import Workspace

    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    run = tmp_path / "runs" / "oracle"
    run_benchmark(RunConfig(bench=bench.root, model="oracle", out=run, progress=False))
    score_run(run)

    def verdict() -> tuple[str, object]:
        res = Workspace([run]).runs["oracle"].results["mc-001"]
        return res.verdict, res.pred

    assert verdict() == ("correct", 1)
    st = (run / "scores.json").stat()
    _edit_keeping_stat(
        run / "scores.jsonl", '"pred":1,"pred_position":1,"raw":"B"', '"pred":2,"pred_position":2,"raw":"C"'
    )
    _edit_keeping_stat(run / "scores.jsonl", '"sample":"mc-001","score":1.0', '"sample":"mc-001","score":0.0')
    os.utime(run / "scores.json", ns=(st.st_atime_ns, st.st_mtime_ns))  # not rescored: scores.json as it was
    assert verdict() == ("wrong", 2)


def test_sample_pages_served_from_several_threads(tmp_path, monkeypatch) -> None:
    """The store a sample page keeps open serves requests from any thread (a test client without ``with``
    runs each request in a new one)."""
    from starlette.testclient import TestClient

    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    run_benchmark(RunConfig(bench=bench.root, model="oracle", out=tmp_path / "runs" / "o", progress=False))
    client = TestClient(create_app(ViewApp(Workspace([tmp_path / "runs"]))))
    for sid in ("mc-001", "mc-002", "int-001"):
        page = client.get(f"/b/toy-b/s/{sid}")
        assert page.status_code == 200 and sid in page.text
