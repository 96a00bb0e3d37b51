"""Human review of generated questions: an append-only SQLite log of accept / reject / flag decisions with
undo, and `filter_benchmark`, which writes the accepted questions as a new benchmark folder.

Rows are never updated or deleted: an undo is a row that names the decision it takes back. A question's
state is its latest decision that was not undone. A rejection may name its causes (``causes`` rows): world
fields from the question's provenance, each with the corrected value when the reviewer knows it, which
`egoworld world fix` applies (`egoworld.view.causes`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import load_benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import begin_write

DECISIONS = ("accept", "reject", "flag")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sample_id TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('accept', 'reject', 'flag', 'undo')),
    reason TEXT NOT NULL DEFAULT '',
    reviewer TEXT NOT NULL,
    undoes INTEGER REFERENCES decisions (id),
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS causes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    decision INTEGER NOT NULL REFERENCES decisions (id),
    ref TEXT NOT NULL,
    value TEXT,
    note TEXT NOT NULL DEFAULT ''
);
"""


def default_review_file(bench_dir: Path, reviewer: str) -> Path:
    return Path(bench_dir) / "reviews" / f"{reviewer}.sqlite"


class ReviewLog:
    """``decisions`` table of one review file; one connection, autocommit (each decision is durable)."""

    def __init__(self, path: str | Path, *, reviewer: str = "", bench_hash: str = "", readonly: bool = False):
        self.path = Path(path)
        self.reviewer = reviewer
        if readonly:
            if not self.path.is_file():
                raise InputFileError(
                    f"{self.path}: review file not found (made by `egoworld view --bench BENCH --review NAME`)"
                )
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(_SCHEMA)
            if bench_hash:
                old = self.meta("benchmark_hash")
                if old is not None and old != bench_hash:
                    raise InputFileError(
                        f"{self.path}: this review belongs to another version of the benchmark "
                        f"(hash {old[:12]}); use another --review name"
                    )
                self.db.execute(
                    "INSERT OR IGNORE INTO meta (k, v) VALUES ('benchmark_hash', ?)", (bench_hash,)
                )

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        self.db.close()

    def decide(
        self, sample_id: str, decision: str, reason: str = "", causes: Sequence[dict[str, Any]] = ()
    ) -> int:
        """Append a decision; a rejection's ``causes`` are ``{"ref": provenance row, "value"?: corrected}``."""
        if decision not in DECISIONS:
            raise ValueError(f"decision {decision!r}: expected one of {', '.join(DECISIONS)}")
        if causes and decision != "reject":
            raise ValueError("only a rejection names causes")
        self.db.execute("BEGIN")
        try:
            cur = self.db.execute(
                "INSERT INTO decisions (sample_id, decision, reason, reviewer, created_at) VALUES (?, ?, ?, ?, ?)",
                (sample_id, decision, reason.strip(), self.reviewer, time.time()),
            )
            rid = int(cur.lastrowid or 0)
            for c in causes:
                value = json.dumps(c["value"], sort_keys=True) if "value" in c else None
                self.db.execute(
                    "INSERT INTO causes (decision, ref, value, note) VALUES (?, ?, ?, ?)",
                    (rid, json.dumps(c["ref"], sort_keys=True), value, str(c.get("note", ""))),
                )
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return rid

    def causes(self) -> list[dict[str, Any]]:
        """The cause rows of the effective decisions (``id``, ``decision``, ``sample_id``, ``ref``, ``value``
        as stored text, ``note``), in log order; an older log without the table has none."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'causes'").fetchone():
            return []
        live = {d["id"]: sid for sid, d in self.current().items()}
        rows = self.db.execute("SELECT id, decision, ref, value, note FROM causes ORDER BY id").fetchall()
        return [
            {"id": r[0], "decision": r[1], "sample_id": live[r[1]], "ref": r[2], "value": r[3], "note": r[4]}
            for r in rows
            if r[1] in live
        ]

    def undo(self, sample_id: str) -> int | None:
        """Take back the sample's current decision; None when it has none."""
        current = self.current().get(sample_id)
        if current is None:
            return None
        cur = self.db.execute(
            "INSERT INTO decisions (sample_id, decision, reason, reviewer, undoes, created_at) "
            "VALUES (?, 'undo', '', ?, ?, ?)",
            (sample_id, self.reviewer, current["id"], time.time()),
        )
        return int(cur.lastrowid or 0)

    def current(self) -> dict[str, dict[str, Any]]:
        """sample id → its effective decision (``id``, ``decision``, ``reason``, ``reviewer``)."""
        rows = self.db.execute(
            "SELECT id, sample_id, decision, reason, reviewer, undoes FROM decisions ORDER BY id"
        ).fetchall()
        undone = {r[5] for r in rows if r[2] == "undo"}
        state: dict[str, dict[str, Any]] = {}
        stacks: dict[str, list[dict[str, Any]]] = {}
        for rid, sid, decision, reason, reviewer, _ in rows:
            if decision == "undo":
                continue
            stacks.setdefault(sid, []).append(
                {"id": rid, "decision": decision, "reason": reason, "reviewer": reviewer}
            )
        for sid, stack in stacks.items():
            live = [d for d in stack if d["id"] not in undone]
            if live:
                state[sid] = live[-1]
        return state

    def history(self, sample_id: str) -> list[dict[str, Any]]:
        causes: dict[int, list[str]] = {}
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'causes'").fetchone():
            for d, ref, value in self.db.execute("SELECT decision, ref, value FROM causes ORDER BY id"):
                r = json.loads(ref)
                fixed = "" if value is None else f" → {value}"
                causes.setdefault(d, []).append(f"{r.get('kind')} {r.get('id')} {r.get('field')}{fixed}")
        return [
            {
                "id": r[0],
                "decision": r[1],
                "reason": r[2],
                "reviewer": r[3],
                "undoes": r[4],
                "at": r[5],
                "causes": causes.get(r[0], []),
            }
            for r in self.db.execute(
                "SELECT id, decision, reason, reviewer, undoes, created_at FROM decisions WHERE sample_id = ? "
                "ORDER BY id",
                (sample_id,),
            )
        ]


def filter_benchmark(
    bench_dir: Path, review_file: Path, out: Path, *, keep_flagged: bool = False
) -> dict[str, int]:
    """Write the accepted questions of ``bench_dir`` (per ``review_file``) to ``out``; returns counts.

    A trajectory step whose earlier steps were not kept is dropped with them. The new manifest's ``source``
    records the review file, its sha256, the reviewers and the counts.
    """
    bench = load_benchmark(bench_dir)
    log = ReviewLog(review_file, readonly=True)
    try:
        recorded = log.meta("benchmark_hash")
        if recorded and recorded != bench.hash:
            raise InputFileError(
                f"{review_file}: made for another version of {bench_dir} (hash {recorded[:12]}, now {bench.hash[:12]})"
            )
        state = log.current()
        reviewers = sorted({d["reviewer"] for d in state.values()})
    finally:
        log.close()
    if Path(out).resolve() == Path(bench_dir).resolve():
        raise InputFileError(f"--out {out}: choose a new folder, not the benchmark being filtered")
    wanted = {"accept", "flag"} if keep_flagged else {"accept"}
    kept, dropped_deps = [], 0
    kept_ids: set[str] = set()
    for s in bench.samples:
        if state.get(s.id, {}).get("decision") not in wanted:
            continue
        if s.trajectory and any(d not in kept_ids for d in s.trajectory.depends_on):
            dropped_deps += 1
            continue
        kept.append(s)
        kept_ids.add(s.id)
    if not kept:
        raise InputFileError(f"{review_file}: no accepted questions — nothing to write")
    counts = Counter(d["decision"] for sid, d in state.items() if sid in bench._by_id)
    summary = {
        "kept": len(kept),
        "accepted": counts.get("accept", 0),
        "rejected": counts.get("reject", 0),
        "flagged": counts.get("flag", 0),
        "unreviewed": len(bench.samples) - sum(counts.values()),
        "dropped_dependencies": dropped_deps,
    }
    m = bench.manifest
    tasks = {t: info for t, info in m.tasks.items() if any(s.task == t for s in kept)}
    source = dict(m.source)
    source["review"] = {
        "benchmark": str(Path(bench_dir).name),
        "benchmark_hash": bench.hash,
        "file": Path(review_file).name,
        "sha256": sha256_file(review_file),
        "reviewers": reviewers,
        "keep_flagged": keep_flagged,
        **summary,
    }
    linked = _copy_media_links(bench.root, Path(out), kept)
    absolute = [r for r in m.media_roots if Path(r).is_absolute()]
    save_benchmark(
        out,
        name=m.name,
        tasks=tasks,
        samples=kept,
        builder=m.builder,
        seed=m.seed,
        source=source,
        description=m.description,
        version=m.version,
        media_roots=(*linked, *absolute),
    )
    return summary


def _copy_media_links(src: Path, out: Path, samples: list) -> list[str]:
    """Relative media paths of the kept questions point into the source folder: link its top-level media
    entries (videos/, images/ …) into ``out`` so the new folder reads the same files; returns the links
    (declared as the new folder's media roots)."""
    begin_write(out, "bench filter")
    tops: set[str] = set()
    for s in samples:
        paths = ([s.media.video.path] if s.media.video else []) + [i.path for i in s.media.images]
        for p in paths:
            if not Path(p).is_absolute():
                tops.add(Path(p).parts[0])
    for top in sorted(tops):
        target = out / top
        if not target.exists():
            target.symlink_to((src / top).resolve(), target_is_directory=(src / top).is_dir())
    return sorted(tops)
