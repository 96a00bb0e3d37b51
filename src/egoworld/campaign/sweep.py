"""Run a sweep: every cell an `egoworld run` in its own process and run folder (scored in-process; a cell
with a judge, or a free-form benchmark, then `egoworld score --judge`).

Cells run concurrently within each server's budget, here or as Ray tasks (``executor="ray"``); a failed cell
is retried with exponential backoff; a done cell (``scores.jsonl`` written) is skipped, so rerunning the
sweep after a crash or ``kill -9`` resumes (the run folder's own resume re-sends only the requests that have
no stored reply). A done cell is sent to its tracker once (``--track``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from egoworld.campaign.cell_state import read_state, write_state
from egoworld.campaign.matrix import Cell, Sweep
from egoworld.core.folders.files import write_text
from egoworld.core.run_config import SCORES_JSONL

_CLI = "from egoworld.cli import main; main()"


def _cell_config(cell: Cell, folder: Path) -> Path:
    import yaml

    config = {k: v for k, v in cell.options.items() if k not in ("out", "track")}
    config["progress"] = False
    path = folder / f"{cell.name}.yaml"
    write_text(path, yaml.safe_dump(config, sort_keys=True))
    return path


def _tail(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:500] if lines else "no output"


def _step(args: list[str]) -> str | None:
    """Run one egoworld command in its own process; the error line when it fails."""
    proc = subprocess.run([sys.executable, "-c", _CLI, *args], capture_output=True, text=True)
    if proc.returncode == 0:
        return None
    return f"egoworld {args[0]} exited {proc.returncode}: {_tail(proc.stderr or proc.stdout)}"


def _judge(cell: Cell) -> str | None:
    """The cell's judge; an LLM judge shares the cell's response cache (``cache=DIR``) unless it names one."""
    judge, cache = cell.judge, cell.options.get("cache")
    if judge and judge.startswith("openai:") and cache and "cache=" not in judge:
        judge += f",cache={cache}"
    return judge


def run_cell(campaign: Path, cell: Cell, attempts: int, backoff_s: float) -> dict[str, Any]:
    """Run (or resume) one cell until it is scored or its attempts are spent; returns its final state."""
    run_dir = campaign / "runs" / cell.name
    if (run_dir / SCORES_JSONL).is_file() and read_state(campaign, cell.name).get("status") == "done":
        return read_state(campaign, cell.name)
    run_dir.mkdir(parents=True, exist_ok=True)
    config = _cell_config(cell, campaign / "cells")
    error = None
    for attempt in range(1, attempts + 1):
        write_state(
            campaign,
            cell.name,
            status="running",
            pid=os.getpid(),
            host=socket.gethostname(),
            attempts=attempt,
            run=str(run_dir),
        )
        error = _step(["run", "--config", str(config), "--out", str(run_dir)])
        if error is None and (cell.judge or not (run_dir / SCORES_JSONL).is_file()):
            # judge-scored cells (and free-form benchmarks the run could not score in-process)
            judge = _judge(cell)
            error = _step(["score", "--run", str(run_dir), *(["--judge", judge] if judge else [])])
        if error is None:
            write_state(campaign, cell.name, status="done", error=None, pid=None)
            return read_state(campaign, cell.name)
        write_state(campaign, cell.name, status="failed", error=error, pid=None)
        if attempt < attempts:
            time.sleep(backoff_s * 2 ** (attempt - 1))
    return read_state(campaign, cell.name)


def track_cell(campaign: Path, cell: Cell, track: str | None) -> None:
    """Send a done cell to its tracker once (the experiment is the campaign folder's name)."""
    from egoworld.campaign.experiment_trackers import log_run

    spec = cell.track or track
    state = read_state(campaign, cell.name)
    if not spec or state.get("status") != "done" or state.get("tracked") == spec:
        return
    try:
        where = log_run(campaign / "runs" / cell.name, spec, experiment=campaign.resolve().name)
    except (OSError, ValueError, RuntimeError) as exc:
        write_state(campaign, cell.name, status="failed", error=f"--track {spec}: {exc}")
        return
    write_state(campaign, cell.name, tracked=spec, tracked_to=where)


def run_sweep(
    sweep: Sweep,
    campaign: Path,
    *,
    default_budget: int = 2,
    executor: str = "local",
    address: str | None = None,
    track: str | None = None,
) -> list[dict[str, Any]]:
    """Run every cell (here, or each as a Ray task with ``executor="ray"``); returns the final states in cell
    order. A server's budget bounds how many of its cells run at once wherever they run."""
    from egoworld.core.process.pool import EXECUTORS, ensure_ray

    if executor not in EXECUTORS:
        raise ValueError(f"--executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    campaign = campaign.resolve()  # Ray workers may start in another folder
    campaign.mkdir(parents=True, exist_ok=True)
    write_text(
        campaign / "campaign.json",
        json.dumps(
            {"cells": [{"name": c.name, "server": c.server, "options": c.options} for c in sweep.cells]},
            indent=2,
            sort_keys=True,
            default=str,
        )
        + "\n",
    )
    for cell in sweep.cells:
        if read_state(campaign, cell.name)["status"] == "pending":
            write_state(campaign, cell.name, status="pending")
    budgets = {s: sweep.budgets.get(s, default_budget) for s in {c.server for c in sweep.cells}}
    locks = {server: threading.BoundedSemaphore(n) for server, n in budgets.items()}
    remote = ensure_ray(address).remote(num_cpus=1)(run_cell) if executor == "ray" else None
    track_lock = threading.Lock()  # one tracker write at a time (W&B and MLflow keep process state)

    def one(cell: Cell) -> dict[str, Any]:
        with locks[cell.server]:
            if remote is None:
                run_cell(campaign, cell, sweep.attempts, sweep.backoff_s)
            else:
                import ray

                ray.get(remote.remote(campaign, cell, sweep.attempts, sweep.backoff_s))
        with track_lock:
            track_cell(campaign, cell, track)
        return read_state(campaign, cell.name)

    with ThreadPoolExecutor(max_workers=max(1, sum(budgets.values()))) as pool:
        return list(pool.map(one, sweep.cells))
