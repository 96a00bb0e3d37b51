"""Human correction of an annotated scene: an append-only SQLite log of per-object and per-relation
accept / edit / delete / add with undo, its replay over ``scene.json``, and `apply_scene_log`, which writes
``corrected.json`` (``egoworld scene apply``).

Rows are never updated or deleted: an undo is a row naming the edit it takes back (the latest live one).
Relations are addressed by their text, so a replay never depends on list positions.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, write_json
from egoworld.core.folders.hashing import sha256_file
from egoworld.world.scene_file import (
    CORRECTED_FILE,
    SCENE_FILE,
    AnnotatedScene,
    load_scene,
    save_scene,
    scene_object,
)

OPS = ("accept", "edit", "delete", "add", "rel_accept", "rel_edit", "rel_delete", "rel_add")
FIELDS = ("category", "description", "key_state")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    object TEXT NOT NULL,
    op TEXT NOT NULL,
    value TEXT NOT NULL DEFAULT '{}',
    reviewer TEXT NOT NULL,
    undoes INTEGER REFERENCES edits (id),
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
"""


def default_scene_log(scene_dir: str | Path, reviewer: str) -> Path:
    return Path(scene_dir) / "reviews" / f"{reviewer}.sqlite"


class SceneLog:
    """The ``edits`` table of one scene review file (autocommit: each edit is durable)."""

    def __init__(self, path: str | Path, *, reviewer: str = "", scene_hash: str = "", readonly: bool = False):
        self.path = Path(path)
        self.reviewer = reviewer
        if readonly:
            if not self.path.is_file():
                raise InputFileError(
                    f"{self.path}: scene review file not found (made by `egoworld view --scene DIR --review NAME`)"
                )
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)
        if scene_hash:
            old = self.meta("scene_hash")
            if old is not None and old != scene_hash:
                raise InputFileError(
                    f"{self.path}: this review belongs to another version of the scene (hash {old[:12]}); "
                    "use another --review name"
                )
            self.db.execute("INSERT OR IGNORE INTO meta (k, v) VALUES ('scene_hash', ?)", (scene_hash,))

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        self.db.close()

    def add(self, obj: str, op: str, value: dict[str, Any] | None = None) -> int:
        if op not in OPS:
            raise ValueError(f"edit {op!r}: expected one of {', '.join(OPS)}")
        cur = self.db.execute(
            "INSERT INTO edits (object, op, value, reviewer, created_at) VALUES (?, ?, ?, ?, ?)",
            (obj, op, json.dumps(value or {}, sort_keys=True), self.reviewer, time.time()),
        )
        return int(cur.lastrowid or 0)

    def undo(self) -> int | None:
        """Take back the latest live edit; None when there is none."""
        live = self.live()
        if not live:
            return None
        cur = self.db.execute(
            "INSERT INTO edits (object, op, value, reviewer, undoes, created_at) VALUES (?, 'undo', '{}', ?, ?, ?)",
            (live[-1]["object"], self.reviewer, live[-1]["id"], time.time()),
        )
        return int(cur.lastrowid or 0)

    def live(self) -> list[dict[str, Any]]:
        """The edits not undone, in order."""
        rows = self.db.execute(
            "SELECT id, object, op, value, reviewer, undoes FROM edits ORDER BY id"
        ).fetchall()
        undone = {r[5] for r in rows if r[2] == "undo"}
        return [
            {"id": r[0], "object": r[1], "op": r[2], "value": json.loads(r[3]), "reviewer": r[4]}
            for r in rows
            if r[2] != "undo" and r[0] not in undone
        ]


def replay(scene: AnnotatedScene, edits: list[dict[str, Any]]) -> tuple[AnnotatedScene, dict[str, str]]:
    """The scene after ``edits`` and each object's review state (accepted / edited / deleted / added).

    An edit that no longer applies (its object or relation is gone) raises with the edit's id."""
    objects = [dict(o, relation=list(o.get("relation", []))) for o in scene.objects]
    state: dict[str, str] = {}

    def find(oid: str, e: dict[str, Any]) -> dict[str, Any]:
        o = next((o for o in objects if o["id"] == oid), None)
        if o is None:
            raise InputFileError(f"scene review edit {e['id']} ({e['op']}): no object {oid!r}")
        return o

    for e in edits:
        oid, op, v = e["object"], e["op"], e["value"]
        if op == "add":
            if any(o["id"] == oid for o in objects):
                raise InputFileError(f"scene review edit {e['id']}: object {oid!r} exists already")
            new = {
                "id": oid,
                "category": str(v.get("category", "")).strip(),
                "description": str(v.get("description", "")).strip(),
                "relation": [r for r in v.get("relation", []) if r.strip()],
                "image": v.get("image", 0),
                "bbox": v.get("bbox"),
            }
            scene_object(new, f"scene review edit {e['id']}")
            objects.append(new)
            state[oid] = "added"
            continue
        o = find(oid, e)
        if op == "accept":
            state.setdefault(oid, "accepted")
        elif op == "delete":
            objects.remove(o)
            state[oid] = "deleted"
        elif op == "edit":
            for f in FIELDS:
                if f in v:
                    text = str(v[f]).strip()
                    if text:
                        o[f] = text
                    elif f == "key_state":
                        o.pop(f, None)
            scene_object(o, f"scene review edit {e['id']}")
            state[oid] = "added" if state.get(oid) == "added" else "edited"
        else:
            rels: list[str] = o["relation"]
            text = str(v.get("text", "")).strip()
            if op == "rel_add":
                if text and text not in rels:
                    rels.append(text)
            elif text not in rels:
                raise InputFileError(f"scene review edit {e['id']} ({op}): {oid} has no relation {text!r}")
            elif op == "rel_delete":
                rels.remove(text)
            elif op == "rel_edit":
                new_text = str(v.get("to", "")).strip()
                rels[rels.index(text)] = new_text if new_text else text
            if op == "rel_accept":
                state.setdefault(oid, "accepted")
            elif state.get(oid) != "added":
                state[oid] = "edited"
    return AnnotatedScene(scene.images, scene.actions, objects, scene.initial_image, dict(scene.extra)), state


def next_id(scene: AnnotatedScene, category: str) -> str:
    """A fresh instance label ``<category>.<n>`` for an object a reviewer adds."""
    cat = re.sub(r"\s+", " ", category.strip().lower()) or "object"
    used = {o["id"] for o in scene.objects}
    n = 1
    while f"{cat}.{n}" in used:
        n += 1
    return f"{cat}.{n}"


def apply_scene_log(
    log_file: str | Path, *, scene_dir: str | Path | None = None, out: str | Path | None = None
) -> dict[str, Any]:
    """Write the corrected scene (default SCENE/corrected.json, with its official list beside it); returns
    the counts it records."""
    log_file = Path(log_file)
    scene_dir = Path(scene_dir) if scene_dir else log_file.parent.parent
    src = scene_dir / SCENE_FILE
    if not src.is_file():
        raise InputFileError(
            f"{src}: not found; pass --scene DIR (the folder `egoworld scene annotate` wrote)"
        )
    log = SceneLog(log_file, readonly=True)
    try:
        recorded = log.meta("scene_hash")
        if recorded and recorded != sha256_file(src):
            raise InputFileError(f"{log_file}: made for another version of {src}; review the new scene again")
        edits = log.live()
    finally:
        log.close()
    base = load_scene(src)
    fixed, state = replay(base, edits)
    counts = Counter(state.values())
    summary = {
        "accepted": counts.get("accepted", 0),
        "edited": counts.get("edited", 0),
        "deleted": counts.get("deleted", 0),
        "added": counts.get("added", 0),
        "unreviewed": sum(1 for o in base.objects if o["id"] not in state),
        "edits": len(edits),
    }
    fixed.extra["review"] = {
        "file": log_file.name,
        "sha256": sha256_file(log_file),
        "reviewers": sorted({e["reviewer"] for e in edits}),
        **summary,
    }
    target = Path(out) if out else scene_dir / CORRECTED_FILE
    save_scene(target, fixed)
    write_json(target.with_name(target.stem + "_end_frame_info.json"), fixed.to_official())
    return {**summary, "file": str(target)}
