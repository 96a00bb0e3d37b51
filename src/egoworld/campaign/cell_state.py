"""A cell's state in the campaign folder: ``CAMPAIGN/cells/NAME.json`` (status, attempts, last error)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import read_json_object, write_text


def state_path(campaign: Path, name: str) -> Path:
    return campaign / "cells" / f"{name}.json"


def read_state(campaign: Path, name: str) -> dict[str, Any]:
    path = state_path(campaign, name)
    if not path.exists():
        return {"name": name, "status": "pending", "attempts": 0, "error": None}
    state = read_json_object(path, " (a sweep cell's state)")
    pid, host = state.get("pid"), state.get("host")
    here = host in (None, socket.gethostname())  # a cell on another Ray node: its pid is not ours to probe
    if state.get("status") == "running" and pid and here and not _alive(int(pid)):
        state["status"] = "interrupted"  # the sweep was killed; the next sweep resumes the run folder
    return state


def write_state(campaign: Path, name: str, **fields: Any) -> None:
    path = state_path(campaign, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = read_state(campaign, name) | fields
    write_text(path, json.dumps(state, indent=2, sort_keys=True) + "\n")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def all_states(campaign: Path) -> list[dict[str, Any]]:
    folder = campaign / "cells"
    return [read_state(campaign, p.stem) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
