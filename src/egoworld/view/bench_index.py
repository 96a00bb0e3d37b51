"""The viewer's index of a benchmark folder: one SQLite file per folder (beside the run indexes, in
``$EGOWORLD_CACHE/view``) holding the columns the sample list filters and sorts on (task, video, question,
trajectory, group values) and each sample itself (compressed JSON, parsed only when a page shows it).

Its key is the sha256 of ``manifest.json`` and of ``samples.jsonl`` (with the index and egoworld versions),
hashed again at every open: any edit, even one that keeps the file's size and modification time, rebuilds
it, so a stale index is never served. A build loads the folder whole once (`load_benchmark`: every check it
makes) and writes the index to a temporary file that replaces the old one in one step.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.core.folders.bench_folder import MANIFEST, Benchmark, load_benchmark
from egoworld.core.folders.confine import MediaRoots
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.schema import Manifest, Sample
from egoworld.view.run_index import index_dir

INDEX_VERSION = "2"
#: metadata keys that group questions (filters of the sample list, when a benchmark has them)
GROUP_KEYS = ("duration_group", "horizon_bucket", "query_bucket", "partition", "order_by", "option_set")
#: parsed samples kept per open index (a sample page and its neighbours, a list page)
_CACHED = 4096
_SCHEMA = """
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE samples (
  ord INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, video TEXT NOT NULL,
  qlow TEXT NOT NULL, idlow TEXT NOT NULL, traj TEXT, step INTEGER, doubt REAL, doc BLOB NOT NULL
);
CREATE TABLE groups (ord INTEGER NOT NULL, key TEXT NOT NULL, value TEXT);  -- NULL: the value None
"""
_INDEXES = """
CREATE INDEX samples_task ON samples (task);
CREATE INDEX samples_video ON samples (video);
CREATE INDEX samples_traj ON samples (traj, step);
CREATE INDEX samples_doubt ON samples (doubt);
CREATE INDEX groups_kv ON groups (key, value, ord);
"""


def bench_index_path(root: Path) -> Path:
    digest = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:20]
    return index_dir() / f"bench-{digest}.sqlite"


def folder_key(root: Path, manifest: Manifest) -> str:
    """What an index was built from: the versions and the sha256 of ``manifest.json`` and the samples file."""
    samples = Path(root) / manifest.samples_file
    if not samples.is_file():
        raise InputFileError(f"{samples}: not found — the benchmark's manifest names it as its samples file")
    return ":".join((INDEX_VERSION, __version__, sha256_file(Path(root) / MANIFEST), sha256_file(samples)))


def open_benchmark(root: Path) -> IndexedBenchmark:
    """The benchmark folder at ``root`` over its index: reused when its key still matches the files, else
    built (the folder loaded and checked whole, as `load_benchmark` does); ``built`` says which."""
    from egoworld.core.folders.bench_folder import FOLDER

    root = Path(root)
    manifest = FOLDER.read_header(root, Manifest)
    key = folder_key(root, manifest)
    path = bench_index_path(root)
    if _stored_key(path) == key:
        return IndexedBenchmark(root, manifest, path, built=False)
    bench = load_benchmark(root)
    if folder_key(root, bench.manifest) != key:  # edited while it was read: nothing is cached
        raise InputFileError(
            f"{root}: its files changed while the viewer read them (a build or import still writing?); "
            "open it again when that is done"
        )
    _write(path, bench, key)
    return IndexedBenchmark(root, bench.manifest, path, built=True, loaded=bench.samples)


def _stored_key(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT v FROM meta WHERE k = 'key'").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError:  # a damaged or foreign file: rebuilt
        return None
    return None if row is None else str(row[0])


def _doubt(s: Sample) -> float | None:
    """The sample's ``metadata["doubt"]`` (0 sure … 1 doubtful) where it is a number, else None."""
    got = s.metadata.get("doubt")
    return float(got) if isinstance(got, int | float) and not isinstance(got, bool) else None


#: the doubt order: most doubtful first, samples without a doubt last, then file order
DOUBT_ORDER = "doubt IS NULL, doubt DESC, ord"


def _write(path: Path, bench: Benchmark, key: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        db.executescript(_SCHEMA)
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO samples (ord, id, task, video, qlow, idlow, traj, step, doubt, doc) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    k,
                    s.id,
                    s.task,
                    s.cluster_id,
                    s.question.lower(),  # what the sample list's text search looks in
                    s.id.lower(),
                    s.trajectory.id if s.trajectory else None,
                    s.trajectory.step if s.trajectory else None,
                    _doubt(s),
                    zlib.compress(s.model_dump_json().encode(), 1),
                )
                for k, s in enumerate(bench.samples)
            ),
        )
        db.executemany(
            "INSERT INTO groups (ord, key, value) VALUES (?, ?, ?)",
            (
                (k, g, None if s.metadata[g] is None else str(s.metadata[g]))
                for k, s in enumerate(bench.samples)
                for g in GROUP_KEYS
                if g in s.metadata
            ),
        )
        for statement in _INDEXES.strip().splitlines():
            db.execute(statement)
        db.execute("INSERT INTO meta (k, v) VALUES ('key', ?)", (key,))
        db.execute("COMMIT")
    finally:
        db.close()
    os.replace(tmp, path)


class IndexedBenchmark(Benchmark):
    """A `Benchmark` whose samples stay in its index until asked for: `sample` parses one, ``samples``
    all (once); `select` runs the sample list's queries over the index's columns."""

    def __init__(
        self,
        root: Path,
        manifest: Manifest,
        path: Path,
        *,
        built: bool,
        loaded: list[Sample] | None = None,
    ):
        self.root = Path(root)
        self.manifest = manifest
        self._media = MediaRoots(self.root, manifest.media_roots)
        self.path = path
        self.built = built
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._db = self._connect()
        self._all = loaded
        self._by_id = {s.id: s for s in loaded} if loaded is not None else {}
        (self.count,) = self.select("SELECT COUNT(*) FROM samples")[0]

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)

    def select(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read-only query over the index (tables ``samples`` and ``groups``)."""
        with self._lock:
            if os.getpid() != self._pid:  # a forked worker (report pages): its own connection
                self._pid, self._db = os.getpid(), self._connect()
            return self._db.execute(sql, tuple(params)).fetchall()

    @property  # type: ignore[override]
    def samples(self) -> list[Sample]:
        """Every sample in file order (parsed from the index on first use; pages use `sample`)."""
        if self._all is None:
            docs = self.select("SELECT doc FROM samples ORDER BY ord")
            self._all = [Sample.model_validate_json(zlib.decompress(d)) for (d,) in docs]
            self._by_id = {s.id: s for s in self._all}
        return self._all

    def sample(self, sample_id: str) -> Sample:
        got = self._by_id.get(sample_id)
        if got is not None:
            return got
        rows = self.select("SELECT doc FROM samples WHERE id = ?", (sample_id,))
        if not rows:
            raise KeyError(sample_id)
        s = Sample.model_validate_json(zlib.decompress(rows[0][0]))
        if self._all is None:
            if len(self._by_id) >= _CACHED:
                self._by_id.pop(next(iter(self._by_id)))
            self._by_id[sample_id] = s
        return s

    def samples_at(self, ords: Sequence[int]) -> list[Sample]:
        """The samples at these positions of the file (in the order given)."""
        if not ords:
            return []
        marks = ",".join("?" * len(ords))
        by_ord = {
            k: Sample.model_validate_json(zlib.decompress(d))
            for k, d in self.select(f"SELECT ord, doc FROM samples WHERE ord IN ({marks})", ords)
        }
        return [by_ord[k] for k in ords]

    def ids(self) -> Iterator[tuple[int, str, str, str]]:
        """(position, id, task, video) of every sample, in file order."""
        yield from self.select("SELECT ord, id, task, video FROM samples ORDER BY ord")

    def videos(self) -> list[str]:
        return [v for (v,) in self.select("SELECT DISTINCT video FROM samples ORDER BY video")]

    def groups(self) -> dict[str, list[str]]:
        """Metadata groups present: key → sorted values (None values are no group)."""
        out: dict[str, list[str]] = {}
        rows = self.select(
            "SELECT DISTINCT key, value FROM groups WHERE value IS NOT NULL ORDER BY key, value"
        )
        for key, value in rows:
            out.setdefault(key, []).append(value)
        return {k: out[k] for k in GROUP_KEYS if k in out}

    def neighbours(self, sample_id: str, by_doubt: bool = False) -> tuple[str | None, str | None]:
        """The ids before and after ``sample_id`` in file order (``by_doubt``: in the doubt order)."""
        if not by_doubt:
            prev = self.select(
                "SELECT id FROM samples WHERE ord < (SELECT ord FROM samples WHERE id = ?) ORDER BY ord DESC LIMIT 1",
                (sample_id,),
            )
            nxt = self.select(
                "SELECT id FROM samples WHERE ord > (SELECT ord FROM samples WHERE id = ?) ORDER BY ord LIMIT 1",
                (sample_id,),
            )
            return (prev[0][0] if prev else None), (nxt[0][0] if nxt else None)
        ids = [sid for (sid,) in self.select(f"SELECT id FROM samples ORDER BY {DOUBT_ORDER}")]
        k = ids.index(sample_id)
        return (ids[k - 1] if k else None), (ids[k + 1] if k + 1 < len(ids) else None)

    def has_doubt(self) -> bool:
        """Whether any sample carries a doubt (``metadata["doubt"]``)."""
        return bool(self.select("SELECT 1 FROM samples WHERE doubt IS NOT NULL LIMIT 1"))

    def trajectory_ids(self, trajectory_id: str) -> list[str]:
        """The ids of a trajectory's steps, by step (then id)."""
        rows = self.select("SELECT id FROM samples WHERE traj = ? ORDER BY step, id", (trajectory_id,))
        return [sid for (sid,) in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
