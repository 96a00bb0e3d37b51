"""HD-EPIC ``scene-and-object-movements/mask_info.json`` → 3D start / end locations of every movement.

``{video_id: {mask_id: {"frame_number": int, "3d_location": [x, y, z], "bbox": [xmin, ymin, xmax, ymax],
"fixture": "P01_cupboard.009" | "Null"}}}``: one entry per object mask; ``frame_number`` is the 0-based
MP4 frame the mask was drawn on, ``3d_location`` is in the world frame of the SLAM poses and the digital
twin (metres), ``bbox`` in pixels of that frame. The tracks of ``assoc_info.json`` list their mask ids.

Per movement (a track), its masks in frame order: the first gives where the object was picked up
(``start_position`` / ``start_fixture``), the last where it was put down (``end_position`` /
``end_fixture``). A track with one mask uses it for the end it is nearer in time. So the object is held at
its first mask before its first movement, in motion during a track, and at the track's last mask after
(`egoworld.world.location`). Boxes go to ``meta["start_bbox"]`` / ``meta["end_bbox"]`` with the time they
were drawn (``…_bbox_s``) for the footprint of the visibility tracks. A fixture ``"Null"``, or one the
kitchen's digital twin does not have, leaves the fixture unknown, a null ``3d_location`` the position (both counted in `MaskReport`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from egoworld.core.folders.files import InputFileError, read_json
from egoworld.world.episode import EpisodeObject

MASKS = "scene-and-object-movements/mask_info.json"
NULL_FIXTURE = "Null"


@dataclass(frozen=True)
class Mask:
    """One entry of ``mask_info.json``."""

    frame: int
    location: tuple[float, float, float] | None
    bbox: tuple[float, float, float, float] | None
    fixture: str | None


@dataclass
class MaskReport:
    """What joining masks to tracks found (summed over videos)."""

    masks: int = 0
    located_movements: int = 0
    movements_without_masks: int = 0
    missing_masks: list[tuple[str, str]] = field(default_factory=list)  # video, mask id
    unknown_fixtures: dict[str, int] = field(default_factory=dict)  # fixture id → masks
    null_fixtures: int = 0
    no_location: int = 0  # masks whose 3d_location is null


def _mask(raw: object, where: str) -> Mask:
    if not isinstance(raw, dict):
        raise InputFileError(f"{where}: expected an object with frame_number, 3d_location, bbox, fixture")
    frame = raw.get("frame_number")
    if not isinstance(frame, int) or isinstance(frame, bool) or frame < 0:
        raise InputFileError(f"{where}: field 'frame_number': expected a frame number ≥ 0, got {frame!r}")
    loc = raw.get("3d_location")
    if loc is not None and not (
        isinstance(loc, list)
        and len(loc) == 3
        and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in loc)
    ):
        raise InputFileError(
            f"{where}: field '3d_location': expected [x, y, z] in metres (or null), got {loc!r}"
        )
    box = raw.get("bbox")
    if box is not None and not (
        isinstance(box, list) and len(box) == 4 and all(isinstance(v, int | float) for v in box)
    ):
        raise InputFileError(f"{where}: field 'bbox': expected [xmin, ymin, xmax, ymax], got {box!r}")
    fixture = raw.get("fixture")
    if fixture is not None and not isinstance(fixture, str):
        raise InputFileError(f"{where}: field 'fixture': expected a fixture id or 'Null', got {fixture!r}")
    return Mask(
        frame=frame,
        location=(float(loc[0]), float(loc[1]), float(loc[2])) if loc is not None else None,
        bbox=tuple(float(v) for v in box) if box is not None else None,
        fixture=None if fixture in (None, NULL_FIXTURE, "") else fixture,
    )


def load_mask_info(path: str | Path, videos: set[str] | None = None) -> dict[str, dict[str, Mask]]:
    """Masks per video (only ``videos`` when given), validated; errors name the video, mask and field."""
    path = Path(path)
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputFileError(f"{path}: expected an object keyed by video id")
    out: dict[str, dict[str, Mask]] = {}
    for video, masks in doc.items():
        if videos is not None and video not in videos:
            continue
        if not isinstance(masks, dict):
            raise InputFileError(f"{path}: video {video}: expected an object keyed by mask id")
        out[video] = {mid: _mask(m, f"{path}: video {video}, mask {mid}") for mid, m in masks.items()}
    return out


def _end(mask: Mask, known: set[str], report: MaskReport, fps: float) -> dict:
    fixture = mask.fixture
    report.no_location += mask.location is None
    if fixture is None:
        report.null_fixtures += 1
    elif fixture not in known:
        report.unknown_fixtures[fixture] = report.unknown_fixtures.get(fixture, 0) + 1
        fixture = None
    return {"position": mask.location, "fixture": fixture, "bbox": mask.bbox, "bbox_s": mask.frame / fps}


def locate_movements(
    video: str,
    objects: list[EpisodeObject],
    masks: dict[str, Mask],
    fixture_ids: set[str],
    fps: float,
    report: MaskReport,
) -> list[EpisodeObject]:
    """``objects`` with start / end positions, fixtures and boxes of every movement that has masks."""
    out = []
    for obj in objects:
        moves = []
        for m in obj.movements:
            ids = list(m.meta.get("masks", []))
            found = []
            for mid in ids:
                if mid in masks:
                    found.append(masks[mid])
                else:
                    report.missing_masks.append((video, mid))
            if not found:
                report.movements_without_masks += 1
                moves.append(m)
                continue
            found.sort(key=lambda k: k.frame)
            report.masks += len(found)
            report.located_movements += 1
            start = end = None
            if len(found) >= 2:
                start, end = found[0], found[-1]
            elif abs(found[0].frame / fps - m.start_s) < abs(found[0].frame / fps - m.end_s):
                start = found[0]
            else:
                end = found[0]
            update: dict = {}
            meta = dict(m.meta)
            for side, mask in (("start", start), ("end", end)):
                if mask is None:
                    continue
                e = _end(mask, fixture_ids, report, fps)
                update[f"{side}_position"] = e["position"]
                update[f"{side}_fixture"] = e["fixture"]
                if e["bbox"] is not None:
                    meta[f"{side}_bbox"] = list(e["bbox"])
                    meta[f"{side}_bbox_s"] = round(e["bbox_s"], 6)
            moves.append(m.model_copy(update=update | {"meta": meta}))
        out.append(obj.model_copy(update={"movements": tuple(moves)}))
    return out
