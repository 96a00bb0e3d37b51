"""The openai backend against a real llama.cpp server (llama-cpp-python) serving a tiny model written here."""

from __future__ import annotations

import json
import sqlite3

import httpx
import pytest

from benchmarks_factory import balanced_mc_bench

pytest.importorskip("llama_cpp.server", reason="install egoworld[serve] (make test does)")
pytest.importorskip("gguf")

from egoworld.core.run_config import RunConfig  # noqa: E402
from egoworld.models.doctor import check_server  # noqa: E402
from egoworld.runner.run import run_benchmark  # noqa: E402
from egoworld.scoring.score import score_run  # noqa: E402
from llama_server import LlamaServer, write_tiny_llama  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    folder = tmp_path_factory.mktemp("llama")
    model = write_tiny_llama(folder / "tiny.gguf")
    with LlamaServer(model, log=folder / "server.log") as srv:
        yield srv


def _chat(srv, content: str, **kw) -> dict:
    body = {"model": srv.alias, "messages": [{"role": "user", "content": content}], "temperature": 0, **kw}
    return httpx.post(f"{srv.base_url}/chat/completions", json=body, timeout=60).json()


def test_text_benchmark_end_to_end(llama, tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=12, n_int=4)
    out = tmp_path / "run"
    cfg = RunConfig(
        bench=bench.root,
        model=f"openai:{llama.alias}",
        out=out,
        concurrency=4,
        progress=False,
        model_args={"base_url": llama.base_url, "max_tokens": "6", "timeout": "60", "backoff": "0.05"},
    )
    summary = run_benchmark(cfg)
    # random weights: some replies decode to nothing; those are retried, then stored as errors
    assert summary.planned == 16 and summary.ok + summary.errors == 16 and summary.ok >= 4
    with sqlite3.connect(out / "responses.sqlite") as db:
        rows = db.execute(
            "SELECT prompt_tokens, completion_tokens, finish_reason, served_model FROM responses "
            "WHERE status = 'ok'"
        ).fetchall()
        errors = {r[0] for r in db.execute("SELECT error FROM responses WHERE status = 'error'")}
    assert all(e.startswith("empty content") and "after 3 attempts" in e for e in errors), errors
    # usage is recorded as the server reports it (llama-cpp-python re-counts the detokenised text, so its
    # completion count can exceed max_tokens); the server stopped every reply at the length limit
    assert all(p > 20 and c > 0 for p, c, _, _ in rows)
    assert {f for _, _, f, _ in rows} == {"length"}
    assert {m for *_, m in rows} == {llama.alias}
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["served_models"] == [llama.alias]
    scores = score_run(out)
    assert scores["rows"] == summary.ok  # nonsense answers are scored (mostly unparsed), errors are not
    again = run_benchmark(cfg)
    assert again.called == summary.errors and again.reused == summary.ok


def test_stop_sequences_cut_the_reply(llama):
    prompt = "Which direction? A) left B) right. Answer with a letter."
    free = _chat(llama, prompt, max_tokens=12)
    text = free["choices"][0]["message"]["content"]
    assert free["usage"]["completion_tokens"] == 12 and len(text) >= 4, text
    stop = text[2:4]
    cut = _chat(llama, prompt, max_tokens=12, stop=[stop])
    assert cut["choices"][0]["message"]["content"] == text[: text.index(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"


def test_doctor_on_llama_server(llama):
    report = check_server(llama.base_url)
    checks = {c.name: c for c in report.checks}
    assert report.model == llama.alias and checks["reachable"].ok and checks["model listed"].ok
    assert checks["text request"].ok and "usage reported" in checks["text request"].detail
    assert report.ok
