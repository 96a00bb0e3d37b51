"""A kitchen's annotations from simple CSV tables (what `egoworld world annotations` reads).

Movements: one row per movement, the columns `MOVEMENT_COLUMNS` (``object_id``, ``category``, ``name``,
``start_s``, ``end_s``, ``start_x`` … ``end_z``: the object's position in metres before and after the
movement) and, optionally, ``start_fixture`` / ``end_fixture`` (ids of the fixtures table). Rows of one
object share its id, category and name; its initial position is the start of its first movement.

Fixtures: one row per fixture, the columns `FIXTURE_COLUMNS` (``id``, ``label``, ``type`` and the box
``center_x`` … ``size_z``, axis-aligned, metres) and, optionally, ``openable`` (true / false).

Every error names the file, the line and the field.
"""

from __future__ import annotations

import csv
from collections.abc import Collection
from pathlib import Path

import numpy as np

from egoworld.core.folders.files import input_error, open_text
from egoworld.world.episode import EpisodeObject, Fixture, Movement

XYZ = ("x", "y", "z")
MOVEMENT_COLUMNS = ("object_id", "category", "name", "start_s", "end_s",
                    *(f"start_{a}" for a in XYZ), *(f"end_{a}" for a in XYZ))  # fmt: skip
FIXTURE_COLUMNS = ("id", "label", "type", *(f"center_{a}" for a in XYZ), *(f"size_{a}" for a in XYZ))
MOVES_FIX = f"a movements CSV has the header {','.join(MOVEMENT_COLUMNS)}[,start_fixture,end_fixture]"
FIXTURES_FIX = f"a fixtures CSV has the header {','.join(FIXTURE_COLUMNS)}[,openable]"


def _table(path: Path, columns: tuple[str, ...], fix: str) -> list[tuple[int, dict[str, str]]]:
    with open_text(path, "CSV table", empty_ok=False) as fh:
        reader = csv.DictReader(fh, skipinitialspace=True)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise input_error(path, f"missing column(s) {', '.join(missing)}", line=1, fix=fix)
        rows = [(reader.line_num, row) for row in reader if any((v or "").strip() for v in row.values())]
    if not rows:
        raise input_error(path, "no rows under the header", fix=fix)
    return rows


def _text(path: Path, line: int, row: dict[str, str], field: str, fix: str) -> str:
    value = (row.get(field) or "").strip()
    if not value:
        raise input_error(path, "empty", line=line, field=field, fix=fix)
    return value


def _number(path: Path, line: int, row: dict[str, str], field: str, fix: str) -> float:
    value = _text(path, line, row, field, fix)
    try:
        out = float(value)
    except ValueError:
        raise input_error(path, f"{value!r} is not a number", line=line, field=field, fix=fix) from None
    if not np.isfinite(out):
        raise input_error(path, f"{value!r} is not a finite number", line=line, field=field, fix=fix)
    return out


def _xyz(path: Path, line: int, row: dict[str, str], prefix: str, fix: str) -> tuple[float, float, float]:
    x, y, z = (_number(path, line, row, f"{prefix}_{a}", fix) for a in XYZ)
    return x, y, z


def read_movement_table(path: str | Path, fixture_ids: Collection[str] = frozenset()) -> list[EpisodeObject]:
    """The objects of a movements CSV (module docstring), in the order they first appear; a fixture column
    must name one of ``fixture_ids``."""
    path = Path(path)
    by_id: dict[str, tuple[int, str, str, list[Movement]]] = {}
    for line, row in _table(path, MOVEMENT_COLUMNS, MOVES_FIX):
        oid = _text(path, line, row, "object_id", MOVES_FIX)
        category, name = (_text(path, line, row, f, MOVES_FIX) for f in ("category", "name"))
        start, end = (_number(path, line, row, f, MOVES_FIX) for f in ("start_s", "end_s"))
        if start < 0 or end < start:
            raise input_error(path, f"{start:g}–{end:g} s is not a time span (0 ≤ start_s ≤ end_s)", line=line,
                              field="end_s" if start >= 0 else "start_s", fix="write seconds into the video")  # fmt: skip
        fixtures = {}
        for f in ("start_fixture", "end_fixture"):
            fid = (row.get(f) or "").strip() or None
            if fid is not None and fid not in fixture_ids:
                known = (
                    f"the fixtures table has {len(fixture_ids)}"
                    if fixture_ids
                    else "no --fixtures table given"
                )
                raise input_error(path, f"unknown fixture {fid!r} ({known})", line=line, field=f,
                                  fix="add it to the fixtures table (--fixtures) or leave the field empty")  # fmt: skip
            fixtures[f] = fid
        first = by_id.setdefault(oid, (line, category, name, []))
        for f, have, want in (("category", category, first[1]), ("name", name, first[2])):
            if have != want:
                raise input_error(path, f"object {oid!r} is {want!r} on line {first[0]}, {have!r} here",
                                  line=line, field=f, fix="one object id has one category and name")  # fmt: skip
        first[3].append(Movement(start_s=start, end_s=end, id=f"{oid}:{len(first[3])}",
                                 start_position=_xyz(path, line, row, "start", MOVES_FIX),
                                 end_position=_xyz(path, line, row, "end", MOVES_FIX), **fixtures))  # fmt: skip
    objects = []
    for oid, (_, category, name, moves) in by_id.items():
        moves.sort(key=lambda m: (m.start_s, m.end_s))
        objects.append(EpisodeObject(id=oid, category=category, name=name, initial_position=moves[0].start_position,
                                     initial_fixture=moves[0].start_fixture, movements=tuple(moves)))  # fmt: skip
    return objects


def read_fixture_table(path: str | Path) -> list[Fixture]:
    """The fixtures of a fixtures CSV (module docstring); ids must be unique."""
    from egoworld.geometry.boxes import Box3D

    path = Path(path)
    out: list[Fixture] = []
    seen: dict[str, int] = {}
    for line, row in _table(path, FIXTURE_COLUMNS, FIXTURES_FIX):
        fid = _text(path, line, row, "id", FIXTURES_FIX)
        if fid in seen:
            raise input_error(path, f"fixture {fid!r} is also on line {seen[fid]}", line=line, field="id",
                              fix="give each fixture its own id")  # fmt: skip
        seen[fid] = line
        size = _xyz(path, line, row, "size", FIXTURES_FIX)
        if min(size) < 0:
            raise input_error(path, f"negative box size {size}", line=line, field="size_x", fix=FIXTURES_FIX)
        openable = (row.get("openable") or "false").strip().lower()
        if openable not in ("true", "false", "1", "0", "yes", "no"):
            raise input_error(path, f"{openable!r} is not true or false", line=line, field="openable",
                              fix="write true or false")  # fmt: skip
        label, kind = (_text(path, line, row, f, FIXTURES_FIX) for f in ("label", "type"))
        box = Box3D(center=_xyz(path, line, row, "center", FIXTURES_FIX), size=size)
        out.append(
            Fixture(id=fid, label=label, type=kind, box=box, openable=openable in ("true", "1", "yes"))
        )
    return out
