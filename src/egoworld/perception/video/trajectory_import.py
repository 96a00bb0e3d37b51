"""Import the trajectories users already have: COLMAP text model, TUM format, Aria MPS.

* `read_colmap_text(folder, fps)`: ``images.txt`` (``IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME``,
  cam_from_world, then one line of 2D points); a frame's time is the last number in its image name / ``fps``.
* `read_tum(path)`: ``timestamp tx ty tz qx qy qz qw`` (world_from_camera), ``#`` comments; times are
  made relative to the first row unless ``relative=False``.
* `read_mps(path)`: Aria MPS ``closed_loop_trajectory.csv`` (world_from_device, metres, so ``metric``);
  ``device_from_camera`` turns it into the camera's poses. Times: ``tracking_timestamp_us`` from the first.

* `read_poses_jsonl(path)`: egoworld's own ``poses.jsonl`` (rows ``{"t", "world_from_camera": 4×4}``, as
  `egoworld.world.poses.PoseTrack.to_rows` writes it); metric when the ``episode.json`` beside it says so.

`read_trajectory_file(path, fps)` tells the format from the file (a folder or ``images.txt``: COLMAP text;
else its first data line: a JSON object → ``poses.jsonl``, a header naming ``tracking_timestamp_us`` → Aria
MPS, 8 numbers → TUM) and refuses anything else, listing the formats it reads.

A missing column, a NaN or a malformed line raises `InputFileError` naming the file, the line and the fix.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation

from egoworld.core.folders.files import InputFileError, open_text, read_input_text
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.trajectory import Trajectory

F64 = NDArray[np.float64]
MPS_COLUMNS = ("tracking_timestamp_us", "tx_world_device", "ty_world_device", "tz_world_device",
               "qx_world_device", "qy_world_device", "qz_world_device", "qw_world_device")  # fmt: skip


def pose_matrix(t: F64, q_xyzw: F64) -> F64:
    """4×4 transforms from translations ``(N, 3)`` and unit quaternions ``(N, 4)`` (x, y, z, w)."""
    m = np.tile(np.eye(4), (len(t), 1, 1))
    m[:, :3, :3] = Rotation.from_quat(q_xyzw).as_matrix()
    m[:, :3, 3] = t
    return m


TUM_FIELDS = ("timestamp", "tx", "ty", "tz", "qx", "qy", "qz", "qw")
COLMAP_FIELDS = ("QW", "QX", "QY", "QZ", "TX", "TY", "TZ")


def _numbers(
    path: Path,
    lineno: int,
    parts: list[str],
    fix: str,
    names: tuple[str, ...] = (),
    quat: slice | None = None,
) -> F64:
    """Finite numbers of one line; a bad one is named by its field (``names``), a zero quaternion too."""
    vals = []
    for k, p in enumerate(parts):
        field = f", field '{names[k]}'" if k < len(names) else ""
        try:
            v = float(p)
        except ValueError:
            raise InputFileError(f"{path}, line {lineno}{field}: {p!r} is not a number; {fix}") from None
        if not np.isfinite(v):
            raise InputFileError(f"{path}, line {lineno}{field}: {p} is NaN or infinite; {fix}")
        vals.append(v)
    a = np.array(vals)
    if quat is not None and not np.linalg.norm(a[quat]) > 1e-12:
        raise InputFileError(f"{path}, line {lineno}: the quaternion is zero (not a rotation); {fix}")
    return a


def _ordered(path: Path, times: F64, mats: F64, lines: list[int], fix: str) -> tuple[F64, F64]:
    if len(times) == 0:
        raise InputFileError(f"{path}: no poses; {fix}")
    order = np.argsort(times, kind="stable")
    times, mats = times[order], mats[order]
    dup = np.flatnonzero(np.diff(times) <= 0)
    if len(dup):
        raise InputFileError(f"{path}, line {lines[order[dup[0] + 1]]}: a repeated timestamp; {fix}")
    return times, mats


def _prov(backend: str, path: Path, **settings: object) -> Provenance:
    return Provenance(backend, None, {"file": path.name, **settings})


def read_tum(path: str | Path, *, relative: bool = True) -> Trajectory:
    """A TUM RGB-D trajectory file (see the module docstring)."""
    path = Path(path)
    fix = "each line must be `timestamp tx ty tz qx qy qz qw` with finite numbers (TUM format)"
    rows, lines = [], []
    for lineno, line in enumerate(read_input_text(path, "TUM trajectory file").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 8:
            raise InputFileError(f"{path}, line {lineno}: {len(parts)} values, expected 8; {fix}")
        rows.append(_numbers(path, lineno, parts, fix, TUM_FIELDS, slice(4, 8)))
        lines.append(lineno)
    a = np.array(rows).reshape(-1, 8)
    times, mats = _ordered(path, a[:, 0], pose_matrix(a[:, 1:4], a[:, 4:8]) if len(a) else a, lines, fix)
    t0 = times[0] if relative else 0.0
    return Trajectory(times - t0, mats, _prov("tum", path, time_offset_s=float(t0)))


def read_colmap_text(folder: str | Path, fps: float) -> Trajectory:
    """A COLMAP text model's ``images.txt`` (``folder`` holds it, or is it); frame = last number in NAME."""
    folder = Path(folder)
    path = folder / "images.txt" if folder.is_dir() else folder
    if not path.is_file():
        raise InputFileError(f"{path}: not found; export the model with `colmap model_converter "
                             "--output_type TXT` (it writes cameras.txt, images.txt, points3D.txt)")  # fmt: skip
    fix = (
        "images.txt lines are `IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME`, each followed by a points line"
    )
    text = read_input_text(path, "COLMAP images.txt")
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if not ln.startswith("#")]
    times, mats, where = [], [], []
    for lineno, line in lines[::2]:
        parts = line.split()
        if len(parts) < 10:
            raise InputFileError(f"{path}, line {lineno}: {len(parts)} fields, expected 10; {fix}")
        v = _numbers(path, lineno, parts[1:8], fix, COLMAP_FIELDS, slice(0, 4))
        digits = re.findall(r"\d+", Path(" ".join(parts[9:])).stem)
        if not digits:
            raise InputFileError(f"{path}, line {lineno}: image name {parts[9]!r} has no frame number; "
                                 "name the images by frame (e.g. 000123.png)")  # fmt: skip
        cam_from_world = pose_matrix(v[None, 4:7], v[None, [1, 2, 3, 0]])[0]
        mats.append(np.linalg.inv(cam_from_world))
        times.append(int(digits[-1]) / fps)
        where.append(lineno)
    t, m = _ordered(path, np.array(times), np.array(mats).reshape(-1, 4, 4), where, fix)
    return Trajectory(t, m, _prov("colmap-text", path, fps=fps))


def read_mps(path: str | Path, device_from_camera: F64 | None = None) -> Trajectory:
    """An Aria MPS ``closed_loop_trajectory.csv`` (metric; see the module docstring)."""
    path = Path(path)
    fix = "use the closed_loop_trajectory.csv that Aria MPS wrote (its header names the columns)"
    with open_text(path, "Aria MPS trajectory CSV") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in MPS_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputFileError(f"{path}, line 1: missing columns {', '.join(missing)}; {fix}")
        rows, lines = [], []
        for row in reader:
            values = [row[c] or "nan" for c in MPS_COLUMNS]
            rows.append(_numbers(path, reader.line_num, values, fix, MPS_COLUMNS, slice(4, 8)))
            lines.append(reader.line_num)
    a = np.array(rows).reshape(-1, 8)
    times, mats = _ordered(
        path, a[:, 0] * 1e-6, pose_matrix(a[:, 1:4], a[:, 4:8]) if len(a) else a, lines, fix
    )
    if device_from_camera is not None:
        mats = mats @ np.asarray(device_from_camera, dtype=np.float64)
    frame = "camera" if device_from_camera is not None else "device"
    prov = _prov("aria-mps", path, time_offset_s=float(times[0]), pose_frame=frame)
    return Trajectory(times - times[0], mats, prov, metric=True)


FORMATS = (
    "TUM (`timestamp tx ty tz qx qy qz qw` lines), COLMAP text (images.txt or its folder), Aria MPS "
    "closed_loop_trajectory.csv, or egoworld's poses.jsonl"
)


def read_poses_jsonl(path: str | Path) -> Trajectory:
    """egoworld's ``poses.jsonl`` (see the module docstring)."""
    import json

    from egoworld.core.folders.files import iter_jsonl

    path = Path(path)
    fix = 'each line must be {"t": seconds, "world_from_camera": [[4 numbers] × 4]} (egoworld\'s poses.jsonl)'
    times, mats, lines = [], [], []
    for lineno, row in iter_jsonl(path):
        m = np.asarray(row.get("world_from_camera"), dtype=object) if isinstance(row, dict) else None
        if m is None or m.shape != (4, 4) or "t" not in row:
            raise InputFileError(f"{path}, line {lineno}: not a pose row; {fix}")
        vals = _numbers(path, lineno, [str(row["t"]), *map(str, m.ravel())], fix)
        times.append(vals[0])
        mats.append(vals[1:].reshape(4, 4))
        lines.append(lineno)
    t, m = _ordered(path, np.array(times), np.array(mats).reshape(-1, 4, 4), lines, fix)
    metric, record = False, {}
    header = path.parent / "episode.json"
    if header.is_file():
        try:
            record = (json.loads(read_input_text(header, "episode header")).get("meta") or {}).get(
                "perception"
            ) or {}
            record = record.get("poses") or {}
            metric = bool(record.get("metric", False))
        except (ValueError, AttributeError):
            metric = False
    prov = _prov("poses-jsonl", path, source_backend=record.get("backend"))
    return Trajectory(t, m, prov, metric=metric)


def _first_data_line(path: Path) -> str:
    with open_text(path, "trajectory file") as fh:
        for line in fh:
            if line.strip() and not line.lstrip().startswith("#"):
                return line.strip()
    return ""


def read_trajectory_file(path: str | Path, fps: float) -> Trajectory:
    """A trajectory file of any format this module reads, told from the file (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise InputFileError(f"{path}: no such trajectory file; --trajectory is colmap, odometry, or a file: "
                             f"{FORMATS}")  # fmt: skip
    if path.is_dir() or path.name == "images.txt":
        return read_colmap_text(path, fps)
    first = _first_data_line(path)
    if first.startswith("{"):
        return read_poses_jsonl(path)
    if "tracking_timestamp_us" in first:
        return read_mps(path)
    parts = first.replace(",", " ").split()
    if parts and all(re.fullmatch(r"[-+0-9.eEnaifNAIF]+", p) for p in parts):
        return read_tum(path)  # numbers: TUM (a wrong count is named by line)
    if path.suffix == ".csv":
        return read_mps(path)  # names the missing columns
    if path.suffix == ".jsonl":
        return read_poses_jsonl(path)
    head = first[:60] + ("…" if len(first) > 60 else "")
    raise InputFileError(f"{path}: not a trajectory format egoworld reads (its first line: {head!r}); "
                         f"give {FORMATS}")  # fmt: skip
