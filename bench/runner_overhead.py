"""Bench: requests/s and per-request overhead of the runner against a local OpenAI-compatible server.

The server (tests/openai_test_server.py, a real HTTP server in its own process) answers at once. Both the
plain client and egoworld send the same N chat requests with 64 in flight:

* plain: an httpx.AsyncClient posting the payloads (the floor: HTTP + JSON + the server);
* egoworld: `run_benchmark` with the openai backend — prompt building, request keys, SQLite writes, progress
  bookkeeping, retries armed.

Overhead per request = (egoworld wall time − plain wall time) / N. Ends with one JSON line of the figures.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from benchmarks_factory import balanced_mc_bench  # noqa: E402
from egoworld.core.prompts import PromptBuilder  # noqa: E402
from egoworld.core.run_config import RunConfig  # noqa: E402
from egoworld.runner.run import run_benchmark  # noqa: E402

N_QUESTIONS = 80  # × 24 orders = 1,920 requests
CONCURRENCY = 64


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "openai_test_server.py")], stdout=subprocess.PIPE, text=True
    )
    url = proc.stdout.readline().strip()
    return proc, url


async def plain(url: str, payloads: list[dict]) -> float:
    sem = asyncio.Semaphore(CONCURRENCY)
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:

        async def one(body: dict) -> None:
            async with sem:
                r = await client.post("/chat/completions", json=body)
                r.raise_for_status()
                r.json()

        start = time.perf_counter()
        await asyncio.gather(*(one(b) for b in payloads))
        return time.perf_counter() - start


def main() -> None:
    proc, url = start_server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bench = balanced_mc_bench(Path(tmp) / "b", n_mc=N_QUESTIONS, n_int=0)
            from egoworld.core.permutations import all_orders

            pb = PromptBuilder()
            payloads = [
                {
                    "model": "fake-vlm",
                    "messages": [
                        {"role": "user", "content": pb.question_text(s, pb.presented_choices(s, perm))}
                    ],
                    "max_tokens": 256,
                    "temperature": 0.0,
                    "stream": False,
                }
                for s in bench.samples
                for perm in all_orders(4)
            ]
            n = len(payloads)
            asyncio.run(plain(url, payloads[:64]))  # warm-up
            t_plain = asyncio.run(plain(url, payloads))
            cfg = RunConfig(
                bench=bench.root,
                model="openai:fake-vlm",
                out=Path(tmp) / "run",
                model_args={"base_url": url},
                permutations="shuffle24",
                concurrency=CONCURRENCY,
                progress=False,
            )
            start = time.perf_counter()
            summary = run_benchmark(cfg)
            t_ours = time.perf_counter() - start
            assert summary.ok == n, summary
    finally:
        proc.terminate()
        proc.wait()
    overhead_ms = 1000 * (t_ours - t_plain) / n
    print(f"{'method':<10} {'requests':>8} {'seconds':>8} {'req/s':>8}")
    print(f"{'plain':<10} {n:>8} {t_plain:>8.2f} {n / t_plain:>8.1f}")
    print(f"{'egoworld':<10} {n:>8} {t_ours:>8.2f} {n / t_ours:>8.1f}")
    print(f"runner overhead: {overhead_ms:.2f} ms per request at {CONCURRENCY} in flight (target < 2 ms)")
    print(
        json.dumps(
            {
                "bench": "runner_overhead",
                "requests": n,
                "concurrency": CONCURRENCY,
                "plain_req_per_s": round(n / t_plain, 1),
                "egoworld_req_per_s": round(n / t_ours, 1),
                "overhead_ms_per_request": round(overhead_ms, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
