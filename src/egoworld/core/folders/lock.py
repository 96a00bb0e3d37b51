"""One writer per run folder: an advisory lock (``RUN/run.lock``) held while a command writes the folder.

The operating system drops the lock when the process ends, however it ends (kill -9 included), so a stale
lock never blocks a rerun. A second ``egoworld run`` on a folder in use refuses at once and names the holder.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "run.lock"


class FolderBusy(RuntimeError):
    """Another process is writing this run folder."""


@contextmanager
def folder_lock(folder: str | Path, command: str = "egoworld run") -> Iterator[None]:
    """Hold the folder's lock for the ``with`` block; raise `FolderBusy` if another process holds it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
            raise FolderBusy(
                f"{folder}: in use by {holder}; wait for it to finish (or stop it), or give another --out "
                "folder. Two runs on one folder would send every request twice."
            ) from None
        os.ftruncate(fd, 0)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        os.pwrite(fd, f"{command} (pid {os.getpid()} on {socket.gethostname()}, since {stamp})\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
