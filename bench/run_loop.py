"""Bench: the run loop's own cost — a 20,000-question benchmark (4 options each) run with the ``random`` model.

The model answers at once, so what is timed is egoworld: loading the benchmark, building prompts and request
keys, the SQLite writes, the end-of-run figures and the scoring. Two commands on one run folder, each timed as
`egoworld run` does its work (`run_benchmark`, then `finish_run`: the score table and run.json's figures),
with 2 requests in flight:

* first: the whole run and its scoring (target ≤ 10 s);
* resume: the same command again on the finished folder (target ≤ 3 s).

``--profile`` prints each command's top functions (cProfile, cumulative time). Ends with one JSON line.
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from benchmarks_factory import balanced_mc_bench  # noqa: E402
from egoworld.core.run_config import RunConfig  # noqa: E402
from egoworld.runner.outcome import finish_run  # noqa: E402
from egoworld.runner.run import run_benchmark  # noqa: E402

N_QUESTIONS = 20_000
CONCURRENCY = 2
TARGETS = {"first": 10.0, "resume": 3.0}


def command(cfg: RunConfig, profile: bool) -> tuple[float, str]:
    """Seconds of one run command (its console output swallowed) and, with ``profile``, its top functions."""
    prof = cProfile.Profile() if profile else None
    sink = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink):
        if prof is not None:
            prof.enable()
        summary = run_benchmark(cfg)
        finish_run(summary, cfg.out)
        if prof is not None:
            prof.disable()
    seconds = time.perf_counter() - start
    if prof is None:
        return seconds, ""
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(25)
    return seconds, text.getvalue()


def main() -> None:
    profile = "--profile" in sys.argv
    os.environ.setdefault("COLUMNS", "200")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        bench = balanced_mc_bench(Path(tmp) / "b", n_mc=N_QUESTIONS, n_int=0, videos=500)
        made = time.perf_counter() - start
        cfg = RunConfig(
            bench=bench.root, model="random", out=Path(tmp) / "run", concurrency=CONCURRENCY, progress=False
        )
        times = {}
        for name in ("first", "resume"):
            times[name], top = command(cfg, profile)
            if top:
                print(f"--- {name}: top functions by cumulative time\n{top}")
        scored = json.loads((cfg.out / "scores.json").read_text())
        assert scored["n"] == N_QUESTIONS, scored["n"]
    load = os.getloadavg()[0]
    print(f"benchmark of {N_QUESTIONS:,} questions made in {made:.1f} s; load average {load:.2f}")
    print(f"{'command':<8} {'seconds':>8} {'target':>7} {'ratio':>6} {'questions/s':>12}")
    for name, secs in times.items():
        ratio = secs / TARGETS[name]
        print(f"{name:<8} {secs:>8.2f} {TARGETS[name]:>7.1f} {ratio:>6.2f} {N_QUESTIONS / secs:>12.0f}")
    print(f"resume / first: {times['resume'] / times['first']:.2f}")
    print(
        json.dumps(
            {
                "bench": "run_loop",
                "questions": N_QUESTIONS,
                "concurrency": CONCURRENCY,
                "first_s": round(times["first"], 2),
                "resume_s": round(times["resume"], 2),
                "load_average": round(load, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
