"""Run a sweep: every cell an `egoworld run` (then `egoworld score`) in its own process and run folder.

Cells run concurrently within each server's budget; a failed cell is retried with exponential backoff; a
done cell (``scores.jsonl`` written) is skipped, so rerunning the sweep after a crash or ``kill -9`` resumes
(the run folder's own resume re-sends only the requests that have no stored reply).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from egoworld.campaign.matrix import Cell, Sweep
from egoworld.campaign.state import read_state, write_state
from egoworld.core.files import write_text
from egoworld.core.run_config import SCORES_JSONL

_CLI = "from egoworld.cli import main; main()"


def _cell_config(cell: Cell, folder: Path) -> Path:
    import yaml

    config = {k: v for k, v in cell.options.items() if k != "out"}
    config["progress"] = False
    path = folder / f"{cell.name}.yaml"
    write_text(path, yaml.safe_dump(config, sort_keys=True))
    return path


def _tail(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:500] if lines else "no output"


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
            campaign, cell.name, status="running", pid=os.getpid(), attempts=attempt, run=str(run_dir)
        )
        steps = (
            ["run", "--config", str(config), "--out", str(run_dir)],
            ["score", "--run", str(run_dir)],
        )
        error = None
        for step in steps:
            proc = subprocess.run([sys.executable, "-c", _CLI, *step], capture_output=True, text=True)
            if proc.returncode != 0:
                error = f"egoworld {step[0]} exited {proc.returncode}: {_tail(proc.stderr or proc.stdout)}"
                break
        if error is None:
            write_state(campaign, cell.name, status="done", error=None, pid=None)
            return read_state(campaign, cell.name)
        write_state(campaign, cell.name, status="failed", error=error, pid=None)
        if attempt < attempts:
            time.sleep(backoff_s * 2 ** (attempt - 1))
    return read_state(campaign, cell.name)


def run_sweep(sweep: Sweep, campaign: Path, *, default_budget: int = 2) -> list[dict[str, Any]]:
    """Run every cell; returns the final states in cell order."""
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

    def one(cell: Cell) -> dict[str, Any]:
        with locks[cell.server]:
            return run_cell(campaign, cell, sweep.attempts, sweep.backoff_s)

    with ThreadPoolExecutor(max_workers=max(1, sum(budgets.values()))) as pool:
        return list(pool.map(one, sweep.cells))
