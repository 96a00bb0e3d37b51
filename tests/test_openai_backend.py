"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1 with injected faults."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sqlite3
import subprocess

import pytest

from benchmarks_factory import balanced_mc_bench
from egoworld.core.model import ImagePart, Message, Request, TextPart
from egoworld.core.run_config import RunConfig
from egoworld.models.openai_compat import OpenAICompatModel, encode_message, list_models
from egoworld.runner.run import run_benchmark
from egoworld.scoring.score import score_run
from openai_test_server import FakeOpenAIServer
from run_helpers import cli_run_argv, kill_after_rows

FAULTS = ["429-once", "500-once", "slow-once", "truncated-once", "empty-once", "500", "empty", "429"]


def fault_by_question(prompt: str) -> str | None:
    """Questions 0–7 each get one kind of fault; the rest are served normally."""
    for i, fault in enumerate(FAULTS):
        if f"Question {i}:" in prompt:
            return fault
    return None


def _cfg(bench, out, base_url, **kw):
    args = {
        "base_url": base_url,
        "timeout": "1.0",
        "max_retries": "2",
        "backoff": "0.01",
        "max_backoff": "0.05",
    }
    return RunConfig(bench=bench, model="openai:fake-vlm", out=out, model_args=args, progress=False, **kw)


def test_faults_are_retried_or_recorded_and_never_scored(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=16, n_int=4)
    with FakeOpenAIServer(fault=fault_by_question, slow_seconds=3.0) as srv:
        s = run_benchmark(_cfg(bench.root, tmp_path / "r", srv.base_url, concurrency=4))
        assert s.planned == 20
        assert s.errors == 3, s  # permanent 500, permanent empty content, permanent 429
        assert s.ok == 17
        for kind in ("429", "500", "slow", "truncated", "empty"):
            assert srv.outcomes[kind] >= 1
        with sqlite3.connect(tmp_path / "r/responses.sqlite") as db:
            errors = dict(
                db.execute("SELECT sample_id, error FROM responses WHERE status = 'error'").fetchall()
            )
            usage = db.execute("SELECT SUM(prompt_tokens), SUM(completion_tokens) FROM responses").fetchone()
            served = {r[0] for r in db.execute("SELECT served_model FROM responses WHERE status = 'ok'")}
        assert set(errors) == {"mc-005", "mc-006", "mc-007"}
        assert (
            "HTTP 500" in errors["mc-005"]
            and "empty content" in errors["mc-006"]
            and "HTTP 429" in errors["mc-007"]
        )
        assert "after 3 attempts" in errors["mc-005"]
        assert usage == (17 * 42, 17 * 5) and served == {"fake-vlm-1"}

        scores = score_run(tmp_path / "r")
        assert scores["errors"] == 3 and scores["tasks"]["MC"]["n"] == 13 and not scores["complete"]
        rows = [json.loads(line) for line in (tmp_path / "r/scores.jsonl").read_text().splitlines()]
        bad = [r for r in rows if r["status"] == "error"]
        assert len(bad) == 3 and all(r["score"] is None and r["pred"] is None for r in bad)

        # a rerun sends only the failed requests again
        before = sum(srv.attempts.values())
        s2 = run_benchmark(_cfg(bench.root, tmp_path / "r", srv.base_url, concurrency=4))
        assert s2.reused == 17 and s2.called == 3 and s2.errors == 3
        assert sum(srv.attempts.values()) - before == 3 * 3
        with sqlite3.connect(tmp_path / "r/responses.sqlite") as db:
            assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 20
            assert db.execute("SELECT MIN(attempts) FROM responses WHERE status='error'").fetchone()[0] == 2


def test_payload_auth_and_model_listing(tmp_path, monkeypatch):
    monkeypatch.setenv("EGOWORLD_TEST_KEY", "sk-test")
    with FakeOpenAIServer() as srv:
        m = OpenAICompatModel(
            "fake-vlm", base_url=srv.base_url, api_key_env="EGOWORLD_TEST_KEY", max_tokens=16, stop=["</s>"]
        )
        assert m._headers() == {"Authorization": "Bearer sk-test"}
        assert asyncio.run(list_models(srv.base_url)) == ["fake-vlm-1"]
        bench = balanced_mc_bench(tmp_path / "b", n_mc=2, n_int=0)
        run_benchmark(
            RunConfig(
                bench=bench.root,
                model="openai:fake-vlm",
                out=tmp_path / "r",
                progress=False,
                model_args={"base_url": srv.base_url, "max_tokens": "16", "stop": "</s>|\n\n"},
            )
        )
        body = srv.bodies[0]
        assert body["model"] == "fake-vlm" and body["max_tokens"] == 16 and body["temperature"] == 0.0
        assert body["stop"] == ["</s>", "\n\n"] and body["stream"] is False
        assert body["messages"][0]["content"].endswith("Answer with only the letter (A, B, C, or D).")


def test_images_become_data_urls_after_their_labels():
    png = b"\x89PNG\r\n\x1a\nfake"
    msg = Message(
        role="user",
        content=(
            ImagePart(
                sha256=hashlib.sha256(png).hexdigest(), mime="image/png", load=lambda: png, label="Frame 1"
            ),
            TextPart("Which frame comes first?"),
        ),
    )
    enc = encode_message(msg)
    assert [p["type"] for p in enc["content"]] == ["text", "image_url", "text"]
    assert enc["content"][0]["text"] == "Frame 1:"
    assert enc["content"][1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(png).decode()


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_matches_an_uninterrupted_run(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=12, n_int=6)  # 12 × 24 + 6 = 294 requests
    with FakeOpenAIServer(delay=0.05) as srv:  # slow enough that the kill lands mid-run
        argv = cli_run_argv(bench.root, srv.base_url)
        killed = tmp_path / "killed"
        partial = kill_after_rows(argv, killed, 60)
        assert 0 < partial < 294, partial
        subprocess.run([*argv, "--out", str(killed)], check=True)
        clean = tmp_path / "clean"
        subprocess.run([*argv, "--out", str(clean)], check=True)
    with sqlite3.connect(killed / "responses.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 294
        assert (
            db.execute("SELECT COUNT(DISTINCT sample_id || permutation || epoch) FROM responses").fetchone()[
                0
            ]
            == 294
        )
        assert db.execute("SELECT COUNT(*) FROM responses WHERE status != 'ok'").fetchone()[0] == 0
        assert db.execute("SELECT MAX(attempts) FROM responses").fetchone()[0] == 1
    score_run(killed)
    score_run(clean)
    assert (killed / "scores.json").read_bytes() == (clean / "scores.json").read_bytes()
    assert (killed / "scores.jsonl").read_bytes() == (clean / "scores.jsonl").read_bytes()


def test_an_image_is_encoded_once_across_the_requests_that_carry_it():
    png = b"\x89PNG\r\n\x1a\nframe"
    loads = []

    def load() -> bytes:
        loads.append(1)
        return png

    part = ImagePart(sha256=hashlib.sha256(png).hexdigest(), mime="image/png", load=load, label="Frame 1")
    model = OpenAICompatModel("m")
    bodies = [
        model.payload(
            Request(
                key=f"k{i}",
                sample_id="s",
                messages=(Message("user", (part, TextPart(f"q{i}"))),),
                choices=None,
                permutation=None,
                epoch=i,
            )
        )
        for i in range(24)
    ]
    assert len(loads) == 1 and model.media_cache.hits == 23
    urls = {b["messages"][0]["content"][1]["image_url"]["url"] for b in bodies}
    assert urls == {"data:image/png;base64," + base64.b64encode(png).decode()}
