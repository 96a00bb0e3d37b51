"""The viewer's index of a run: one SQLite file per run folder (in ``$EGOWORLD_CACHE/view``, else
``~/.cache/egoworld/view``) holding each question's score, verdict and first prediction, and its scored rows
(compressed, read only when a page needs them). Built once from ``scores.jsonl`` and reused while that file
keeps its content (its sha256, hashed again at every open); rebuilt when it changes (a rescore), even when
its size and modification time stay the same."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import iter_jsonl
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.run_config import SCORES_JSONL

INDEX_VERSION = "2"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  ord INTEGER PRIMARY KEY, sample TEXT NOT NULL UNIQUE, score REAL, verdict TEXT NOT NULL,
  pred TEXT, rows BLOB NOT NULL
);
"""


def index_dir() -> Path:
    """``$EGOWORLD_CACHE/view``, else ``$XDG_CACHE_HOME/egoworld/view``, else ``~/.cache/egoworld/view``."""
    root = os.environ.get("EGOWORLD_CACHE")
    if root:
        return Path(root) / "view"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "egoworld" / "view"


def index_path(run_dir: Path) -> Path:
    digest = hashlib.sha256(str(Path(run_dir).resolve()).encode()).hexdigest()[:20]
    return index_dir() / f"{digest}.sqlite"


def scores_key(run_dir: Path) -> str:
    """What the index was built from: the sha256 of ``scores.jsonl`` (absent: "none")."""
    path = Path(run_dir) / SCORES_JSONL
    if not path.is_file():
        return "none"
    return f"{INDEX_VERSION}:{sha256_file(path)}"


class RunIndex:
    """The open index of one run folder (built or rebuilt on open when stale); ``built`` says which."""

    def __init__(self, run_dir: Path, summarise: Callable[[list[dict[str, Any]]], tuple[Any, str, Any]]):
        self.run_dir = Path(run_dir)
        self.path = index_path(self.run_dir)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.executescript(_SCHEMA)
        key = scores_key(self.run_dir)
        row = self.db.execute("SELECT v FROM meta WHERE k = 'scores'").fetchone()
        self.built = row is None or row[0] != key
        if self.built:
            self._build(key, summarise)

    def _build(self, key: str, summarise: Callable[[list[dict[str, Any]]], tuple[Any, str, Any]]) -> None:
        grouped: dict[str, list[dict[str, Any]]] = {}
        path = self.run_dir / SCORES_JSONL
        if path.is_file():
            for _, r in iter_jsonl(path):
                if r.get("sample") is not None:
                    grouped.setdefault(r["sample"], []).append(r)
        with self._lock:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM results")
            self.db.executemany(
                "INSERT INTO results (ord, sample, score, verdict, pred, rows) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    (k, sid, *_cols(summarise(rows)), zlib.compress(json.dumps(rows).encode(), 1))
                    for k, (sid, rows) in enumerate(grouped.items())
                ),
            )
            self.db.execute("INSERT OR REPLACE INTO meta (k, v) VALUES ('scores', ?)", (key,))
            self.db.execute("COMMIT")

    def columns(self) -> list[tuple[str, float | None, str, str | None]]:
        """(sample, score, verdict, first prediction as JSON text) per question, in ``scores.jsonl`` order."""
        with self._lock:
            return self.db.execute("SELECT sample, score, verdict, pred FROM results ORDER BY ord").fetchall()

    def rows(self, sample_id: str) -> list[dict[str, Any]]:
        """The scored rows of one question (every order and epoch)."""
        with self._lock:
            got = self.db.execute("SELECT rows FROM results WHERE sample = ?", (sample_id,)).fetchone()
        return [] if got is None else json.loads(zlib.decompress(got[0]))

    def close(self) -> None:
        self.db.close()


def _cols(summary: tuple[Any, str, Any]) -> tuple[float | None, str, str | None]:
    score, verdict, pred = summary
    return score, verdict, None if pred is None else json.dumps(pred)
