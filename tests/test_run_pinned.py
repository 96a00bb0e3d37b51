"""The run path's outputs pinned byte for byte: request keys, the rows of ``responses.sqlite``, ``run.json``
and ``scores.jsonl`` / ``scores.json`` of a first run and of its resume, for the standard plan (random with
option orders, the oracle, a ``pred`` history whose failed steps block their dependents) and an EXPLORE
multi-turn chain. The digests were taken before the run bodies became one; a change to them changes what a
run writes (times and this machine's paths are left out)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest
import typer

from benchmarks_factory import balanced_mc_bench
from egoworld.core.model import Generation, Model, ModelError, Request
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample, TaskInfo, Trajectory
from egoworld.runner.outcome import finish_run
from egoworld.runner.run import run_benchmark

#: run.json fields that hold times (they differ from run to run)
TIMES = ("seconds", "requests_per_second")
VOLATILE_COLUMNS = ("latency_s", "created_at", "updated_at")


class Flaky(Model):
    """Answers B; fails every first step of a trajectory but the first (their next steps are blocked)."""

    backend = "test"

    def identity(self) -> dict[str, Any]:
        return {"backend": "test", "model": "flaky"}

    async def generate(self, request: Request) -> Generation:
        if request.sample_id.endswith("s0") and request.sample_id != "a0-s0":
            raise ModelError("injected failure")
        return Generation(text="B", prompt_tokens=7, completion_tokens=1)


def _trajectory_bench(root: Path) -> Path:
    from egoworld.core.folders.bench_folder import save_benchmark

    samples = []
    for a in range(4):
        first = Sample(
            id=f"a{a}-s0",
            benchmark="traj",
            task="where",
            question=f"Where is object {a}?",
            answer_type="choice",
            choices=("sink", "hob", "fridge"),
            answer=a % 3,
            trajectory=Trajectory(id=f"a{a}", step=0),
        )
        second = Sample(
            id=f"a{a}-s1",
            benchmark="traj",
            task="visible",
            question=f"Is object {a} visible now?",
            answer_type="choice",
            choices=("No", "Yes"),
            answer=a % 2,
            trajectory=Trajectory(id=f"a{a}", step=1, depends_on=(first.id,)),
        )
        samples += [first, second]
    tasks = {
        "where": TaskInfo(answer_type="choice", metric="accuracy"),
        "visible": TaskInfo(answer_type="choice", metric="accuracy"),
    }
    return save_benchmark(root, name="traj", tasks=tasks, samples=samples).root


def _explore_bench(tmp: Path) -> Path:
    from egoworld.benchmarks.explore.build.builder import ActionEpisode, build_from_episodes
    from egoworld.benchmarks.explore.instances import SceneObject

    things = ["cup", "plate", "knife", "pan", "bowl", "spoon", "kettle", "towel"]
    episodes = []
    for i, n in enumerate((30, 150, 240)):
        img = tmp / f"src{i}.png"
        img.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([i]) * 32)
        initial = [SceneObject(t, f"a clean {t}", ("on the table",)) for t in things[:5]]
        final = [SceneObject(t, f"a used {t}", ("in the sink",)) for t in things[3:8]]
        actions = [f"C picks up the {things[k % 8]}" for k in range(n)]
        episodes.append(
            ActionEpisode(
                id=f"ep{i}", actions=actions, final_scene=final, initial_image=img, initial_scene=initial
            )
        )
    build_from_episodes(episodes, tmp / "bench", tiny_size=2)
    return tmp / "bench"


def _table_rows(db: sqlite3.Connection, table: str, skip: tuple[str, ...] = ()) -> list[Any]:
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] not in skip]
    rows = db.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY 1, 2").fetchall()
    if table == "requests":  # (stored compressed: compare what they hold)
        rows = [(k, json.loads(zlib.decompress(blob))) for k, blob in rows]
    if table == "request_blocks":
        rows = [(h, json.loads(zlib.decompress(blob))) for h, blob in rows]
    return [list(r) for r in rows]


def _normal(value: Any, tmp: str) -> Any:
    if isinstance(value, dict):
        return {k: _normal(v, tmp) for k, v in value.items() if k not in TIMES}
    if isinstance(value, list):
        return [_normal(v, tmp) for v in value]
    return value.replace(tmp, "<tmp>") if isinstance(value, str) else value


def _sha(value: Any) -> str:
    text = value if isinstance(value, bytes) else json.dumps(value, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def digests(run: Path, tmp: Path) -> dict[str, str]:
    """sha256 (16 hex digits) of each output of ``run``: store tables, run.json, the scores files."""
    out: dict[str, str] = {}
    with sqlite3.connect(run / "responses.sqlite") as db:
        out["keys"] = _sha(_table_rows(db, "plan"))
        out["responses"] = _sha(_table_rows(db, "responses", VOLATILE_COLUMNS))
        out["requests"] = _sha(_table_rows(db, "requests") + _table_rows(db, "request_blocks"))
    out["run.json"] = _sha(_normal(json.loads((run / "run.json").read_text()), str(tmp)))
    for name in ("scores.jsonl", "scores.json"):
        if (run / name).is_file():
            out[name] = _sha((run / name).read_bytes())
    return out


def _run_and_finish(cfg: RunConfig, model: Model | None = None) -> str:
    """One run command as the CLI runs it: the run, then its last lines (scoring); its summary's counts."""
    summary = run_benchmark(cfg, model=model)
    with contextlib.suppress(typer.Exit):  # (exit 3: some requests failed)
        finish_run(summary, cfg.out)
    return (
        f"{summary.planned} {summary.reused} {summary.called} {summary.ok} {summary.errors} {summary.blocked}"
    )


def _scenario(name: str, tmp: Path) -> tuple[RunConfig, Model | None]:
    out = tmp / "run"
    if name == "random-shuffle24":
        bench = balanced_mc_bench(tmp / "b", n_mc=12, n_int=4).root
        return RunConfig(
            bench=bench, model="random", out=out, permutations="shuffle24", concurrency=2, progress=False
        ), None
    if name == "oracle-per-task":
        bench = balanced_mc_bench(tmp / "b", n_mc=12, n_int=4).root
        return RunConfig(bench=bench, model="oracle", out=out, per_task=5, epochs=2, progress=False), None
    if name == "pred-history-blocked":
        bench = _trajectory_bench(tmp / "b")
        return RunConfig(
            bench=bench, model="x", out=out, history="pred", permutations=2, progress=False
        ), Flaky()
    if name == "explore-multi-turn":
        options = {"strategy": "stepwise", "segment_num": 3, "turns": "multi"}
        bench = _explore_bench(tmp)
        return RunConfig(
            bench=bench, model="oracle", out=out, setting="image", options=options, progress=False
        ), None
    raise AssertionError(name)


#: scenario → (first run's counts, its digests, the resume's counts, its digests)
PINNED: dict[str, tuple[str, dict[str, str], str, dict[str, str]]] = {
    "random-shuffle24": (
        "292 0 292 292 0 0",
        {
            "keys": "66b2a1d38fdf47ce",
            "responses": "26f31c7e8c16a6ad",
            "requests": "691701fc40a45a76",
            "run.json": "3d65bb5e134dabf3",
            "scores.jsonl": "71c736efc25c2ca1",
            "scores.json": "138b7620d7bc524d",
        },
        "292 292 0 0 0 0",
        {
            "keys": "66b2a1d38fdf47ce",
            "responses": "26f31c7e8c16a6ad",
            "requests": "691701fc40a45a76",
            "run.json": "13981e540cfe482a",
            "scores.jsonl": "71c736efc25c2ca1",
            "scores.json": "138b7620d7bc524d",
        },
    ),
    "oracle-per-task": (
        "18 0 18 18 0 0",
        {
            "keys": "331c9cfeb160f13d",
            "responses": "82e3154d86c1016b",
            "requests": "86515b5382e9c13e",
            "run.json": "77ed35d0a4f6ed7f",
            "scores.jsonl": "5c63c76cc704721c",
            "scores.json": "1442b75ac6aab601",
        },
        "18 18 0 0 0 0",
        {
            "keys": "331c9cfeb160f13d",
            "responses": "82e3154d86c1016b",
            "requests": "86515b5382e9c13e",
            "run.json": "4d5250d5912c03f1",
            "scores.jsonl": "5c63c76cc704721c",
            "scores.json": "1442b75ac6aab601",
        },
    ),
    "pred-history-blocked": (
        "16 0 10 4 6 6",
        {
            "keys": "60b85953b4798492",
            "responses": "69d7bd290c81a5b5",
            "requests": "ed860fa48205147d",
            "run.json": "8caf106ea46c7378",
            "scores.jsonl": "f11fed220ff38219",
            "scores.json": "4fe89e5d026a0f79",
        },
        "16 4 6 0 6 6",
        {
            "keys": "60b85953b4798492",
            "responses": "4d93fe9dfba305e4",
            "requests": "ed860fa48205147d",
            "run.json": "d330874c1ad54d91",
            "scores.jsonl": "f11fed220ff38219",
            "scores.json": "4fe89e5d026a0f79",
        },
    ),
    "explore-multi-turn": (
        "0 0 9 9 0 0",
        {
            "keys": "846a1430bc1dbbdf",
            "responses": "a7fe7f667c26bcee",
            "requests": "bdca59ac6ecbc145",
            "run.json": "7c1ff4eba862fcad",
        },
        "0 9 0 0 0 0",
        {
            "keys": "846a1430bc1dbbdf",
            "responses": "a7fe7f667c26bcee",
            "requests": "bdca59ac6ecbc145",
            "run.json": "b0686749a2c27293",
        },
    ),
}


@pytest.mark.parametrize(
    "name", ["random-shuffle24", "oracle-per-task", "pred-history-blocked", "explore-multi-turn"]
)
def test_outputs_of_a_run_and_its_resume_are_pinned(name: str, tmp_path: Path) -> None:
    cfg, model = _scenario(name, tmp_path)
    first = _run_and_finish(cfg, model)
    first_digests = digests(cfg.out, tmp_path)
    again = _run_and_finish(cfg, model)
    got = (first, first_digests, again, digests(cfg.out, tmp_path))
    if os.environ.get("EGOWORLD_PRINT_PINS"):
        print(f"\n    {name!r}: {got!r},")
    assert got == PINNED[name]
