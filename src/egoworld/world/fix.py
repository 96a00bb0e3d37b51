"""Apply the fixes a review names (`egoworld.world.fields.Fix`) to a world: in place or into a copy.

Every fix is checked before anything is written: an unknown episode, object or field, or a value of the
wrong shape, raises `InputFileError` naming the review entry. A fix without a corrected value, a corrected
count (derived: a human must say which appearances are wrong), two entries that disagree, or a field the
world no longer holds at the reviewed value goes to ``needs_human``. A fix whose value the world already
holds is ``already`` (a rerun changes nothing). Each changed episode records the review in
``episode.json``'s ``source["reviews"]`` (file, sha256, entries, applied fields); builders copy that list into
their manifests. Files are rewritten atomically inside `begin_write` / `end_write`.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_jsonl, write_jsonl
from egoworld.core.folders.loader import begin_write, end_write
from egoworld.world.episode import Episode
from egoworld.world.episode_folder import find_episodes, load_episode, save_episode
from egoworld.world.fields import Fix


@dataclass
class FixReport:
    """What `apply_fixes` did: applied, already there, and left for a human (fix, why)."""

    out: Path
    applied: list[Fix] = field(default_factory=list)
    already: list[Fix] = field(default_factory=list)
    needs_human: list[tuple[Fix, str]] = field(default_factory=list)
    episodes: list[str] = field(default_factory=list)


@dataclass
class _Episode:
    folder: Path
    episode: Episode
    files: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # media.extra rows files changed
    model_changed: bool = False
    applied: list[Fix] = field(default_factory=list)


def apply_fixes(
    world: str | Path,
    fixes: Sequence[Fix],
    *,
    out: str | Path | None = None,
    review: dict[str, Any] | None = None,
) -> FixReport:
    """Apply ``fixes`` to the world set ``world`` (written into ``out`` when given); ``review`` is the record
    ({file, sha256, …}) each changed episode keeps."""
    world = Path(world)
    episodes = {}
    for folder in find_episodes(world):
        ep = load_episode(folder)
        episodes[ep.id] = _Episode(folder, ep)
    if not episodes:
        raise InputFileError(f"{world}: no episode folders (episode.json) found")
    report = FixReport(Path(out) if out is not None else world)
    concrete = _triage(fixes, report)
    for fix in concrete:
        target = episodes.get(fix.ref.episode)
        if target is None:
            raise InputFileError(f"{fix.entry}: episode {fix.ref.episode!r} is not in {world}")
        state = _apply(target, fix)
        if state == "applied":
            target.applied.append(fix)
            report.applied.append(fix)
        elif state == "already":
            report.already.append(fix)
        else:
            report.needs_human.append((fix, state))
    changed = [e for e in episodes.values() if e.applied]
    if out is not None:
        _copy_world(world, Path(out))
    root = report.out
    begin_write(root, "world fix")
    for e in changed:
        folder = root / e.folder.relative_to(world) if out is not None else e.folder
        _write(e, folder, review or {})
        report.episodes.append(e.episode.id)
    end_write(root)
    return report


def _triage(fixes: Sequence[Fix], report: FixReport) -> list[Fix]:
    """Fixes with one agreed concrete value; the others go to ``report.needs_human``."""
    by_key: dict[tuple[str, ...], list[Fix]] = {}
    for fix in fixes:
        by_key.setdefault(fix.ref.key(), []).append(fix)
    concrete = []
    for group in by_key.values():
        valued = [f for f in group if f.has_value]
        for f in group:
            if not f.has_value:
                report.needs_human.append((f, "no corrected value given: look at the video and decide it"))
        if not valued:
            continue
        if len({repr(f.value) for f in valued}) > 1:
            entries = ", ".join(f"{f.entry} ({f.value})" for f in valued)
            for f in valued:
                report.needs_human.append((f, f"entries disagree on the value: {entries}"))
            continue
        fix = valued[-1]
        if fix.ref.kind == "count":
            report.needs_human.append(
                (fix, "a count is derived from the appearances: reject naming the wrong appearance instead")
            )
            continue
        concrete.append(fix)
    return concrete


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), abs_tol=1e-6)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _apply(e: _Episode, fix: Fix) -> str:
    """Change ``e`` in memory: "applied", "already", or why a human is needed."""
    kind = fix.ref.kind
    if kind == "appearance":
        return _intervals_fix(e, fix, "appearances", _appearance_rows)
    if kind == "place_visit":
        return _intervals_fix(e, fix, "place_visits", _visit_rows)
    if kind == "pose":
        return _pose_fix(e, fix)
    return _model_fix(e, fix)


def _rows(e: _Episode, key: str, fix: Fix) -> list[dict[str, Any]]:
    if key not in e.files:
        name = e.episode.media.extra.get(key)
        if not name or not (e.folder / name).is_file():
            raise InputFileError(f"{fix.entry}: episode {e.episode.id} has no {key!r} file (media.extra)")
        e.files[key] = read_jsonl(e.folder / name)
    return e.files[key]


def _intervals(fix: Fix, duration_s: float) -> list[list[float]]:
    v = fix.value
    ok = isinstance(v, list) and all(
        isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(x, int | float) for x in p) for p in v
    )
    if not ok:
        raise InputFileError(
            f"{fix.entry}: {fix.ref.field} must be a list of [start_s, end_s] pairs, got {v!r}"
        )
    out = [[float(a), float(b)] for a, b in v]
    for k, (a, b) in enumerate(out):
        if not 0 <= a <= b <= duration_s + 1e-6:
            raise InputFileError(f"{fix.entry}: interval [{a}, {b}] is not inside 0–{duration_s} s")
        if k + 1 < len(out) and out[k + 1][0] < b:
            raise InputFileError(f"{fix.entry}: intervals must be sorted and must not overlap, got {v!r}")
    return out


def _appearance_rows(
    e: _Episode, fix: Fix, rows: list[dict[str, Any]], new: list[list[float]] | None
) -> tuple[Any, list[dict[str, Any]]]:
    """The current intervals of the appearance, and the rows with ``new`` in its place (None: unchanged)."""
    hit = [i for i, r in enumerate(rows) if r.get("object") == fix.ref.id and r.get("view") == fix.ref.view]
    if not hit:
        raise InputFileError(f"{fix.entry}: no appearance of {fix.ref.id!r} in view {fix.ref.view!r}")
    row = rows[hit[0]]
    if new is None:
        return row["intervals"], rows
    if not new:
        return row["intervals"], [r for i, r in enumerate(rows) if i != hit[0]]
    fps = e.episode.fps
    frames = sum(math.floor((b - a) * fps + 1e-6) + 1 for a, b in new)
    changed = row | {"intervals": new, "first_s": new[0][0], "last_s": new[-1][1], "frames": frames}
    return row["intervals"], [changed if i == hit[0] else r for i, r in enumerate(rows)]


def _visit_rows(
    e: _Episode, fix: Fix, rows: list[dict[str, Any]], new: list[list[float]] | None
) -> tuple[Any, list[dict[str, Any]]]:
    mine = [[r["start_s"], r["end_s"]] for r in rows if r.get("place") == fix.ref.id]
    if not mine:
        raise InputFileError(f"{fix.entry}: no visit of place {fix.ref.id!r}")
    if new is None:
        return mine, rows
    kept = [r for r in rows if r.get("place") != fix.ref.id]
    added = [{"place": fix.ref.id, "start_s": a, "end_s": b} for a, b in new]
    return mine, sorted(kept + added, key=lambda r: (r["start_s"], r["end_s"]))


def _intervals_fix(e: _Episode, fix: Fix, key: str, edit: Any) -> str:
    rows = _rows(e, key, fix)
    current, _ = edit(e, fix, rows, None)
    new = _intervals(fix, e.episode.duration_s)
    if _same(current, new):
        return "already"
    if not _same(current, fix.ref.value):
        return f"the world changed since the question was built: {fix.ref.field} is now {current}"
    e.files[key] = edit(e, fix, rows, new)[1]
    return "applied"


def _pose_fix(e: _Episode, fix: Fix) -> str:
    if not isinstance(fix.value, bool) or fix.ref.field != "flagged" or fix.ref.span is None:
        raise InputFileError(f"{fix.entry}: a pose fix sets 'flagged' to true or false, got {fix.value!r}")
    a, b = fix.ref.span
    flags = list(e.episode.meta.get("pose_flags") or [])
    here = [f for f in flags if _same([f["start_s"], f["end_s"]], [a, b])]
    if bool(here) == fix.value:
        return "already"
    flags = [f for f in flags if f not in here] + ([{"start_s": a, "end_s": b}] if fix.value else [])
    e.episode = e.episode.model_copy(update={"meta": e.episode.meta | {"pose_flags": flags}})
    e.model_changed = True
    return "applied"


_COLLECTION = {"fixture": "fixtures", "object": "objects", "scene_object": "scene_graphs"}


def _model_fix(e: _Episode, fix: Fix) -> str:
    """A dotted-path field of a fixture, object or scene-graph object, revalidated with the whole episode."""
    name = _COLLECTION[fix.ref.kind]
    doc = e.episode.model_dump(mode="json", include={name})[name]
    if fix.ref.kind == "scene_object":
        graphs = [g for g in doc if g.get("label") == fix.ref.view]
        if not graphs:
            raise InputFileError(f"{fix.entry}: no scene graph labelled {fix.ref.view!r}")
        items = graphs[0]["objects"]
        found = [o for k, o in enumerate(items) if o.get("id") == fix.ref.id or str(k) == fix.ref.id]
    else:
        found = [row for row in doc if row.get("id") == fix.ref.id]
    if not found:
        raise InputFileError(f"{fix.entry}: no {fix.ref.kind} {fix.ref.id!r} in episode {e.episode.id}")
    parts = fix.ref.field.split(".")
    node: Any = found[0]
    try:
        for p in parts[:-1]:
            node = node[int(p)] if isinstance(node, list) else node[p]
        last = int(parts[-1]) if isinstance(node, list) else parts[-1]
        current = node[last]
    except (KeyError, IndexError, ValueError, TypeError):
        raise InputFileError(
            f"{fix.entry}: {fix.ref.kind} {fix.ref.id!r} has no field {fix.ref.field!r}"
        ) from None
    if _same(current, fix.value):
        return "already"
    if not _same(current, fix.ref.value):
        return f"the world changed since the question was built: {fix.ref.field} is now {current}"
    node[last] = fix.value
    try:
        e.episode = Episode.model_validate(e.episode.model_dump() | {name: doc, "poses": e.episode.poses})
    except ValueError as exc:
        raise InputFileError(
            f"{fix.entry}: the corrected {fix.ref.field} does not fit the episode: {exc}"
        ) from None
    e.model_changed = True
    return "applied"


def _copy_world(world: Path, out: Path) -> None:
    """``out`` as a copy of ``world`` (files hard-linked where possible; rewritten files replace their link)."""
    if out.resolve() == world.resolve():
        raise InputFileError(f"--out {out}: that is the world itself; leave --out out to fix it in place")
    if out.exists() and any(out.iterdir()):
        raise InputFileError(f"--out {out}: not empty; choose a new folder")
    begin_write(out, "world fix")

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(world, out, copy_function=link, dirs_exist_ok=True, symlinks=True)


def _write(e: _Episode, folder: Path, review: dict[str, Any]) -> None:
    begin_write(folder, "world fix")
    for key, rows in e.files.items():
        write_jsonl(folder / e.episode.media.extra[key], rows)
    record = review | {
        "entries": sorted({f.entry for f in e.applied}),
        "applied": [f.ref.label(f.value, new=True) for f in e.applied],
    }
    source = e.episode.source | {"reviews": [*(e.episode.source.get("reviews") or []), record]}
    save_episode(e.episode.model_copy(update={"source": source}), folder)
    end_write(folder)
