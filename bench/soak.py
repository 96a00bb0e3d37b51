"""Soak: 10,000 and 100,000 requests through `run_benchmark` against the 127.0.0.1 test server at 64 in flight,
with mixed 200 / 429 / 500 / timeouts (each fault once per prompt, then a 200: retries must recover them all).

The runner streams its plan and looks done keys up in the store, so what grows with the size is only the
benchmark's samples it loads (one per 24 requests). Each size runs in its own process (so its peak RSS is
its own); afterwards the store is counted: rows written
(status ok), lost (asked but not ok), duplicated (one (sample, order, epoch) stored more than once). Ends with
one JSON line of both sizes and the RSS ratio 100k / 10k (flat memory: close to 1).

Usage: python bench/soak.py [--sizes 10000,100000]
"""

from __future__ import annotations

import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
CONCURRENCY = 64
ORDERS = 24  # shuffle24: every question is asked in its 24 option orders

_SERVER = r"""
import hashlib, sys, time
sys.path.insert(0, sys.argv[1])
from openai_test_server import FakeOpenAIServer
def fault(prompt):
    h = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) % 100
    return "429-once" if h < 4 else "500-once" if h < 8 else "slow-once" if h < 9 else None
with FakeOpenAIServer(fault=fault, slow_seconds=3.0) as srv:
    print(srv.base_url, flush=True)
    while True:
        time.sleep(3600)
"""


def one(n_requests: int, folder: Path | None = None) -> dict:
    """Run ``n_requests`` (rounded up to whole questions) and count the store (in ``folder``, else a
    temporary folder)."""
    from benchmarks_factory import balanced_mc_bench
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark

    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(REPO / "tests")], stdout=subprocess.PIPE, text=True
    )
    url = server.stdout.readline().strip()
    try:
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            n_q = -(-n_requests // ORDERS)
            root = balanced_mc_bench(Path(tmp) / "b", n_mc=n_q, n_int=0).root  # (the run loads its own copy)
            cfg = RunConfig(
                bench=root,
                model="openai:fake-vlm",
                out=Path(tmp) / "run",
                model_args={"base_url": url, "timeout": 1.0},
                permutations="shuffle24",
                concurrency=CONCURRENCY,
                progress=False,
            )
            start = time.perf_counter()
            run_benchmark(cfg)
            seconds = time.perf_counter() - start
            expected = n_q * ORDERS
            with sqlite3.connect(Path(tmp) / "run" / "responses.sqlite") as db:
                ok = db.execute("SELECT COUNT(*) FROM responses WHERE status = 'ok'").fetchone()[0]
                dup = db.execute(
                    "SELECT COALESCE(SUM(c - 1), 0) FROM (SELECT COUNT(*) c FROM responses "
                    "GROUP BY sample_id, permutation, epoch HAVING c > 1)"
                ).fetchone()[0]
    finally:
        server.terminate()
        server.wait()
    return {
        "requests": expected,
        "rows_written": ok,
        "lost": expected - ok,
        "duplicated": dup,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "seconds": round(seconds, 1),
    }


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(one(int(sys.argv[2]))))
        return
    sizes = [10_000, 100_000]
    if len(sys.argv) == 3 and sys.argv[1] == "--sizes":
        sizes = [int(x) for x in sys.argv[2].split(",")]
    results = {}
    for n in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True
        )
        results[str(n)] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{n:>7} requests: {results[str(n)]}", file=sys.stderr)
    line: dict = {"bench": "soak", "concurrency": CONCURRENCY, "sizes": results}
    if len(sizes) >= 2:
        first, last = results[str(sizes[0])], results[str(sizes[-1])]
        line["rss_ratio_last_to_first"] = round(last["peak_rss_mb"] / first["peak_rss_mb"], 3)
        # what each further request costs: the loaded benchmark's samples (1/24 of a sample per request)
        extra = last["requests"] - first["requests"]
        line["rss_kb_per_extra_request"] = round(
            (last["peak_rss_mb"] - first["peak_rss_mb"]) * 1024 / extra, 3
        )
    print(json.dumps(line))


if __name__ == "__main__":
    main()
