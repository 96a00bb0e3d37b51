"""Folders built once per test run and shared by every test file that asks for the same one, also across
pytest-xdist workers: the first worker to ask builds it under a file lock, the others wait and read it."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """This test run's temporary folder: the one above the workers' own under xdist, else pytest's own."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_folder(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """The run-wide folder ``name``, made by ``build(folder)`` the first time any worker asks for it.

    A build that raises leaves no finished folder: the error reaches the asking test, and the next one to ask
    builds again from scratch (so a broken build fails every test that needs it, never passes silently).
    """
    root = run_folder(factory) / "shared"
    root.mkdir(parents=True, exist_ok=True)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if build raises
        if not done.is_file():
            if folder.exists():
                shutil.rmtree(folder)  # left half-built by a build that raised
            build(folder)
            done.touch()
    return folder
