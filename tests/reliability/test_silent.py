"""Class 7: failures that used to be silent now stop, warn or exit non-zero — and say so in one line."""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from faults import assert_fails_cleanly, cli, tiny_bench, unused_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openai_test_server import FakeOpenAIServer  # noqa: E402


def _run(bench: Path, out: Path, base_url: str, *extra: str) -> object:
    return cli(
        "run", "--bench", bench, "--model", "openai:fake-vlm-1", "--base-url", base_url, "--out", out,
        "--no-progress", *extra,
    )  # fmt: skip


def _rows(out: Path) -> int:
    db = out / "responses.sqlite"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def test_unreachable_server_stops_after_one_check(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    url = f"http://127.0.0.1:{unused_port()}/v1"
    r = _run(bench, tmp_path / "r", url, "--model-arg", "max_retries=3")
    assert_fails_cleanly(r, 2, url, "cannot connect", "egoworld doctor")
    assert _rows(tmp_path / "r") == 0  # before the fix: one error row per request, each after its retries
    assert json.loads((tmp_path / "r" / "run.json").read_text())["status"] == "failed"


def test_dns_failure_stops_after_one_check(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    r = _run(bench, tmp_path / "r", "http://no-such-host.invalid/v1")
    assert_fails_cleanly(r, 2, "no-such-host.invalid", "cannot connect")
    assert _rows(tmp_path / "r") == 0


def test_a_finished_run_resumes_without_the_server(tmp_path):
    """The check runs before the first request that must be sent, not on a run with nothing left to send."""
    bench = tiny_bench(tmp_path / "b")
    with FakeOpenAIServer(model="fake-vlm-1") as srv:
        assert _run(bench, tmp_path / "r", srv.base_url).code == 0
    r = _run(bench, tmp_path / "r", f"http://127.0.0.1:{unused_port()}/v1")
    assert r.code == 0, r.output


def test_hf_model_that_cannot_load_is_one_fatal_error(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    missing = tmp_path / "no-such-model"
    missing.mkdir()
    r = cli("run", "--bench", bench, "--model", f"hf:{missing}", "--out", tmp_path / "r", "--no-progress")
    assert_fails_cleanly(r, 2, f"hf:{missing}", "could not be loaded")
    assert _rows(tmp_path / "r") == 0


def test_served_model_differing_from_requested_is_a_recorded_warning(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    with FakeOpenAIServer(model="another-model-7b") as srv:
        r = _run(bench, tmp_path / "r", srv.base_url)
    assert r.code == 0, r.output
    assert "warning" in r.output and "another-model-7b" in r.output
    warnings = json.loads((tmp_path / "r" / "run.json").read_text())["warnings"]
    assert any("'fake-vlm-1'" in w and "another-model-7b" in w for w in warnings), warnings


def test_score_with_nothing_answered_exits_non_zero(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    with FakeOpenAIServer(model="fake-vlm-1", fault=lambda p: "500") as srv:
        r = _run(bench, tmp_path / "r", srv.base_url, "--model-arg", "max_retries=0")
    assert r.code == 3
    s = cli("score", "--run", tmp_path / "r")
    assert_fails_cleanly(s, 3, "nothing to score", "0 answered", "rerun `egoworld run`")


SECRET = "sk-test-0123456789abcdefSECRET"


class _EchoKeyHandler(BaseHTTPRequestHandler):
    """A server that lists one model and answers every chat request with an error echoing the API key."""

    def log_message(self, *args: object) -> None:
        return

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._send(200, b'{"data": [{"id": "fake-vlm-1"}]}')

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        auth = self.headers.get("Authorization", "")
        self._send(400, json.dumps({"error": f"bad request from key {auth}; raw {SECRET}"}).encode())


def test_api_key_echoed_by_the_server_is_redacted_before_storing(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    bench = tiny_bench(tmp_path / "b", n_mc=2, n_int=0)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _EchoKeyHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        r = _run(bench, tmp_path / "r", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert r.code == 3, r.output
    stored = b"".join(p.read_bytes() for p in (tmp_path / "r").iterdir() if p.is_file())
    assert SECRET.encode() not in stored
    with sqlite3.connect(tmp_path / "r" / "responses.sqlite") as con:
        errors = [e for (e,) in con.execute("SELECT error FROM responses")]
    assert errors and all("[redacted]" in e for e in errors), errors


def test_builder_refuses_a_zero_byte_video(tmp_path):
    qa = tmp_path / "qa.jsonl"
    row = {
        "doc_id": "q1", "video_name": "abc_front.mp4", "task_type": "VOC", "question": "How many?",
        "answer": "3", "frame_indices": [], "options": None,
    }  # fmt: skip
    qa.write_text(json.dumps(row) + "\n")
    videos = tmp_path / "videos"
    videos.mkdir()
    (videos / "abc_front.mp4").write_bytes(b"")
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b", "--videos", videos)
    assert_fails_cleanly(r, 2, "abc_front.mp4", "empty (0 bytes)")
    (videos / "abc_front.mp4").unlink()
    r = cli("import", "vsi-wild-qa", qa, "--out", tmp_path / "b2", "--videos", videos)
    assert_fails_cleanly(r, 2, "abc_front.mp4", "does not exist")


def test_builder_refuses_a_missing_image(tmp_path):
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.folders.files import InputFileError
    from egoworld.core.schema import ImageInput, Media, Sample, TaskInfo

    (tmp_path / "b" / "images").mkdir(parents=True)
    s = Sample(
        id="s1", benchmark="t", task="T", episode="e", question="q?", answer_type="integer", answer=1,
        media=Media(images=(ImageInput(path="images/gone.png"),)),
    )  # fmt: skip
    with pytest.raises(InputFileError, match=r"gone\.png.*does not exist"):
        save_benchmark(tmp_path / "b", name="t", tasks={"T": TaskInfo(answer_type="integer", metric="mra")},
                       samples=[s], check_media=True)  # fmt: skip


def _old_bootstrap(values, clusters, n_boot=2000, level=0.95, seed=0):
    """The bootstrap before streaming (the whole n_boot × clusters matrix at once), as the reference."""
    arr = np.asarray(values, dtype=float)
    ids, inverse = np.unique(np.asarray(clusters, dtype=object).astype(str), return_inverse=True)
    sums = np.bincount(inverse, weights=arr, minlength=len(ids))
    counts = np.bincount(inverse, minlength=len(ids)).astype(float)
    draws = np.random.default_rng(seed).multinomial(len(ids), np.full(len(ids), 1 / len(ids)), size=n_boot)
    means = (draws.astype(float) @ sums) / (draws.astype(float) @ counts)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def test_bootstrap_gives_the_same_interval_as_the_whole_matrix():
    from egoworld.metrics.stats import cluster_bootstrap_ci

    rng = np.random.default_rng(7)
    for n, k in ((300, 40), (3_000, 900)):
        values = rng.random(n)
        clusters = [f"c{i}" for i in rng.integers(0, k, n)]
        for seed in (0, 3):
            assert cluster_bootstrap_ci(values, clusters, seed=seed) == _old_bootstrap(
                values, clusters, seed=seed
            )


def test_bootstrap_streams_at_20000_questions():
    import tracemalloc

    from egoworld.metrics.stats import cluster_bootstrap_ci

    rng = np.random.default_rng(7)
    values = rng.random(20_000)
    clusters = [f"c{i}" for i in rng.integers(0, 5_000, 20_000)]
    tracemalloc.start()
    cluster_bootstrap_ci(values, clusters, seed=3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    matrix = 2_000 * 5_000 * 8  # one float copy of the draws, 80 MB (the old code held two)
    assert peak < matrix / 2, f"peak {peak / 2**20:.0f} MB"


# -- the EXPLORE judge ----------------------------------------------------------------------------------------
def _explore_case(tmp_path: Path) -> tuple[Path, Path]:
    pytest.importorskip("spacy")
    from egoworld.benchmarks.explore.build.builder import save_instances
    from egoworld.benchmarks.explore.instances import Instance, Scene, SceneObject

    scene = Scene(
        (
            SceneObject("cup", "a red cup", ("on the table",)),
            SceneObject("knife", "a sharp knife", ("next to the cup",)),
        )
    )
    insts = [Instance(f"img{i}.jpg", "|".join(f"C step {j}" for j in range(15)), scene) for i in range(2)]
    save_instances(tmp_path / "bench", insts, builder={"test": True})
    preds = tmp_path / "preds.json"
    preds.write_text(
        json.dumps({f"img{i}.jpg": "A red cup is on the table. A sharp knife." for i in range(2)})
    )
    return tmp_path / "bench", preds


def test_judge_that_failed_on_every_item_exits_non_zero_and_is_not_comparable(tmp_path):
    bench, preds = _explore_case(tmp_path)
    with FakeOpenAIServer(model="judge-a", reply=lambda p: "I cannot judge this.") as srv:
        spec = f"openai:judge-a,base_url={srv.base_url},invalid_retries=0"
        r = cli("explore", "score", "--bench", bench, "--predictions", preds, "--out", tmp_path / "o",
                "--judge", spec)  # fmt: skip
    assert_fails_cleanly(r, 3, "the judge failed on every item")
    summary = json.loads((tmp_path / "o" / "scores.json").read_text())
    assert summary["judge_failed"] is True
    assert summary["explore"]["judge"]["comparable_to_paper"] is False
    assert summary["explore"]["judge_rate"] == 0.0


def test_judge_served_by_another_model_is_not_comparable(tmp_path):
    bench, preds = _explore_case(tmp_path)
    with FakeOpenAIServer(model="some-other-model", reply=lambda p: "4") as srv:
        spec = f"openai:judge-a,base_url={srv.base_url}"
        r = cli("explore", "score", "--bench", bench, "--predictions", preds, "--out", tmp_path / "o",
                "--judge", spec)  # fmt: skip
    assert r.code == 0, r.output
    assert "some-other-model" in r.output and "warning" in r.output
    summary = json.loads((tmp_path / "o" / "scores.json").read_text())
    assert summary["explore"]["judge"]["comparable_to_paper"] is False
    assert summary["explore"]["judge_rate"] == 100.0


def test_unreachable_judge_stops_after_one_check(tmp_path):
    bench, preds = _explore_case(tmp_path)
    url = f"http://127.0.0.1:{unused_port()}/v1"
    r = cli("explore", "score", "--bench", bench, "--predictions", preds, "--out", tmp_path / "o",
            "--judge", f"openai:judge-a,base_url={url}")  # fmt: skip
    assert_fails_cleanly(r, 2, url, "cannot connect")
