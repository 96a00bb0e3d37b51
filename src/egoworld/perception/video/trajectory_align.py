"""A perceived trajectory carried into the annotations' frame by a Sim(3) fitted to a few known positions.

``--align FILE`` lists where the camera was, in the annotations' frame (metres), at a few times of the
video: a CSV with the header ``t_s,x,y,z`` or JSON Lines objects with those keys, one position a row, at
least 3 of them and not all on one line. `align_trajectory` interpolates the trajectory's own positions at
those times, fits scale, rotation and translation to the given ones (Umeyama, by ``evo``) and applies them
to every pose. The result is metric (annotated positions are metres) and its notes hold ``alignment``:
the file, the number of points, the scale and the residual RMS / max in metres.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import input_error, iter_jsonl, open_text
from egoworld.perception.video.trajectory import Trajectory

COLUMNS = ("t_s", "x", "y", "z")
FIX = ("write one row per known camera position: t_s,x,y,z (seconds into the video; metres in the "
       "annotations' frame), at least 3 rows at places not on one line")  # fmt: skip
#: the second-largest spread of the positions, as a share of the largest, under which they count as a line
MIN_SPREAD = 0.02


@dataclass(frozen=True)
class Correspondences:
    """Camera positions ``(N, 3)`` at ``times_s`` ``(N,)``, read from ``path`` (row ``lines[i]``)."""

    path: Path
    times_s: NDArray[np.float64]
    positions: NDArray[np.float64]
    lines: tuple[int, ...]


def _number(path: Path, line: int, field: str, value: object) -> float:
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise input_error(path, f"{value!r} is not a number", line=line, field=field, fix=FIX) from None
    if not np.isfinite(out):
        raise input_error(path, f"{value!r} is not a finite number", line=line, field=field, fix=FIX)
    return out


def _rows(path: Path) -> list[tuple[int, dict]]:
    if path.suffix.lower() in (".jsonl", ".json"):
        return list(iter_jsonl(path))
    import csv

    with open_text(path, "correspondences CSV", empty_ok=False) as fh:
        reader = csv.DictReader(fh, skipinitialspace=True)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise input_error(path, f"missing column(s) {', '.join(missing)}", line=1, fix=FIX)
        return [(reader.line_num, row) for row in reader if any((v or "").strip() for v in row.values())]


def read_correspondences(path: str | Path) -> Correspondences:
    """The rows of ``path`` (see the module docstring); fewer than 3, repeated times or positions on one line
    are refused naming the file and the fix."""
    path = Path(path)
    rows = _rows(path)
    values = []
    for line, row in rows:
        for c in COLUMNS:
            if row.get(c) in (None, ""):
                raise input_error(path, "missing", line=line, field=c, fix=FIX)
        values.append([_number(path, line, c, row[c]) for c in COLUMNS])
    if len(values) < 3:
        raise input_error(path, f"{len(values)} position(s); a Sim(3) alignment needs at least 3", fix=FIX)
    a = np.array(values, dtype=np.float64)
    lines = tuple(line for line, _ in rows)
    order = np.argsort(a[:, 0], kind="stable")
    a, lines = a[order], tuple(lines[i] for i in order)
    same = np.flatnonzero(np.diff(a[:, 0]) == 0)
    if len(same):
        i = int(same[0])
        raise input_error(path, f"t_s {a[i, 0]:g} is given twice (lines {lines[i]} and {lines[i + 1]})",
                          field="t_s", fix="keep one position per time")  # fmt: skip
    if not spread(a[:, 1:]):
        raise input_error(path, "the positions lie on one line (or at one point): they fix no rotation about it",
                          fix="add a position off that line, e.g. where the camera stood at another counter")  # fmt: skip
    return Correspondences(path, a[:, 0], a[:, 1:], lines)


def spread(points: NDArray[np.float64]) -> bool:
    """Whether ``points`` ``(N, 3)`` span a plane (not all on one line or at one point)."""
    s = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
    return bool(s[0] > 1e-9 and s[1] >= MIN_SPREAD * s[0])


def check_times(corr: Correspondences, t0: float, t1: float, what: str = "the perceived frames") -> None:
    """Refuse a position whose time lies outside ``[t0, t1]`` (by its line)."""
    for t, line in zip(corr.times_s, corr.lines, strict=True):
        if not t0 - 1e-6 <= t <= t1 + 1e-6:
            raise input_error(corr.path, f"t_s {t:g} is outside {what} ({t0:g}–{t1:g} s)",
                              line=line, field="t_s", fix="give times inside the video")  # fmt: skip


def align_trajectory(traj: Trajectory, corr: Correspondences) -> Trajectory:
    """``traj`` moved, turned and scaled onto ``corr`` (see the module docstring)."""
    from evo.core.geometry import GeometryException, umeyama_alignment

    check_times(corr, float(traj.times_s[0]), float(traj.times_s[-1]))
    own = traj.track().interpolate(corr.times_s)[:, :3, 3]
    if not spread(own):
        raise input_error(corr.path, "the perceived trajectory stands still or moves on one line between these "
                          "times, so no rotation can be fitted", fix="add times at which the camera is elsewhere")  # fmt: skip
    try:
        rot, shift, scale = umeyama_alignment(own.T, corr.positions.T, with_scale=True)
    except GeometryException as exc:
        raise input_error(corr.path, f"no Sim(3) alignment: {exc}", fix=FIX) from None
    m = traj.world_from_camera.copy()
    m[:, :3, :3] = rot @ m[:, :3, :3]
    m[:, :3, 3] = scale * m[:, :3, 3] @ rot.T + shift
    residual = np.linalg.norm(scale * own @ rot.T + shift - corr.positions, axis=1)
    record = {
        "file": corr.path.name,
        "method": "umeyama-sim3 (evo)",
        "points": len(corr.times_s),
        "scale": round(float(scale), 6),
        "residual_rms_m": round(float(np.sqrt(np.mean(residual**2))), 6),
        "residual_max_m": round(float(residual.max()), 6),
    }
    notes = traj.notes | {"alignment": record}
    return Trajectory(traj.times_s, m, traj.provenance, True, traj.registered, notes)
