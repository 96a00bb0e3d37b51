"""`egoworld report` at paper size: a hand-made text benchmark of 2,000 / 20,000 / 60,000 questions, three
runs (random, prior, oracle solvers), then the report with the default ``--pages auto`` timed in a fresh
process: wall seconds and peak RSS (the report process and its largest page worker).

Target: 20,000 questions × 3 runs in < 30 s and < 500 MB. Last line: one JSON object with the figures and
their ratio to the target. ``EGOWORLD_BENCH_SIZES=2000,20000`` picks the sizes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (2_000, 20_000, 60_000)
TARGET_S = 30.0
TARGET_MB = 500.0
MODELS = ("random", "prior", "oracle")

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from egoworld.report.build import build_report
runs, out, pages = [Path(p) for p in sys.argv[1].split(",")], Path(sys.argv[2]), sys.argv[3]
t0 = time.perf_counter()
build_report(runs, out, pages=pages)
wall = time.perf_counter() - t0
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"s": wall, "rss_mb": own, "worker_rss_mb": kids}))
"""


def make_runs(root: Path, n: int) -> list[Path]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from benchmarks_factory import balanced_mc_bench
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    balanced_mc_bench(root / "bench", n_mc=n * 4 // 5, n_int=n // 5, videos=max(5, n // 50))
    runs = []
    for model in MODELS:
        cfg = RunConfig(bench=root / "bench", model=model, out=root / "runs" / model, progress=False)
        run_benchmark(cfg)
        score_run(cfg.out)
        runs.append(cfg.out)
    return runs


def report_once(runs: list[Path], out: Path, pages: str) -> dict[str, float]:
    cmd = [sys.executable, "-c", _CHILD, ",".join(map(str, runs)), str(out), pages]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=os.environ.copy())
    got = json.loads(done.stdout.strip().splitlines()[-1])
    pages_written = len(list((out / "samples").rglob("*.html")))
    return {
        "report_s": round(got["s"], 2),
        "peak_rss_mb": round(max(got["rss_mb"], got["worker_rss_mb"]), 1),
        "pages": pages_written,
    }


def main() -> None:
    sizes = [int(x) for x in os.environ.get("EGOWORLD_BENCH_SIZES", "").split(",") if x] or list(SIZES)
    figures: dict[str, object] = {"bench": "report_scale", "runs": len(MODELS), "pages": "auto"}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            root = Path(tmp) / str(n)
            t0 = time.perf_counter()
            runs = make_runs(root, n)
            made = time.perf_counter() - t0
            got = report_once(runs, root / "report", "auto")
            figures[str(n)] = {**got, "make_runs_s": round(made, 1)}
    at = figures.get("20000")
    if isinstance(at, dict):
        figures["target_s"] = TARGET_S
        figures["target_mb"] = TARGET_MB
        figures["s_over_target_20000"] = round(at["report_s"] / TARGET_S, 3)
        figures["mb_over_target_20000"] = round(at["peak_rss_mb"] / TARGET_MB, 3)
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
