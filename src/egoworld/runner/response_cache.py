"""`ResponseCache`: model replies shared across run folders (``--cache DIR``; one SQLite file in WAL mode).

The cache key is what the model is sent: the model identity (backend, model id, revision, generation
settings), the messages (prompt text, image and clip content hashes, frame indices and times), the option
order and the epoch. Unlike the run's request key it leaves out the sample id and the run's input settings
(they act through the messages), so two benchmark folders asking the same question of the same model with
the same media share an entry. Only deterministic requests are cached: temperature 0 or a fixed seed.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.hashing import sha256_json
from egoworld.core.model import Generation, Request

CACHE_FILE = "responses-cache.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    raw TEXT NOT NULL,
    reasoning TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    reasoning_tokens INTEGER,
    finish_reason TEXT,
    served_model TEXT,
    hits INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    used_at REAL NOT NULL
);
"""


def deterministic(identity: dict[str, Any]) -> bool:
    """A model whose reply to one request is fixed: generation at temperature 0 or with a seed."""
    gen = identity.get("generation")
    if not isinstance(gen, dict):
        return False
    return gen.get("seed") is not None or gen.get("temperature") == 0


def cache_key(identity: dict[str, Any], request: Request, *, permutation: str, epoch: int) -> str:
    return sha256_json(
        {
            "model": identity,
            "messages": [m.describe() for m in request.messages],
            "permutation": permutation,
            "epoch": epoch,
        }
    )


@dataclass
class CacheCounts:
    hits: int = 0
    misses: int = 0
    stored: int = 0
    skipped: int = 0  # requests not cached: the model is not deterministic

    def as_dict(self, folder: Path) -> dict[str, Any]:
        looked = self.hits + self.misses
        return {
            "dir": str(folder),
            "hits": self.hits,
            "misses": self.misses,
            "stored": self.stored,
            "not_deterministic": self.skipped,
            "hit_rate": round(self.hits / looked, 6) if looked else None,
        }


class ResponseCache:
    """One cache folder; several runs may use it at once (SQLite WAL, a 30 s busy timeout)."""

    def __init__(self, folder: str | Path, *, readonly: bool = False):
        self.folder = Path(folder)
        path = self.folder / CACHE_FILE
        if readonly:
            if not path.is_file():
                raise FileNotFoundError(f"{self.folder}: no response cache here ({CACHE_FILE} missing)")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, isolation_level=None, timeout=30.0, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        self.counts = CacheCounts()

    def close(self) -> None:
        self.db.close()

    def get(self, key: str) -> Generation | None:
        row = self.db.execute(
            "SELECT raw, reasoning, prompt_tokens, completion_tokens, reasoning_tokens, finish_reason, "
            "served_model FROM entries WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            self.counts.misses += 1
            return None
        self.counts.hits += 1
        self.db.execute("UPDATE entries SET hits = hits + 1, used_at = ? WHERE key = ?", (time.time(), key))
        return Generation(
            text=row[0],
            reasoning=row[1],
            prompt_tokens=row[2],
            completion_tokens=row[3],
            reasoning_tokens=row[4],
            finish_reason=row[5],
            served_model=row[6],
        )

    def put(self, key: str, model: str, gen: Generation) -> None:
        now = time.time()
        self.db.execute(
            "INSERT OR IGNORE INTO entries (key, model, raw, reasoning, prompt_tokens, completion_tokens, "
            "reasoning_tokens, finish_reason, served_model, created_at, used_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                model,
                gen.text,
                gen.reasoning,
                gen.prompt_tokens,
                gen.completion_tokens,
                gen.reasoning_tokens,
                gen.finish_reason,
                gen.served_model,
                now,
                now,
            ),
        )
        self.counts.stored += 1

    def stats(self) -> dict[str, Any]:
        """Entries, lifetime hits and file size, per model."""
        models = {
            r[0]: {"entries": r[1], "hits": r[2]}
            for r in self.db.execute(
                "SELECT model, COUNT(*), SUM(hits) FROM entries GROUP BY model ORDER BY model"
            )
        }
        size = sum(p.stat().st_size for p in self.folder.glob(CACHE_FILE + "*"))
        return {
            "dir": str(self.folder),
            "entries": sum(m["entries"] for m in models.values()),
            "hits": sum(m["hits"] for m in models.values()),
            "bytes": size,
            "models": models,
        }

    def prune(self, *, older_than_days: float | None = None, model: str | None = None) -> int:
        """Delete entries last used more than ``older_than_days`` ago and/or of ``model``; returns how many."""
        if older_than_days is None and model is None:
            raise ValueError("cache prune: pass --older-than DAYS and/or --model NAME (what to delete)")
        where, args = [], []
        if older_than_days is not None:
            where.append("used_at < ?")
            args.append(time.time() - older_than_days * 86400.0)
        if model is not None:
            where.append("model = ?")
            args.append(model)
        cur = self.db.execute(f"DELETE FROM entries WHERE {' AND '.join(where)}", args)
        self.db.execute("VACUUM")
        return cur.rowcount


def open_optional_cache(folder: str | Path | None, say: Callable[[str], None]) -> ResponseCache | None:
    """The cache of ``folder``, or None (and a warning naming it) when it cannot be used — damaged, not
    SQLite, or on a read-only disk: the cache only saves calls, so the run goes on without it."""
    if folder is None:
        return None
    path = Path(folder) / CACHE_FILE
    try:
        cache = ResponseCache(folder)
        cache.db.execute("SELECT COUNT(*) FROM entries").fetchone()
        return cache
    except (sqlite3.Error, OSError) as exc:
        say(
            f"warning: the response cache {path} cannot be used ({exc}); going on without it — move it "
            f"away (or give another --cache DIR) to start a fresh one"
        )
        return None
