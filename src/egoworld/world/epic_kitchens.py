"""EPIC-KITCHENS-100 action segments → one episode per video with timestamped atomic actions.

Reads ``EPIC_100_<split>.csv`` (``narration_id, …, start_timestamp, stop_timestamp, start_frame,
stop_frame, narration, verb, verb_class, noun, noun_class, all_nouns, all_noun_classes``) and
``EPIC_100_video_info.csv`` (``video_id, duration, fps, resolution``). Each row becomes an `Action`
(``text`` = the narration, e.g. "take plate"; times from the ``HH:MM:SS.ff`` timestamps; classes,
frames and all nouns in ``meta``), sorted by (start_s, end_s) within its video. Times come from the
timestamps, not the frame numbers: ``start_frame`` / ``stop_frame`` count the extracted RGB frames at
60 fps whatever the video's own fps (29.97, 47.95 and 90 fps videos included). The timestamps have
1/100 s resolution, so a last action can end a few milliseconds after the duration in video_info;
such ends are clipped to the duration (original in ``meta["annotated_end_s"]``).
"""

from __future__ import annotations

import ast
import csv
from collections.abc import Iterator
from pathlib import Path

from egoworld.core.folders.confine import check_name
from egoworld.core.folders.files import InputFileError, open_text
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.numbers import parse_number
from egoworld.world.episode import Action, Episode
from egoworld.world.episode_folder import save_episode

COLUMNS = (
    "narration_id",
    "video_id",
    "start_timestamp",
    "stop_timestamp",
    "start_frame",
    "stop_frame",
    "narration",
)


def parse_timestamp(text: str) -> float:
    """``HH:MM:SS.ff`` (or ``MM:SS.ff`` / seconds) → seconds."""
    parts = text.strip().split(":")
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"not a timestamp: {text!r}")
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + float(parse_number(part, ge=0))
    return seconds


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    with open_text(path) as fh:
        return list(csv.DictReader(fh))


def load_video_info(path: str | Path) -> dict[str, dict]:
    """``video_id → {"duration_s", "fps", "resolution"}``."""
    path = Path(path)
    out = {}
    for lineno, row in enumerate(_read_csv(path), start=2):
        try:
            out[row["video_id"]] = {
                "duration_s": float(parse_number(row["duration"], gt=0)),
                "fps": float(parse_number(row["fps"], gt=0)),
                "resolution": row.get("resolution", ""),
            }
        except (KeyError, ValueError, TypeError) as exc:
            raise InputFileError(f"{path}, line {lineno}: expected video_id, duration, fps ({exc})") from exc
    return out


def _action(row: dict[str, str], where: str) -> Action:
    try:
        start, end = parse_timestamp(row["start_timestamp"]), parse_timestamp(row["stop_timestamp"])
        meta = {
            "participant": row.get("participant_id"),
            "start_frame": parse_number(row["start_frame"], kind="int", ge=0),
            "stop_frame": parse_number(row["stop_frame"], kind="int", ge=0),
            "narration_timestamp_s": parse_timestamp(row["narration_timestamp"])
            if row.get("narration_timestamp")
            else None,
            "verb_class": int(row["verb_class"]) if row.get("verb_class") else None,
            "noun_class": int(row["noun_class"]) if row.get("noun_class") else None,
            "all_nouns": list(ast.literal_eval(row["all_nouns"])) if row.get("all_nouns") else [],
            "all_noun_classes": list(ast.literal_eval(row["all_noun_classes"]))
            if row.get("all_noun_classes")
            else [],
        }
    except (KeyError, ValueError, SyntaxError) as exc:
        raise InputFileError(
            f"{where}: {exc}; expected the EPIC-KITCHENS-100 columns {', '.join(COLUMNS)}"
        ) from exc
    if end < start:
        raise InputFileError(f"{where}: field 'stop_timestamp': {end} s is before start_timestamp {start} s")
    return Action(
        id=row["narration_id"],
        start_s=start,
        end_s=end,
        text=row["narration"],
        verb=row.get("verb") or None,
        noun=row.get("noun") or None,
        meta={k: v for k, v in meta.items() if v is not None},
    )


def load_epic_actions(path: str | Path) -> dict[str, list[Action]]:
    """Actions per video (videos in first-appearance order), each list sorted by (start_s, end_s)."""
    path = Path(path)
    out: dict[str, list[Action]] = {}
    for lineno, row in enumerate(_read_csv(path), start=2):
        out.setdefault(row.get("video_id", ""), []).append(_action(row, f"{path}, line {lineno}"))
    for actions in out.values():
        actions.sort(key=lambda a: (a.start_s, a.end_s, a.meta["start_frame"]))
    return out


def _clip(action: Action, duration_s: float) -> Action:
    if action.end_s <= duration_s:
        return action
    if action.start_s > duration_s:
        raise InputFileError(
            f"action {action.id} starts at {action.start_s} s, after the video ends ({duration_s} s)"
        )
    return action.model_copy(
        update={"end_s": duration_s, "meta": action.meta | {"annotated_end_s": action.end_s}}
    )


def iter_epic_kitchens_episodes(
    root: str | Path, split: str = "validation", videos: list[str] | None = None
) -> Iterator[Episode]:
    """Episodes of the videos in ``EPIC_100_<split>.csv`` under ``root`` (sorted by video id)."""
    root = Path(root)
    actions_csv = root / f"EPIC_100_{split}.csv"
    info_csv = root / "EPIC_100_video_info.csv"
    actions = load_epic_actions(actions_csv)
    info = load_video_info(info_csv)
    wanted = sorted(actions) if videos is None else videos
    files = {actions_csv.name: sha256_file(actions_csv), info_csv.name: sha256_file(info_csv)}
    for video in wanted:
        check_name(video, where=str(actions_csv), field="video_id")
        if video not in actions:
            raise InputFileError(f"{actions_csv}: no actions for video {video!r}")
        if video not in info:
            raise InputFileError(f"{info_csv}: no row for video {video!r}")
        vi = info[video]
        yield Episode(
            id=video,
            duration_s=vi["duration_s"],
            fps=vi["fps"],
            actions=tuple(_clip(a, vi["duration_s"]) for a in actions[video]),
            source={"loader": "epic-kitchens-100", "split": split, "files": files},
            meta={"participant": video.split("_", 1)[0], "resolution": vi["resolution"]},
        )


def import_epic_kitchens(
    root: str | Path, out: str | Path, split: str = "validation", videos: list[str] | None = None
) -> list[Path]:
    """Write one episode folder per video under ``out``."""
    return [save_episode(ep, Path(out) / ep.id) for ep in iter_epic_kitchens_episodes(root, split, videos)]
