"""`egoworld sweep`: 2 models × 2 benchmarks × 2 settings against two 127.0.0.1 servers, one failing some
requests and throttling; killed with kill -9 mid-sweep and resumed to the same scores as a sweep never
interrupted. Also: the leaderboard against a table recomputed from scores.jsonl, cache hits on a second
benchmark folder holding the same questions, judge-scored cells, and cells as Ray tasks."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from egoworld.core.folders.bench_folder import save_benchmark
from egoworld.core.schema import Sample, TaskInfo
from openai_test_server import FakeOpenAIServer

CLI = "from egoworld.cli import main; main()"
WORDS = ("apple", "pear", "plum", "fig")


def _bench(root: Path, name: str, n: int) -> Path:
    samples = [
        Sample(
            id=f"{name}-{t}-{i}",
            benchmark="toy",
            task=t,
            episode=f"e{i % 3}",
            cluster=f"e{i % 3}",
            question=f"[{name}] Which fruit is '{WORDS[(i + k) % 4]}' ({t} {i})?",
            answer_type="choice",
            choices=WORDS,
            answer=(i + k) % 4,
        )
        for k, t in enumerate(("PICK", "NAME"))
        for i in range(n)
    ]
    tasks = {t: TaskInfo(answer_type="choice", metric="accuracy", chance=25.0) for t in ("PICK", "NAME")}
    save_benchmark(root / name, name="toy", tasks=tasks, samples=samples, seed=0)
    return root / name


def _sweep_file(tmp: Path, a: str, b: str, benches: list[Path]) -> Path:
    spec = {
        "defaults": {"setting": "text", "concurrency": 4},
        "models": [
            {"name": "m-a", "model": "openai:fake-vlm-1", "base_url": a, "budget": 2},
            {"name": "m-b", "model": "openai:fake-vlm-1", "base_url": b, "budget": 1},
        ],
        "benchmarks": [{"name": p.name, "bench": str(p)} for p in benches],
        "settings": [{"name": "plain"}, {"name": "orders2", "permutations": "2"}],
        "retry": {"attempts": 3, "backoff_s": 0.1},
    }
    path = tmp / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def _scores(campaign: Path) -> dict[str, list]:
    out = {}
    for run in sorted((campaign / "runs").iterdir()):
        rows = [json.loads(ln) for ln in (run / "scores.jsonl").read_text().splitlines() if ln.strip()]
        out[run.name] = sorted(json.dumps(r, sort_keys=True) for r in rows)
    return out


def _fault(prompt: str) -> str | None:
    h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    return "500-once" if h % 5 == 0 else ("429-once" if h % 7 == 0 else None)


@pytest.mark.slow
def test_sweep_kill9_resume_matches_uninterrupted(tmp_path: Path) -> None:
    benches = [_bench(tmp_path, "b1", 12), _bench(tmp_path, "b2", 12)]
    throttled = {"throttle_above": 2, "throttle_seconds": 1.0}
    with FakeOpenAIServer() as a, FakeOpenAIServer(fault=_fault, delay=0.02, **throttled) as b:
        spec = _sweep_file(tmp_path, a.base_url, b.base_url, benches)
        clean = tmp_path / "clean"
        subprocess.run(
            [sys.executable, "-c", CLI, "sweep", "run", str(spec), "--out", str(clean)], check=True
        )
        assert b.outcomes["500"] and b.outcomes["429"], b.outcomes  # the server did fail some requests
        assert max(n for t, n in b.in_flight_log if t < 1.0) > 2  # … and throttled (429) past 2 in flight
        b.attempts.clear()  # the same faults again for the interrupted sweep
        b.first_request = None

        killed = tmp_path / "killed"
        proc = subprocess.Popen(
            [sys.executable, "-c", CLI, "sweep", "run", str(spec), "--out", str(killed)],
            start_new_session=True,
        )
        deadline = time.time() + 60
        while time.time() < deadline and not list((killed / "runs").glob("*/scores.jsonl")):
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert 0 < len(list((killed / "runs").glob("*/scores.jsonl"))) < 8  # killed mid-sweep
        status = subprocess.run(
            [sys.executable, "-c", CLI, "sweep", "status", str(killed)], capture_output=True, text=True
        )
        assert status.returncode == 0 and ("interrupted" in status.stdout or "pending" in status.stdout)
        subprocess.run(
            [sys.executable, "-c", CLI, "sweep", "run", str(spec), "--out", str(killed)], check=True
        )
        assert len(_scores(clean)) == 8
        assert _scores(killed) == _scores(clean)
        final = subprocess.run(
            [sys.executable, "-c", CLI, "sweep", "status", str(killed)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "8 done" in final.stdout
        _check_leaderboard(clean)


def _section(text: str, title: str) -> list[str]:
    """The lines of one benchmark's table in the leaderboard's output (from its title to the next)."""
    lines = text.splitlines()
    start = lines.index(title)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(title[:2])), len(lines))
    return lines[start:end]


def _check_leaderboard(campaign: Path) -> None:
    """The leaderboard of b1 equals the table recomputed here from each run's scores.jsonl (tasks in the
    manifest's order, then their macro mean; rows: the sweep's model and setting names)."""
    runs = sorted(p for p in (campaign / "runs").iterdir() if "__b1__" in p.name)
    means = {}
    for run in runs:
        per_sample: dict[str, list] = {}
        for line in (run / "scores.jsonl").read_text().splitlines():
            r = json.loads(line)
            per_sample.setdefault(r["sample"], [r["task"], []])[1].append(r["score"])
        tasks: dict[str, list] = {"PICK": [], "NAME": []}
        for task, scores in per_sample.values():
            tasks[task].append(sum(scores) / len(scores))
        values = [100 * sum(v) / len(v) for v in tasks.values()]
        model, _, setting = run.name.split("__")
        means[(model, setting)] = [round(v, 1) for v in values] + [round(sum(values) / len(values), 1)]
    md = subprocess.run(
        [sys.executable, "-c", CLI, "leaderboard", str(campaign)], capture_output=True, text=True, check=True
    ).stdout
    tex = subprocess.run(
        [sys.executable, "-c", CLI, "leaderboard", str(campaign), "--format", "latex"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for (model, setting), values in means.items():
        line = next(ln for ln in _section(md, "## toy (b1)") if ln.startswith(f"| {model} | {setting} |"))
        cols = [c.strip().strip("*").replace("<u>", "").replace("</u>", "") for c in line.split("|")[3:-1]]
        assert [float(c) for c in cols] == values
        row = next(
            ln
            for ln in _section(tex, "% toy (b1)")
            if ln.startswith(f"{model.replace('_', chr(92) + '_')} & {setting} &")
        )
        nums = [float(re.search(r"\d+\.\d", x).group()) for x in row.split("&")[2:]]
        assert nums == values
    assert r"\toprule" in tex and r"\bottomrule" in tex


def test_sweep_refuses_an_unknown_run_option(tmp_path: Path) -> None:
    bench = _bench(tmp_path, "b1", 2)
    spec = {
        "models": [{"name": "r", "model": "random"}],
        "benchmarks": [{"name": "b1", "bench": str(bench)}],
        "settings": [{"name": "s", "frame_budgt": 8}],
    }
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "sweep", "run", str(path), "--out", str(tmp_path / "c")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and "frame_budgt" in proc.stderr


def test_sweep_records_a_failed_cell_with_its_reason(tmp_path: Path) -> None:
    bench = _bench(tmp_path, "b1", 2)
    spec = {
        "models": [{"name": "dead", "model": "openai:x", "base_url": "http://127.0.0.1:9/v1"}],
        "benchmarks": [{"name": "b1", "bench": str(bench)}],
        "retry": {"attempts": 2, "backoff_s": 0},
    }
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "sweep", "run", str(path), "--out", str(tmp_path / "c")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    status = subprocess.run(
        [sys.executable, "-c", CLI, "sweep", "status", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert (
        "failed" in status.stdout and "attempts=2" in status.stdout and "egoworld run exited" in status.stdout
    )


def _cli(*args: str, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True,
        text=True,
        check=check,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_second_benchmark_folder_with_the_same_questions_is_served_from_the_cache(tmp_path: Path) -> None:
    first = _bench(tmp_path, "b1", 6)
    copy = tmp_path / "b1-reexport"
    shutil.copytree(first, copy)
    with FakeOpenAIServer() as srv:
        spec = {
            "defaults": {"setting": "text", "cache": str(tmp_path / "cache")},
            "models": [{"name": "m", "model": "openai:fake-vlm-1", "base_url": srv.base_url, "budget": 1}],
            "benchmarks": [{"name": "first", "bench": str(first)}, {"name": "again", "bench": str(copy)}],
        }
        path = tmp_path / "sweep.yaml"
        path.write_text(yaml.safe_dump(spec), encoding="utf-8")
        _cli("sweep", "run", str(path), "--out", str(tmp_path / "c"))
        sent = len(srv.bodies)
    runs = tmp_path / "c" / "runs"
    a, b = (json.loads((runs / f"m__{n}__default" / "run.json").read_text()) for n in ("first", "again"))
    assert a["cache"]["hits"] == 0 and a["cache"]["misses"] == 12
    assert b["cache"]["hits"] == 12 and b["cache"]["misses"] == 0 and sent == 12
    assert (runs / "m__first__default/scores.jsonl").read_text().replace("b1-reexport", "b1") == (
        runs / "m__again__default/scores.jsonl"
    ).read_text().replace("b1-reexport", "b1")


@pytest.mark.slow  # EXPLORE's S_uni loads Sentence-BERT in the scoring step
def test_judge_scored_cells_are_scored_in_the_sweep(tmp_path: Path) -> None:
    from egoworld.benchmarks.explore.build.builder import build_from_episodes
    from test_explore_runs import _episode

    build_from_episodes(
        [_episode(tmp_path, i, n) for i, n in enumerate((30, 150))], tmp_path / "ex", tiny_size=2
    )
    spec = {
        "models": [{"name": "oracle", "model": "oracle"}],
        "benchmarks": [{"name": "explore", "bench": str(tmp_path / "ex"), "judge": "lexical"}],
    }
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    out = _cli("sweep", "run", str(path), "--out", str(tmp_path / "c"), "--track", f"wandb:{tmp_path}")
    assert "tracked: wandb (offline)" in out.stdout
    run = tmp_path / "c/runs/oracle__explore__default"
    oracle = json.loads((run / "scores.json").read_text())
    assert oracle["tasks"]["scene"]["metric"] == "s_uni" and oracle["explore"]["judge"]["name"] == "lexical"
    assert oracle["explore"]["partitions"]["full"]["s_obj"] >= 90
    assert (run / "scores.jsonl").is_file()
    assert "1 done" in _cli("sweep", "status", str(tmp_path / "c")).stdout
    from test_track import wandb_records  # the tracker got the judged scores (EXPLORE's S_uni per task)

    [log] = list((tmp_path / "wandb").glob("offline-run-*/run-*.wandb"))
    history = {
        i.key or ".".join(i.nested_key): json.loads(i.value_json)
        for r in wandb_records(log)
        if r.HasField("history")
        for i in r.history.item
    }
    assert history["task.scene"] == pytest.approx(oracle["tasks"]["scene"]["s_uni"])
    _cli("sweep", "run", str(path), "--out", str(tmp_path / "c"), "--track", f"wandb:{tmp_path}")
    assert len(list((tmp_path / "wandb").glob("offline-run-*"))) == 1  # a done cell is sent once


@pytest.mark.slow
def test_cells_run_as_ray_tasks_within_the_server_budget(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    bench = _bench(tmp_path, "b1", 6)
    with FakeOpenAIServer(delay=0.05) as srv:
        spec = {
            "defaults": {"setting": "text", "concurrency": 2},
            "models": [{"name": "m", "model": "openai:fake-vlm-1", "base_url": srv.base_url, "budget": 1}],
            "benchmarks": [{"name": "b1", "bench": str(bench)}],
            "settings": [{"name": "plain"}, {"name": "orders2", "permutations": "2"}],
        }
        path = tmp_path / "sweep.yaml"
        path.write_text(yaml.safe_dump(spec), encoding="utf-8")
        out = _cli(
            "sweep",
            "run",
            str(path),
            "--out",
            str(tmp_path / "ray"),
            "--executor",
            "ray",
            env={"EGOWORLD_RAY_CPUS": "2"},
        )
        assert "2 done" not in out.stdout and out.stdout.count("done") == 2, out.stdout
        assert max(n for _, n in srv.in_flight_log) <= 2  # one cell at a time (budget 1), 2 requests each
        _cli("sweep", "run", str(path), "--out", str(tmp_path / "local"))
    assert _scores(tmp_path / "ray") == _scores(tmp_path / "local")
    states = [json.loads(p.read_text()) for p in (tmp_path / "ray" / "cells").glob("*.json")]
    assert {s["status"] for s in states} == {"done"} and all(s["pid"] is None for s in states)
