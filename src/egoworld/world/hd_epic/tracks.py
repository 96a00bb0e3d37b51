"""HD-EPIC ``assoc_info.json`` → objects with movement tracks, per video.

``{video_id: {association_id: {"name", "tracks": [{"track_id", "time_segment": [start, end], "masks"}]}}}``.
Each association is one object (id = association id, ``name`` kept as annotated, e.g. ``plate2``;
``category`` = the name without its instance number; unnamed objects — ``Track N`` (135) and
``Track N (skipped)`` (1,178) — get category ``unknown`` and ``meta["unnamed"]`` / ``meta["skipped"]``); each
track is one movement (id = track id, mask ids in ``meta["masks"]``). The file carries times only, no
3D positions or fixtures (those are in ``mask_info.json``, joined by `egoworld.world.hd_epic.masks`).

Quirks handled (counts for the public file in `TrackReport`): tracks out of time order are sorted by
(start, end); tracks that overlap another track of the same object are kept as annotated (the object is
in motion while any of its tracks runs, see `egoworld.world.location`); a track ending after the
video's duration is clipped to it (original end in ``meta["annotated_end_s"]``), one starting after it
is dropped.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, open_text, read_json
from egoworld.core.numbers import parse_number
from egoworld.world.episode import EpisodeObject, Movement

_UNNAMED = re.compile(r"Track \d+( \(skipped\))?")
_INSTANCE = re.compile(r"\s*\d+$")


@dataclass
class TrackReport:
    """What the loader found and changed."""

    videos: int = 0
    objects: int = 0
    movements: int = 0
    reordered_objects: int = 0
    overlapping_pairs: int = 0
    clipped: list[tuple[str, str, float, float]] = field(default_factory=list)  # video, track, end, duration
    dropped: list[tuple[str, str]] = field(default_factory=list)
    unnamed_objects: int = 0  # named "Track N"
    skipped_objects: int = 0  # named "Track N (skipped)"
    masks: Any = None  # a MaskReport when mask_info.json was joined (egoworld.world.hd_epic.masks)


def category_of(name: str) -> str:
    """``plate2`` → ``plate``; ``lid of plastic box2`` → ``lid of plastic box``; ``Track 7`` and
    ``Track 7 (skipped)`` → ``unknown``."""
    if _UNNAMED.fullmatch(name.strip()):
        return "unknown"
    return _INSTANCE.sub("", name.strip()) or name.strip()


def read_durations(path: str | Path) -> dict[str, float]:
    """``video_id → duration_s`` from ``HD_EPIC_YouTube_URLs.csv``."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    with open_text(path) as fh:
        rows = list(csv.DictReader(fh))
    if rows and not {"video_id", "duration"} <= set(rows[0]):
        raise InputFileError(f"{path}: expected columns video_id and duration (seconds)")
    out: dict[str, float] = {}
    for lineno, r in enumerate(rows, start=2):
        try:
            out[r["video_id"]] = float(parse_number(r["duration"] or "", gt=0))
        except ValueError as exc:
            raise InputFileError(
                f"{path}, line {lineno}: field 'duration': {exc}; give the video length in seconds"
            ) from None
    return out


def _movement(track: object, where: str) -> Movement:
    if not isinstance(track, dict):
        raise InputFileError(
            f"{where}: expected a track object {{track_id, time_segment, masks}}, got {track!r:.60}"
        )
    seg = track.get("time_segment")
    if not (
        isinstance(seg, list)
        and len(seg) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in seg)
    ):
        raise InputFileError(f"{where}: field 'time_segment': expected [start_s, end_s], got {seg!r}")
    if seg[1] < seg[0] or seg[0] < 0:
        raise InputFileError(f"{where}: field 'time_segment': {seg} is not an interval of video time")
    return Movement(
        id=track.get("track_id"),
        start_s=float(seg[0]),
        end_s=float(seg[1]),
        meta={"masks": list(track.get("masks", []))},
    )


def _kind(value: object) -> str:
    return "a list" if isinstance(value, list) else f"{type(value).__name__} {value!r:.40}"


def load_assoc_info(
    path: str | Path, durations: dict[str, float] | None = None
) -> tuple[dict[str, list[EpisodeObject]], TrackReport]:
    """Objects per video (file order) and a `TrackReport`; ``durations`` enables clipping to the video."""
    path = Path(path)
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputFileError(f"{path}: expected an object keyed by video id")
    report = TrackReport()
    out: dict[str, list[EpisodeObject]] = {}
    for video, assocs in doc.items():
        report.videos += 1
        if not isinstance(assocs, dict):
            raise InputFileError(
                f"{path}: video {video}: expected an object keyed by association id, got {_kind(assocs)}; "
                "use the assoc_info.json of the HD-EPIC release"
            )
        duration = durations.get(video) if durations else None
        objects = []
        for aid, assoc in assocs.items():
            where = f"{path}: video {video}, association {aid}"
            tracks = assoc.get("tracks", []) if isinstance(assoc, dict) else None
            if not isinstance(tracks, list):
                got = _kind(assoc) if not isinstance(assoc, dict) else f"field 'tracks' {_kind(tracks)}"
                raise InputFileError(f"{where}: expected {{name, tracks: [...]}}, got {got}")
            name = str(assoc.get("name", ""))
            moves = [
                _movement(t, f"{where}, track {t.get('track_id') if isinstance(t, dict) else k}")
                for k, t in enumerate(tracks)
            ]
            ordered = sorted(moves, key=lambda m: (m.start_s, m.end_s))
            report.reordered_objects += ordered != moves
            report.overlapping_pairs += sum(b.start_s < a.end_s for a, b in pairwise(ordered))
            kept = []
            for m in ordered:
                if duration is not None and m.start_s >= duration:
                    report.dropped.append((video, m.id or "?"))
                    continue
                if duration is not None and m.end_s > duration:
                    report.clipped.append((video, m.id or "?", m.end_s, duration))
                    m = m.model_copy(
                        update={"end_s": duration, "meta": m.meta | {"annotated_end_s": m.end_s}}
                    )
                kept.append(m)
            kept.sort(key=lambda m: (m.start_s, m.end_s))
            unnamed = _UNNAMED.fullmatch(name.strip())
            meta: dict = {}
            if unnamed:
                skipped = unnamed.group(1) is not None
                meta = {"unnamed": True, "skipped": True} if skipped else {"unnamed": True}
                report.skipped_objects += skipped
                report.unnamed_objects += not skipped
            objects.append(
                EpisodeObject(id=aid, category=category_of(name), name=name, movements=tuple(kept), meta=meta)
            )
            report.objects += 1
            report.movements += len(kept)
        out[video] = objects
    return out, report
