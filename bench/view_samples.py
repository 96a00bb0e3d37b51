"""`egoworld view` over 10,000 and 60,000 questions and three runs: start-up (the workspace loaded, first with
its indexes built — the benchmark's and each run's —, then reusing them; wall and CPU seconds), and the sample
list's server-side paging, filtering and sorting and a sample page as a browser asks for them (HTTP through
the ASGI app).

Targets: start-up under 2 s at both sizes (indexes reused), every sample-list page under 1 s. Last line: one
JSON object with the timings and their ratio to the targets. ``EGOWORLD_BENCH_SIZES=10000`` picks sizes.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

SIZES = (10_000, 60_000)
TARGET_S = 1.0
START_TARGET_S = 2.0


def main() -> None:
    import os

    sizes = [int(x) for x in os.environ.get("EGOWORLD_BENCH_SIZES", "").split(",") if x] or list(SIZES)
    figures: dict[str, object] = {"bench": "view_samples", "runs": 3, "target_s": TARGET_S}
    for n in sizes:
        figures[str(n)] = measure(n)
    figures["start_target_s"] = START_TARGET_S
    for n in sizes:
        at = figures[str(n)]
        assert isinstance(at, dict)
        figures[f"start_over_target_{n}"] = round(at["start_s"] / START_TARGET_S, 4)
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")


def measure(questions: int) -> dict[str, object]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import os

    from starlette.testclient import TestClient

    from benchmarks_factory import balanced_mc_bench
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["EGOWORLD_CACHE"] = str(root / "cache")
        balanced_mc_bench(root / "bench", n_mc=questions * 4 // 5, n_int=questions // 5, videos=200)
        for model in ("random", "prior", "oracle"):
            cfg = RunConfig(bench=root / "bench", model=model, out=root / "runs" / model, progress=False)
            run_benchmark(cfg)
            score_run(cfg.out)
        t0, c0 = time.perf_counter(), time.process_time()
        Workspace([root])
        first_s, first_cpu = time.perf_counter() - t0, time.process_time() - c0  # builds the indexes
        t0, c0 = time.perf_counter(), time.process_time()
        ws = Workspace([root])
        load_s, load_cpu = time.perf_counter() - t0, time.process_time() - c0  # reuses them
        client = TestClient(create_app(ViewApp(ws)))
        (bid,) = ws.benches
        urls = {
            "first_page": f"/b/{bid}/samples",
            "page_100": f"/b/{bid}/samples?page=100",
            "wrong_of_a_task": f"/b/{bid}/samples?task=MC&verdict=wrong&run=random",
            "models_disagree": f"/b/{bid}/samples?disagree=1",
            "sorted_by_score": f"/b/{bid}/samples?sort=score-desc&run=prior",
            "text_search": f"/b/{bid}/samples?q=chairs",
            "sample_page": f"/b/{bid}/s/mc-{questions // 3:03d}",
            "overview": "/",
        }
        timings = {}
        for name, url in urls.items():
            client.get(url)  # warm (the overview draws its plot once)
            t0 = time.perf_counter()
            r = client.get(url)
            timings[name] = round(time.perf_counter() - t0, 4)
            assert r.status_code == 200, (url, r.status_code)
        worst = max(v for k, v in timings.items() if k not in ("overview", "sample_page"))
    return {
        "questions": questions,
        "index_build_start_s": round(first_s, 3),
        "index_build_start_cpu_s": round(first_cpu, 3),
        "start_s": round(load_s, 3),
        "start_cpu_s": round(load_cpu, 3),
        "request_s": timings,
        "worst_list_s": worst,
        "worst_over_target": round(worst / TARGET_S, 4),
    }


if __name__ == "__main__":
    main()
