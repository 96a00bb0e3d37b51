"""The response store: an append-only, crash-safe SQLite file (WAL mode) keyed by request hash.

Tables
  responses  one row per request key: raw output or error, latency, tokens. An ``ok`` row is never
             overwritten; an ``error`` row is replaced when the request is retried.
  requests   the request as sent (text, image hashes, frame indices; zlib-compressed JSON), for inspection.
  request_blocks  the media part of a message (its parts before the closing text: 128 frame descriptions),
             stored once by hash and named by the requests that share it (a question's 24 option orders).
  plan       (sample, permutation, epoch) → request key for the latest run command; scoring reads it.
  meta       key/value (the run manifest's digest, schema version).

Each write is its own committed transaction, so a killed run loses at most the requests in flight — or, inside
`ResponseStore.grouped` (a run's many small writes), the writes of its last fraction of a second.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sqlite3
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError
from egoworld.core.process.secrets import redact

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    sample_id TEXT NOT NULL,
    permutation TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    raw TEXT,
    reasoning TEXT,
    error TEXT,
    latency_s REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    reasoning_tokens INTEGER,
    finish_reason TEXT,
    served_model TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    key TEXT PRIMARY KEY,
    request BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS plan (
    sample_id TEXT NOT NULL,
    permutation TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (sample_id, permutation, epoch)
);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS request_blocks (
    hash TEXT PRIMARY KEY,
    block BLOB NOT NULL
);
"""


_TABLES = ("responses", "requests", "plan", "meta")
_PLANS_HELD = 10_000  # plan rows a group holds back at most (a resume plans without other writes)
_PLAN_ROW = "INSERT OR REPLACE INTO plan (sample_id, permutation, epoch, key) VALUES (?, ?, ?, ?)"
_BLOCK_MEMO = 256  # blocks remembered per store: a run sends a sample's option orders together
_SQLITE_HEADER = b"SQLite format 3\x00"


class DamagedStoreError(InputFileError):
    """A response store that cannot be read: the message names the file, what is wrong and how to recover."""


def damaged_message(path: Path, what: str) -> str:
    return (
        f"{path}: the response store is damaged ({what}). Recover: move it aside "
        f"(`mv {path} {path}.damaged`) and rerun the same `egoworld run` command — it starts that run "
        "over (every request is sent again); or restore the file from a backup"
    )


def check_store_file(path: Path, *, must_exist: bool, allow_empty: bool = False) -> None:
    """The store-opening check: the file is missing or empty only where allowed, and starts like SQLite."""
    if path.is_dir():
        raise DamagedStoreError(f"{path}: is a folder, expected the run's SQLite response store")
    if not path.exists():
        if must_exist:
            raise DamagedStoreError(
                f"{path}: no response store here (run `egoworld run … --out {path.parent}` first)"
            )
        return
    with path.open("rb") as fh:
        head = fh.read(len(_SQLITE_HEADER))
    if not head and allow_empty:
        return  # created but never written (e.g. killed at once): SQLite sets it up as a new store
    if not head:
        raise DamagedStoreError(damaged_message(path, "the file is empty (0 bytes)"))
    if head != _SQLITE_HEADER:
        raise DamagedStoreError(damaged_message(path, "not an SQLite database, or its header is truncated"))


@dataclass(frozen=True)
class ResponseRow:
    key: str
    sample_id: str
    permutation: str
    epoch: int
    status: str
    raw: str | None
    reasoning: str | None
    error: str | None
    latency_s: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    served_model: str | None
    attempts: int
    reasoning_tokens: int | None = None


_ROW_FIELDS = tuple(ResponseRow.__dataclass_fields__)  # the responses columns, in `ResponseRow`'s order


class ResponseStore:
    """SQLite response store. One writer process at a time; readers may open it concurrently."""

    def __init__(
        self, path: str | Path, *, readonly: bool = False, expect_data: bool = False, threads: bool = False
    ):
        """Open (or create) the store; ``expect_data``: the run's manifest records stored responses, so an
        empty file means the store was emptied (a 0-byte file is otherwise a store not yet written);
        ``threads``: a read-only store that several threads use in turn (the caller serialises them)."""
        self.path = Path(path)
        check_store_file(self.path, must_exist=readonly, allow_empty=not (readonly or expect_data))
        try:
            if readonly:
                self.db = sqlite3.connect(
                    f"file:{self.path}?mode=ro", uri=True, check_same_thread=not threads
                )
                missing = set(_TABLES) - {
                    r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                }
                if missing:
                    raise sqlite3.DatabaseError(f"tables {sorted(missing)} are missing")
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(_SCHEMA)
                _add_missing_columns(self.db)
                self.db.execute(
                    "INSERT OR IGNORE INTO meta (k, v) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                )
            bad = self.db.execute("PRAGMA quick_check").fetchone()[0]
            if bad != "ok":
                raise sqlite3.DatabaseError(bad)
        except sqlite3.DatabaseError as exc:
            if "disk is full" in str(exc) or "disk I/O" in str(exc):
                raise
            raise DamagedStoreError(damaged_message(self.path, str(exc))) from None
        self.db.row_factory = sqlite3.Row
        #: media blocks written by this store (their pickle → hash), the most recent `_BLOCK_MEMO`
        self._blocks: OrderedDict[bytes, str] = OrderedDict()
        self._group: float | None = None  # seconds a group of writes may stay uncommitted (`grouped`)
        self._group_began: float | None = None  # when the open group began (None: none open)
        self._plans: list[tuple[str, str, int, str]] = []  # plan rows the open group holds back

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ResponseStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ------------------------------------------------------------------------------------------
    def put(
        self,
        *,
        key: str,
        sample_id: str,
        permutation: str,
        epoch: int,
        status: str,
        raw: str | None = None,
        reasoning: str | None = None,
        error: str | None = None,
        latency_s: float | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        finish_reason: str | None = None,
        served_model: str | None = None,
        reasoning_tokens: int | None = None,
    ) -> None:
        """Insert a response; replaces an earlier ``error`` row for the key, never an ``ok`` one.

        Secrets (API keys a server echoed back) are redacted from the text before it is stored.
        """
        raw, reasoning, error = redact(raw), redact(reasoning), redact(error)
        now = time.time()
        self._write(
            """
            INSERT INTO responses (key, sample_id, permutation, epoch, status, raw, reasoning, error, latency_s,
                                   prompt_tokens, completion_tokens, finish_reason, served_model, attempts,
                                   created_at, updated_at, reasoning_tokens)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET
                status = excluded.status, raw = excluded.raw, reasoning = excluded.reasoning,
                error = excluded.error, latency_s = excluded.latency_s, prompt_tokens = excluded.prompt_tokens,
                completion_tokens = excluded.completion_tokens, finish_reason = excluded.finish_reason,
                served_model = excluded.served_model, attempts = responses.attempts + 1,
                reasoning_tokens = excluded.reasoning_tokens,
                updated_at = excluded.updated_at
            WHERE responses.status != 'ok'
            """,
            (
                key,
                sample_id,
                permutation,
                epoch,
                status,
                raw,
                reasoning,
                error,
                latency_s,
                prompt_tokens,
                completion_tokens,
                finish_reason,
                served_model,
                now,
                now,
                reasoning_tokens,
            ),
        )

    def put_request(self, key: str, request: dict[str, Any]) -> None:
        """Record the request as sent (its first sending: a retry keeps that row); each message's media block
        is stored once (`request_blocks`)."""
        messages = request.get("messages")
        if isinstance(messages, list):
            request = {**request, "messages": [self._shared_block(m) for m in messages]}
        self._write("INSERT OR IGNORE INTO requests (key, request) VALUES (?, ?)", (key, _pack(request)))

    def _shared_block(self, message: Any) -> Any:
        """``message`` with its parts before the closing text parts replaced by a block hash, when they hold
        media; the block is written once, and packed and hashed once per store (`_block_digest`)."""
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return message
        cut = len(content)
        while cut > 0 and isinstance(content[cut - 1], dict) and content[cut - 1].get("type") == "text":
            cut -= 1
        block = content[:cut]
        if not any(isinstance(p, dict) and p.get("type") != "text" for p in block):
            return message
        return {**message, "content": content[cut:], "content_block": self._block_digest(block)}

    def _block_digest(self, block: list[Any]) -> str:
        """The hash of ``block``, written to `request_blocks` the first time. A question's option orders
        carry the same block: it is recognised by its pickle (exact, types included: equal pickles load as
        equal values, so they give the same JSON) at a twentieth of the cost of packing and hashing it."""
        try:
            seen = pickle.dumps(block, protocol=5)
        except (pickle.PicklingError, TypeError, AttributeError):
            seen = None  # not picklable: packed as before (it fails in `_pack` if it is not JSON either)
        if seen is not None and (digest := self._blocks.get(seen)) is not None:
            self._blocks.move_to_end(seen)
            return digest
        packed = _pack(block)
        digest = hashlib.sha256(packed).hexdigest()
        self._write("INSERT OR IGNORE INTO request_blocks (hash, block) VALUES (?, ?)", (digest, packed))
        if seen is not None:
            self._blocks[seen] = digest
            while len(self._blocks) > _BLOCK_MEMO:
                self._blocks.popitem(last=False)
        return digest

    def reset_plan(self) -> None:
        self._plans.clear()
        self._write("DELETE FROM plan")

    def plan(self, sample_id: str, permutation: str, epoch: int, key: str) -> None:
        """Plan a request; inside `grouped` the rows are written together when the group commits."""
        if self._group is None:
            self._write(_PLAN_ROW, (sample_id, permutation, epoch, key))
        else:
            self._plans.append((sample_id, permutation, epoch, key))
            if len(self._plans) >= _PLANS_HELD:
                self._commit_group()

    def plan_many(self, rows: list[tuple[str, str, int, str]]) -> None:
        with self.transaction():
            self.db.executemany(_PLAN_ROW, rows)

    def set_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)", (key, value))

    def transaction(self) -> sqlite3.Connection:
        """``with store.transaction():`` groups writes into one commit."""
        self._commit_group()
        return _Tx(self.db, self._blocks.clear)  # type: ignore[return-value]

    @contextmanager
    def grouped(self, seconds: float) -> Iterator[None]:
        """Commit the writes of this block together, one commit per ``seconds`` and one at its end (each
        commit of a small write costs more than the write): a crash loses at most the last ``seconds``."""
        self._group = seconds
        try:
            yield
        finally:
            self._group = None
            self._commit_group()

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        """One write: committed at once, or in the open group of writes (`grouped`)."""
        if self._group is not None and not self.db.in_transaction:
            self.db.execute("BEGIN")
            self._group_began = time.monotonic()
        self.db.execute(sql, params)
        if self._group_began is not None and time.monotonic() - self._group_began >= (self._group or 0.0):
            self._commit_group()

    def _commit_group(self) -> None:
        """Commit the open group of writes, the plan rows it holds back first."""
        if self._plans:
            rows, self._plans = self._plans, []
            if self._group_began is None and not self.db.in_transaction:
                self.db.execute("BEGIN")
                self._group_began = time.monotonic()
            self.db.executemany(_PLAN_ROW, rows)
        if self._group_began is not None:
            self._group_began = None
            self.db.execute("COMMIT")

    # -- reading ------------------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def status_of(self, keys: list[str]) -> dict[str, str]:
        """Status of each key that has a row (keys without a row are absent)."""
        out: dict[str, str] = {}
        for i in range(0, len(keys), 900):
            chunk = keys[i : i + 900]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT key, status FROM responses WHERE key IN ({marks})", chunk):
                out[row[0]] = row[1]
        return out

    def is_ok(self, key: str) -> bool:
        """True when ``key`` has an ``ok`` row (one indexed look-up: a run keeps no set of done keys)."""
        row = self.db.execute("SELECT 1 FROM responses WHERE key = ? AND status = 'ok'", (key,)).fetchone()
        return row is not None

    def ok_keys(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT key FROM responses WHERE status = 'ok'")}

    def get(self, key: str) -> ResponseRow | None:
        row = self.db.execute("SELECT * FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else _row(row)

    def planned(self) -> Iterator[tuple[str, str, int, str, ResponseRow | None]]:
        """(sample, permutation, epoch, key, response or None) for every planned request."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(responses)")}  # (older stores lack some)
        columns = ", ".join(f"r.{f}" if f in have else "NULL" for f in _ROW_FIELDS)
        cur = self.db.execute(
            f"SELECT p.sample_id, p.permutation, p.epoch, p.key, {columns} "
            "FROM plan p LEFT JOIN responses r ON r.key = p.key"
        )
        cur.row_factory = None  # (rows by position: a tenth of the cost of named look-ups)
        for row in cur:
            yield row[0], row[1], row[2], row[3], None if row[8] is None else ResponseRow(*row[4:])

    def request(self, key: str) -> dict[str, Any] | None:
        """The request as sent (each message's shared media block put back in front of its text)."""
        row = self.db.execute("SELECT request FROM requests WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        request: dict[str, Any] = json.loads(zlib.decompress(row[0]))
        messages = request.get("messages")
        if isinstance(messages, list) and any(isinstance(m, dict) and "content_block" in m for m in messages):
            request["messages"] = [self._whole_message(m) for m in messages]
        return request

    def _whole_message(self, message: Any) -> Any:
        if not isinstance(message, dict) or "content_block" not in message:
            return message
        whole = {k: v for k, v in message.items() if k != "content_block"}
        got = self.db.execute(
            "SELECT block FROM request_blocks WHERE hash = ?", (message["content_block"],)
        ).fetchone()
        if got is None:
            raise DamagedStoreError(
                damaged_message(self.path, f"request block {message['content_block'][:12]}… is missing")
            )
        whole["content"] = [*json.loads(zlib.decompress(got[0])), *message.get("content", [])]
        return whole

    def plan_done(self) -> tuple[int, int]:
        """Planned requests, and how many of them have an ok reply."""
        row = self.db.execute(
            "SELECT COUNT(*), COUNT(r.key) FROM plan p LEFT JOIN responses r ON r.key = p.key AND r.status = 'ok'"
        ).fetchone()
        return row[0], row[1]

    def planned_key(self, sample_id: str, permutation: str, epoch: int) -> str | None:
        """The request key the plan holds for (sample, permutation, epoch), if any."""
        row = self.db.execute(
            "SELECT key FROM plan WHERE sample_id = ? AND permutation = ? AND epoch = ?",
            (sample_id, permutation, epoch),
        ).fetchone()
        return None if row is None else row[0]

    def planned_tokens(self) -> tuple[int, dict[str, tuple[int, int]]]:
        """The ok replies of the planned requests: how many, and per token kind (``prompt``, ``completion``,
        ``reasoning``) their sum and how many of them report it."""
        row = self.db.execute(
            "SELECT COUNT(*), SUM(r.prompt_tokens), COUNT(r.prompt_tokens), SUM(r.completion_tokens), "
            "COUNT(r.completion_tokens), SUM(r.reasoning_tokens), COUNT(r.reasoning_tokens) "
            "FROM plan p JOIN responses r ON r.key = p.key WHERE r.status = 'ok'"
        ).fetchone()
        kinds = ("prompt", "completion", "reasoning")
        return row[0], {k: (row[1 + 2 * i] or 0, row[2 + 2 * i]) for i, k in enumerate(kinds)}

    def planned_errors(self) -> list[str]:
        """The error reason of every planned request whose latest attempt failed."""
        cur = self.db.execute(
            "SELECT r.error FROM plan p JOIN responses r ON r.key = p.key WHERE r.status = 'error'"
        )
        return [row[0] or "" for row in cur]

    def counts(self) -> dict[str, int]:
        out = {"ok": 0, "error": 0}
        for status, n in self.db.execute("SELECT status, COUNT(*) FROM responses GROUP BY status"):
            out[status] = n
        out["rows"] = out["ok"] + out["error"]
        out["planned"] = self.db.execute("SELECT COUNT(*) FROM plan").fetchone()[0]
        return out


class _Tx:
    def __init__(self, db: sqlite3.Connection, rolled_back: Callable[[], None]):
        self.db = db
        self.rolled_back = rolled_back  # forgets what the rollback took back (the blocks written in it)

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN")
        return self.db

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        if exc_type:
            self.rolled_back()


def _pack(value: Any) -> bytes:
    return zlib.compress(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8"))


def _row(row: sqlite3.Row) -> ResponseRow:
    return ResponseRow(
        key=row["key"],
        sample_id=row["sample_id"],
        permutation=row["permutation"],
        epoch=row["epoch"],
        status=row["status"],
        raw=row["raw"],
        reasoning=row["reasoning"],
        error=row["error"],
        latency_s=row["latency_s"],
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        finish_reason=row["finish_reason"],
        served_model=row["served_model"],
        attempts=row["attempts"],
        reasoning_tokens=row["reasoning_tokens"] if "reasoning_tokens" in row.keys() else None,  # noqa: SIM118
    )


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """Stores written before a column was added get it (NULL in old rows)."""
    have = {r[1] for r in db.execute("PRAGMA table_info(responses)")}
    if "reasoning_tokens" not in have:
        db.execute("ALTER TABLE responses ADD COLUMN reasoning_tokens INTEGER")
