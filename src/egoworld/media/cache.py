"""The decoded-frame cache: a content-addressed SQLite store (WAL mode) shared by runs, models and processes.

Keys are sha256 over (video content hash, frame index, preprocessing, versions), so an entry is valid
wherever the same video bytes are used, whatever the path. Values are the encoded bytes (lossless PNG, or a
byte-exact copy of an image file) with their own sha256, which request keys use. Alongside: each video file's
sha256 (memoised by path, size and mtime, so a file is hashed once) and its frame table.

Concurrency: each write is one short transaction; WAL lets readers run beside a writer and a busy timeout
makes writers from other processes wait instead of failing. Two workers that make the same entry at once
both succeed (``INSERT OR IGNORE``: the bytes are the same). Size: a running total is kept in the same
transaction as each insert; past the cap the least recently used entries are deleted down to 90 % of it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from egoworld.core.folders.hashing import sha256_file
from egoworld.media.counters import STATS

CACHE_ENV = "EGOWORLD_CACHE"
CAP_ENV = "EGOWORLD_MEDIA_CACHE_GB"
DEFAULT_CAP_GB = 10.0
DB_NAME = "frames.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blobs (
    key TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    mime TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS blobs_used ON blobs (used);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS indexes (sha256 TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
INSERT OR IGNORE INTO meta (k, v) VALUES ('total_bytes', 0);
"""


def default_cache_dir() -> Path:
    """``$EGOWORLD_CACHE/media``, else ``$XDG_CACHE_HOME/egoworld/media``, else ``~/.cache/egoworld/media``."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root) / "media"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "egoworld" / "media"


def default_cap_bytes() -> int:
    raw = os.environ.get(CAP_ENV)
    try:
        gb = float(raw) if raw else DEFAULT_CAP_GB
    except ValueError as exc:
        raise ValueError(f"{CAP_ENV}={raw!r}: expected a size in GB, e.g. {CAP_ENV}=20") from exc
    return int(gb * 1024**3)


class FrameCache:
    """Encoded frames and video metadata in ``DIR/frames.sqlite``; one connection guarded by a lock."""

    def __init__(self, root: str | Path | None = None, *, max_bytes: int | None = None):
        self.root = Path(root) if root is not None else default_cache_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        self.path = self.root / DB_NAME
        self.max_bytes = max_bytes if max_bytes is not None else default_cap_bytes()
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        with self._lock:
            self._db.executescript(_SCHEMA)  # idempotent; executescript runs its own transaction

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection (caller holds the lock); reopened after `close` so late loads still work."""
        if self._conn is None:
            db = sqlite3.connect(self.path, timeout=120.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout=120000")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._conn = db
        return self._conn

    # -- plumbing -----------------------------------------------------------------------------------------
    def _write(self, fn: Any) -> Any:
        """Run ``fn(db)`` in one IMMEDIATE transaction (caller holds the lock)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            out = fn(self._db)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return out

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- blobs --------------------------------------------------------------------------------------------
    def lookup(self, keys: list[str]) -> dict[str, tuple[str, str, int]]:
        """``{key: (sha256, mime, size in bytes)}`` for the keys present; marks them used."""
        found: dict[str, tuple[str, str, int]] = {}
        if not keys:
            return found
        now = time.time()
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, sha256, mime, size FROM blobs WHERE key IN ({marks})", chunk
                )
                found.update({k: (s, m, n) for k, s, m, n in rows})
            hit = list(found)
            if hit:

                def touch(db: sqlite3.Connection) -> None:
                    for start in range(0, len(hit), 500):
                        chunk = hit[start : start + 500]
                        marks = ",".join("?" * len(chunk))
                        db.execute(f"UPDATE blobs SET used = ? WHERE key IN ({marks})", [now, *chunk])

                self._write(touch)
        return found

    def get(self, key: str) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT data FROM blobs WHERE key = ?", (key,)).fetchone()
        return bytes(row[0]) if row else None

    def put(self, key: str, data: bytes, mime: str) -> str:
        """Store ``data`` under ``key`` (a no-op when present); returns the sha256 of the bytes."""
        digest = hashlib.sha256(data).hexdigest()
        size = len(data)

        def insert(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT OR IGNORE INTO blobs (key, sha256, mime, size, data, used) VALUES (?, ?, ?, ?, ?, ?)",
                (key, digest, mime, size, sqlite3.Binary(data), time.time()),
            )
            if cur.rowcount == 1:
                db.execute("UPDATE meta SET v = v + ? WHERE k = 'total_bytes'", (size,))
            return db.execute("SELECT v FROM meta WHERE k = 'total_bytes'").fetchone()[0]

        with self._lock:
            total = self._write(insert)
            if total > self.max_bytes:
                self._evict()
        return digest

    def _evict(self) -> None:
        """Delete least recently used entries until the total is at most 90 % of the cap (lock held)."""
        goal = int(self.max_bytes * 0.9)

        def evict(db: sqlite3.Connection) -> int:
            total = db.execute("SELECT v FROM meta WHERE k = 'total_bytes'").fetchone()[0]
            removed = 0
            while total > goal:
                rows = db.execute("SELECT key, size FROM blobs ORDER BY used LIMIT 256").fetchall()
                if not rows:
                    break
                for key, size in rows:
                    if total <= goal:
                        break
                    db.execute("DELETE FROM blobs WHERE key = ?", (key,))
                    total -= size
                    removed += 1
            db.execute("UPDATE meta SET v = ? WHERE k = 'total_bytes'", (max(0, total),))
            return removed

        STATS.add(cache_evicted=self._write(evict))

    def usage(self) -> dict[str, int]:
        """Entries and bytes held (the running total, and the cap)."""
        with self._lock:
            n = self._db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
            total = self._db.execute("SELECT v FROM meta WHERE k = 'total_bytes'").fetchone()[0]
        return {"entries": n, "bytes": total, "max_bytes": self.max_bytes}

    def clear(self) -> None:
        with self._lock:
            self._write(lambda db: (db.execute("DELETE FROM blobs"), db.execute("UPDATE meta SET v = 0")))

    # -- video metadata ------------------------------------------------------------------------------------
    def file_sha256(self, path: str | Path) -> str:
        """sha256 of a file's content, computed once per (path, size, mtime)."""
        path = Path(path).resolve()
        st = path.stat()
        with self._lock:
            row = self._db.execute(
                "SELECT sha256 FROM files WHERE path = ? AND size = ? AND mtime_ns = ?",
                (str(path), st.st_size, st.st_mtime_ns),
            ).fetchone()
        if row:
            return row[0]
        digest = sha256_file(path)
        with self._lock:
            self._write(
                lambda db: db.execute(
                    "INSERT OR REPLACE INTO files (path, size, mtime_ns, sha256) VALUES (?, ?, ?, ?)",
                    (str(path), st.st_size, st.st_mtime_ns, digest),
                )
            )
        return digest

    def get_index(self, sha: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT data FROM indexes WHERE sha256 = ?", (sha,)).fetchone()
        return json.loads(row[0]) if row else None

    def put_index(self, sha: str, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock:
            self._write(
                lambda db: db.execute(
                    "INSERT OR REPLACE INTO indexes (sha256, data) VALUES (?, ?)", (sha, text)
                )
            )
