"""Bench: a 1,000-request sweep (2 models × 2 benchmarks, 250 requests a cell) against two 127.0.0.1
OpenAI-compatible test servers (tests/openai_test_server.py, 10 ms a reply), as `egoworld sweep run`
(cells at once within each server's budget) vs. the same four cells as sequential `egoworld run` calls;
then the sweep again into a new campaign folder over the first pass's response cache (its hit rate).
Ends with one JSON line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from openai_test_server import FakeOpenAIServer  # noqa: E402
from test_sweep import _bench  # noqa: E402

CLI = "from egoworld.cli import main; main()"
QUESTIONS = 125  # × 2 tasks = 250 requests per cell, 4 cells
CONCURRENCY = 8


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "-c", CLI, *args], check=True, capture_output=True, text=True)


def main() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="egoworld-bench-sweep-") as tmp_s,
        FakeOpenAIServer(delay=0.01) as a,
        FakeOpenAIServer(delay=0.01) as b,
    ):
        tmp = Path(tmp_s)
        benches = [_bench(tmp, "b1", QUESTIONS), _bench(tmp, "b2", QUESTIONS)]
        models = [("m1", "openai:fake-vlm-1", a.base_url), ("m2", "openai:fake-vlm-2", b.base_url)]
        spec = {
            "defaults": {"setting": "text", "concurrency": CONCURRENCY, "cache": str(tmp / "cache")},
            "models": [{"name": n, "model": m, "base_url": u, "budget": 2} for n, m, u in models],
            "benchmarks": [{"name": p.name, "bench": str(p)} for p in benches],
        }
        path = tmp / "sweep.yaml"
        path.write_text(yaml.safe_dump(spec), encoding="utf-8")

        t0 = time.perf_counter()
        cli("sweep", "run", str(path), "--out", str(tmp / "pass1"))
        sweep_s = time.perf_counter() - t0
        sent = len(a.bodies) + len(b.bodies)

        t0 = time.perf_counter()
        for name, model, url in models:
            for bench in benches:
                cli(
                    "run", "--bench", str(bench), "--model", model, "--base-url", url, "--setting", "text",
                    "--concurrency", str(CONCURRENCY), "--no-progress", "--out", str(tmp / "seq" / f"{name}-{bench.name}"),
                )  # fmt: skip
        seq_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        cli("sweep", "run", str(path), "--out", str(tmp / "pass2"))
        cached_s = time.perf_counter() - t0
        hits = misses = 0
        for run in (tmp / "pass2" / "runs").iterdir():
            cache = json.loads((run / "run.json").read_text())["cache"]
            hits, misses = hits + cache["hits"], misses + cache["misses"]
    print(
        json.dumps(
            {
                "bench": "sweep",
                "requests": sent,
                "cells": 4,
                "sweep_seconds": round(sweep_s, 2),
                "sweep_requests_per_second": round(sent / sweep_s, 1),
                "sequential_runs_seconds": round(seq_s, 2),
                "sequential_requests_per_second": round(sent / seq_s, 1),
                "speedup": round(seq_s / sweep_s, 2),
                "second_pass_seconds": round(cached_s, 2),
                "second_pass_cache_hit_rate": round(hits / (hits + misses), 4) if hits + misses else None,
            }
        )
    )


if __name__ == "__main__":
    main()
