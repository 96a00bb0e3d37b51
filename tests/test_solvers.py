"""The baselines as solvers: the answers of `random`, `prior` and `oracle` on small benchmarks are pinned
(recorded before they moved out of the model backends), and a backend sees a request, never the sample."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from egoworld.core.bench_folder import Benchmark, save_benchmark
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Media, Sample, TaskInfo, VideoInput
from egoworld.runner.run import run_benchmark

CHOICES = ("forward", "backward", "left", "right")


def _toy(root: Path) -> Benchmark:
    """Choices (one with other option texts), integers, numbers and a free-form question."""
    samples = [
        Sample(
            id=f"mc-{i}",
            benchmark="toy",
            task="MC",
            question=f"Which way {i}?",
            answer_type="choice",
            choices=CHOICES if i < 4 else ("up", "down", "in", "out"),
            answer=(i * 3) % 4 if i != 2 else 1,
        )
        for i in range(5)
    ]
    samples += [
        Sample(id=f"int-{i}", benchmark="toy", task="COUNT", question=f"How many {i}?", answer_type="integer", answer=i % 3 + 2)
        for i in range(4)
    ]
    samples += [
        Sample(id=f"num-{i}", benchmark="toy", task="DIST", question=f"How far {i}?", answer_type="number", answer=1.25 * i + 0.5)
        for i in range(3)
    ]
    samples.append(
        Sample(id="free-0", benchmark="toy", task="FREE", question="Describe it.", answer_type="free", answer="a cup")
    )
    tasks = {
        "MC": TaskInfo(answer_type="choice", metric="accuracy", chance=25.0),
        "COUNT": TaskInfo(answer_type="integer", metric="mra"),
        "DIST": TaskInfo(answer_type="number", metric="mra"),
        "FREE": TaskInfo(answer_type="free", metric="exact"),
    }
    return save_benchmark(root, name="toy", tasks=tasks, samples=samples, seed=0)


def _time_points(root: Path) -> Benchmark:
    """Beyond3D time + point questions whose query time is the clip end, the official record's, or neither."""
    answer = {
        "candidates": [{"time_s": 7.5, "x": 0.25, "y": 0.75}, {"time_s": 9.0, "x": 0.5, "y": 0.5}],
        "time_tolerance_s": 2.0,
        "point_tolerance": 0.1,
    }
    common = {"benchmark": "beyond3d", "task": "last_visible", "question": "When?", "answer_type": "time_point"}
    samples = [
        Sample(id="tp-clip", media=Media(video=VideoInput(path="v.mp4", end_s=30.0)), answer=answer, **common),
        Sample(id="tp-official", metadata={"official": {"query_time_sec": 12.0}}, answer=answer, **common),
        Sample(id="tp-none", answer={**answer, "candidates": [{"time_s": 3.0, "x": 0.1, "y": 0.2}]}, **common),
    ]
    tasks = {"last_visible": TaskInfo(answer_type="time_point", metric="time_point")}
    return save_benchmark(root, name="beyond3d", tasks=tasks, samples=samples, seed=0)


def _replies(bench: Benchmark, out: Path, model: str, **kw) -> list[tuple[str, str, int, str, str]]:
    run_benchmark(RunConfig(bench=bench.root, model=model, out=out, progress=False, **kw))
    with sqlite3.connect(out / "responses.sqlite") as db:
        rows = db.execute(
            "SELECT sample_id, permutation, epoch, status, COALESCE(raw, error) FROM responses "
            "ORDER BY sample_id, permutation, epoch"
        ).fetchall()
    return [tuple(r) for r in rows]


def _keys(out: Path) -> str:
    with sqlite3.connect(out / "responses.sqlite") as db:
        return _digest([r[0] for r in db.execute("SELECT key FROM responses ORDER BY key")])


def _digest(rows: list) -> str:
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


def dump(tmp: Path) -> dict:
    """The pinned values (printed on the old code to fill the constants below)."""
    toy, tp = _toy(tmp / "toy"), _time_points(tmp / "tp")
    out = {}
    for model in ("oracle", "random", "prior"):
        out[model] = _replies(toy, tmp / f"toy-{model}", model)
        out[model + "/tp"] = _replies(tp, tmp / f"tp-{model}", model)
        out[model + "/keys"] = _keys(tmp / f"toy-{model}") + " " + _keys(tmp / f"tp-{model}")
        out[model + "/shuffle"] = _digest(
            _replies(toy, tmp / f"toy-{model}-s", model, permutations="shuffle24", epochs=2, seed=3)
        )
    return out
