"""The end of a run (score table, tokens, throughput, cost in run.json), the response cache shared across
runs, and adaptive concurrency — against the real HTTP test server on 127.0.0.1."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from benchmarks_factory import balanced_mc_bench
from egoworld.cli import app
from egoworld.core.run_config import RunConfig
from egoworld.models.adaptive import AdaptiveLimit
from egoworld.runner.figures import parse_price
from egoworld.runner.run import run_benchmark
from openai_test_server import FakeOpenAIServer


def _cfg(bench, out, base_url, **kw):
    args = {"base_url": base_url, "timeout": "5", "max_retries": "8", "backoff": "0.01", "max_backoff": "0.2"}
    return RunConfig(bench=bench, model="openai:fake-vlm", out=out, model_args=args, progress=False, **kw)


def _run_cli(bench, out, base_url, *extra):
    argv = ["run", "--bench", str(bench), "--model", "openai:fake-vlm", "--out", str(out), "--no-progress"]
    argv += ["--base-url", base_url, *extra]
    return CliRunner().invoke(app, argv)


def test_run_ends_with_scores_tokens_cost_and_a_cache_shared_by_a_second_folder(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=12, n_int=4)
    copy = tmp_path / "b2"
    shutil.copytree(bench.root, copy)  # another folder holding the same questions
    cache = tmp_path / "cache"
    with FakeOpenAIServer() as srv:
        res = _run_cli(
            bench.root, tmp_path / "r1", srv.base_url, "--cache", str(cache), "--price", "in=2,out=10"
        )
        assert res.exit_code == 0, res.output
        sent_first = sum(srv.attempts.values())
        res2 = _run_cli(copy, tmp_path / "r2", srv.base_url, "--cache", str(cache))
        assert res2.exit_code == 0, res2.output
        assert sum(srv.attempts.values()) == sent_first == 16  # the second folder sent nothing
    m1 = json.loads((tmp_path / "r1/run.json").read_text())
    m2 = json.loads((tmp_path / "r2/run.json").read_text())
    assert m1["cache"]["hits"] == 0 and m1["cache"]["stored"] == 16
    assert m2["cache"]["hits"] == 16 and m2["cache"]["misses"] == 0 and m2["cache"]["hit_rate"] == 1.0
    u = m1["usage"]
    assert u["tokens"] == {"prompt": 16 * 42, "completion": 16 * 5, "reasoning": None}
    assert u["cost"]["usd"] == pytest.approx((16 * 42 * 2 + 16 * 5 * 10) / 1e6)
    assert u["requests_sent"] == 16 and u["requests_per_second"] > 0
    scores = json.loads((tmp_path / "r1/scores.json").read_text())
    assert (
        m1["scores"]["overall"] == scores["overall"]
        and m1["scores"]["tasks"].keys() == scores["tasks"].keys()
    )
    rows = [json.loads(x) for x in (tmp_path / "r1/scores.jsonl").read_text().splitlines()]
    correct = sum(r["score"] for r in rows if r["status"] == "ok")
    assert m1["scores"]["correct"] == pytest.approx(correct)
    assert u["tokens_per_correct"] == pytest.approx(round(16 * 47 / correct, 1))
    assert m2["scores"]["overall"] == m1["scores"]["overall"]  # cached replies score the same
    assert "overall" in res.output and "tokens: prompt" in res.output and "cost $" in res.output

    stats = CliRunner().invoke(app, ["cache", "stats", "--cache", str(cache)])
    assert stats.exit_code == 0 and json.loads(stats.output)["entries"] == 16
    assert json.loads(stats.output)["hits"] == 16
    pruned = CliRunner().invoke(app, ["cache", "prune", "--cache", str(cache), "--model", "openai:fake-vlm"])
    assert pruned.exit_code == 0 and "removed 16" in pruned.output
    assert (
        CliRunner().invoke(app, ["cache", "prune", "--cache", str(cache)]).exit_code == 2
    )  # nothing said to delete


def test_sampling_requests_are_not_cached(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=4, n_int=0)
    with FakeOpenAIServer() as srv:
        cfg = _cfg(bench.root, tmp_path / "r", srv.base_url, cache=tmp_path / "c")
        cfg.model_args["temperature"] = "0.7"
        run_benchmark(cfg)
    m = json.loads((tmp_path / "r/run.json").read_text())
    assert m["cache"]["stored"] == 0 and m["cache"]["not_deterministic"] == 4


def test_bad_price_is_refused():
    with pytest.raises(ValueError, match="in=P,out=Q"):
        parse_price("input=3")
    assert parse_price("in=2.5,out=10") == {"in": 2.5, "out": 10.0}


def test_in_flight_lowers_on_429s_and_recovers(tmp_path):
    bench = balanced_mc_bench(
        tmp_path / "b", n_mc=240, n_int=0
    )  # enough requests to grow back after the window
    with FakeOpenAIServer(delay=0.03, throttle_above=2, throttle_seconds=0.6) as srv:
        s = run_benchmark(_cfg(bench.root, tmp_path / "r", srv.base_url, concurrency=8))
        log = list(srv.in_flight_log)
    assert s.errors == 0 and s.ok == 240
    fig = json.loads((tmp_path / "r/run.json").read_text())["concurrency"]
    assert fig["start"] == 8 and fig["decreases"] >= 1 and fig["lowest_limit"] <= 4
    assert fig["throttled_seconds"] > 0 and 0 < fig["mean_in_flight"] <= 8
    during = [n for t, n in log if 0.3 < t < 0.6]
    after = [n for t, n in log if t > 0.9]
    assert during and max(during) <= 5  # backed off while throttled
    # grew back once the server stopped throttling (a loaded machine's slow replies may also cut the limit,
    # so the test asks for growth, not for a fixed level)
    assert after and max(after) > max(during) and fig["final_limit"] > fig["lowest_limit"], (fig, after[-20:])


def test_aimd_halves_and_grows_back():
    now = [0.0]
    lim = AdaptiveLimit(8, cooldown_s=1.0, clock=lambda: now[0])
    lim.throttled(retry_after=2.0)
    assert lim.limit == 4 and lim.hold_until == 2.0
    lim.throttled()  # within the cool-down: once per round
    assert lim.limit == 4
    for _ in range(40):
        now[0] += 0.1
        lim.success(0.01)
    assert lim.limit == 8


@pytest.mark.parametrize("damage", ["truncated", "not-sqlite"])
def test_a_damaged_cache_is_named_and_the_run_goes_on_without_it(tmp_path, damage):
    """The cache only saves calls: a damaged one is named as the cache and left alone, and the run completes."""
    bench = balanced_mc_bench(tmp_path / "b", n_mc=4, n_int=0)
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / "responses-cache.sqlite"
    if damage == "truncated":
        with FakeOpenAIServer() as srv:
            assert _run_cli(bench.root, tmp_path / "r0", srv.base_url, "--cache", str(cache)).exit_code == 0
        for side in cache.glob("responses-cache.sqlite-*"):
            side.unlink()
        path.write_bytes(path.read_bytes()[:1500])
    else:
        path.write_text("not a database at all\n" * 200)
    before = path.read_bytes()
    with FakeOpenAIServer() as srv:
        res = _run_cli(bench.root, tmp_path / "r", srv.base_url, "--cache", str(cache))
    assert res.exit_code == 0, res.output
    assert (
        "response cache" in res.output
        and "responses-cache.sqlite" in res.output
        and "without it" in res.output
    )
    assert path.read_bytes() == before  # the damaged file is left for the user
    assert json.loads((tmp_path / "r/run.json").read_text())["scores"]["overall"] is not None
