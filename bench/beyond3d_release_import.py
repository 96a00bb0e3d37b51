"""Bench: the official Beyond3D artifacts at full scale, on at most 2 cores.

Scales the 58 real logged questions (`../shared/data/beyond3d-official/logs`) to 9,000 by copying them
under new trajectory ids, then times (1) `import beyond3d-qa` of a 9,000-question release file (the
records rebuilt from the logged docs, trajectories as released), (2) `import lmms-eval` of a 9,000-line
``--log_samples`` file and (3) `egoworld score` of its 9,000 replies (with the reference agreement).
Targets: import and scoring each under 10 s (wall clock; CPU seconds are printed beside them, since a busy
machine stretches the wall clock). Ends with one JSON line of figures (ratio = seconds / 10 s).

Environment: EGOWORLD_DATA (default: ../shared/data), EGOWORLD_BENCH_DIR (default: a temporary folder).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

QUESTIONS = 9000
TARGET_S = 10.0


def two_cores() -> int:
    """Pin this process to at most 2 cores; returns the number used."""
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cores)
        return len(cores)
    return min(2, os.cpu_count() or 1)


def scaled_lines(logs: Path, n: int) -> list[dict]:
    """``n`` log lines: the real ones, copied under new trajectory ids (same trajectories stay together)."""
    unique: dict[str, dict] = {}  # a question logged by several models / settings is taken once
    for f in sorted(logs.glob("*/*.jsonl")):
        for x in f.open():
            line = json.loads(x)
            unique.setdefault(line["oos_score"]["id"], line)
    originals = list(unique.values())
    out: list[dict] = []
    copy = 0
    while len(out) < n:
        for line in originals:
            if len(out) == n:
                break
            doc = dict(line["oos_score"])
            tid = f"{doc['trajectory_id']}#{copy}"
            doc["trajectory_id"] = tid
            doc["id"] = doc["doc_id"] = f"{tid}__step_{doc['step']}"
            out.append(line | {"oos_score": doc, "doc_id": len(out)})
        copy += 1
    return out


def main() -> None:
    cores = two_cores()
    from egoworld.benchmarks.beyond3d.importer import docs_to_records, import_beyond3d_qa
    from egoworld.interchange.lmms_eval_log import import_lmms_eval_log
    from egoworld.scoring.score import score_run

    data = Path(os.environ.get("EGOWORLD_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
    logs = data / "beyond3d-official" / "logs"
    if not logs.is_dir():
        sys.exit(f"{logs}: not found (set EGOWORLD_DATA to the shared data folder)")
    root = Path(
        os.environ.get("EGOWORLD_BENCH_DIR") or tempfile.mkdtemp(prefix="egoworld-bench-b3d-release-")
    )
    root.mkdir(parents=True, exist_ok=True)
    lines = scaled_lines(logs, QUESTIONS)
    records = docs_to_records([ln["oos_score"] for ln in lines])
    release = root / "vqa_release.jsonl"
    release.write_text("".join(json.dumps(r) + "\n" for r in records))
    log = root / "bench_model" / "without_video.jsonl"
    log.parent.mkdir(exist_ok=True)
    log.write_text("".join(json.dumps(ln) + "\n" for ln in lines))

    t0, c0 = time.perf_counter(), time.process_time()
    bench = import_beyond3d_qa(release, root / "release-bench")
    import_s, import_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    imported = import_lmms_eval_log(log, root / f"imported-{time.time_ns()}")
    log_s = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    summary = score_run(imported.run)
    score_s, score_cpu = time.perf_counter() - t0, time.process_time() - c0
    agreement = summary["reference_agreement"]
    figures = {
        "bench": "beyond3d_release_import",
        "cores": cores,
        "release_records": len(records),
        "questions": len(bench.samples),
        "import_release_s": round(import_s, 3),
        "import_release_ratio": round(import_s / TARGET_S, 3),
        "import_release_cpu_s": round(import_cpu, 3),
        "import_log_lines": imported.lines,
        "import_log_s": round(log_s, 3),
        "score_replies": summary["rows"],
        "score_s": round(score_s, 3),
        "score_ratio": round(score_s / TARGET_S, 3),
        "score_cpu_s": round(score_cpu, 3),
        "reference_agreement": agreement["share"],
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "ok": import_s < TARGET_S and score_s < TARGET_S and agreement["share"] == 100.0,
    }
    print(
        f"import {len(records)} release records ({len(bench.samples)} questions): {import_s:.2f} s; "
        f"import {imported.lines} log lines: {log_s:.2f} s; score {summary['rows']} replies: {score_s:.2f} s; "
        f"agreement {agreement['share']}%"
    )
    print(json.dumps(figures))
    if not figures["ok"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
