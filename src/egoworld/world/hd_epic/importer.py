"""Assemble HD-EPIC episodes from the public annotation folder and write them as a world set.

Expected layout under ``root`` (the public ``hd-epic-annotations`` tree plus the extra files named in
``../shared/data/hd-epic/README.md``)::

    scene-and-object-movements/assoc_info.json          objects and their movement times (all videos)
    scene-and-object-movements/mask_info.json           optional: 3D location, fixture and box per mask
    youtube-links/HD_EPIC_YouTube_URLs.csv              video list and durations
    high-level/activities/PXX_recipe_timestamps.csv     optional: high-level activities → meta["activities"]
    digital-twin/PXX_final.glb                          optional: fixtures of kitchen PXX
    intermediate-data/PXX/<video>/{device_calibration.json,framewise_info.jsonl}   optional: camera + poses

One episode per video (id = video id, 30 fps). With ``mask_info.json`` every movement gets its start /
end position, fixture and box (`egoworld.world.hd_epic.masks`); with the kitchen's digital twin the
episode gets its fixtures and, as ``media.extra["mesh"]`` (a copy of the GLB in the episode folder), the
mesh that visibility tracks test occlusion against. Videos themselves are not public; pass ``video_dir`` to
reference ``<video_dir>/<PXX>/<video>.mp4`` (or ``<video_dir>/<video>.mp4``) where it exists.
"""

from __future__ import annotations

import csv
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from egoworld.core.folders.confine import check_name
from egoworld.core.folders.files import InputFileError, open_text
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import begin_write
from egoworld.world.episode import Episode, EpisodeMedia, Fixture
from egoworld.world.episode_folder import save_episode
from egoworld.world.hd_epic.aria import HD_EPIC_FPS, load_framewise_poses, load_rgb_camera
from egoworld.world.hd_epic.fixtures import load_digital_twin
from egoworld.world.hd_epic.masks import MASKS, MaskReport, load_mask_info, locate_movements
from egoworld.world.hd_epic.tracks import TrackReport, load_assoc_info, read_durations

ASSOC = "scene-and-object-movements/assoc_info.json"
DURATIONS = "youtube-links/HD_EPIC_YouTube_URLs.csv"
MESH_FILE = "digital_twin.glb"


def _activities(root: Path, participant: str, durations: dict[str, float]) -> dict[str, list[dict]]:
    """High-level activities per video; an end time of ``end`` means the end of the video. Rows whose
    video id is not a known video are skipped (``P09_recipe_timestamps.csv`` line 153 reads
    ``P09-2024623-154547``)."""
    path = root / "high-level" / "activities" / f"{participant}_recipe_timestamps.csv"
    out: dict[str, list[dict]] = {}
    if not path.is_file():
        return out
    with open_text(path) as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            video = row.get("video_id", "")
            if video not in durations:
                continue
            try:
                start = float(row["start_time"])
                end = durations[video] if row["end_time"].strip() == "end" else float(row["end_time"])
            except (KeyError, ValueError) as exc:
                raise InputFileError(
                    f"{path}, line {lineno}: start_time / end_time must be seconds (or 'end'): {exc}"
                ) from exc
            out.setdefault(video, []).append(
                {
                    "start_s": start,
                    "end_s": end,
                    "label": row["high_level_activity_label"],
                    "recipe_id": row["recipe_id"] or None,
                }
            )
    return out


def _video_path(video_dir: Path | None, participant: str, video: str) -> str | None:
    if video_dir is None:
        return None
    for candidate in (video_dir / participant / f"{video}.mp4", video_dir / f"{video}.mp4"):
        if candidate.is_file():
            return str(candidate.resolve())
    return None


def _media(video_dir: Path | None, participant: str, video: str, extra: dict | None = None) -> EpisodeMedia:
    """The episode's video under ``video_dir``, which is declared as a media root (`egoworld.core.folders.confine`);
    ``extra``: files inside the episode folder (the digital-twin mesh)."""
    path = _video_path(video_dir, participant, video)
    if path is None or video_dir is None:
        return EpisodeMedia(extra=extra or {})
    return EpisodeMedia(video=path, roots=(os.path.realpath(video_dir),), extra=extra or {})


def iter_hd_epic_episodes(
    root: str | Path,
    videos: list[str] | None = None,
    video_dir: str | Path | None = None,
    mask_report: MaskReport | None = None,
) -> Iterator[Episode]:
    """Episodes for ``videos`` (default: every video in assoc_info.json), in file order; what joining
    ``mask_info.json`` found is added to ``mask_report``."""
    root = Path(root)
    durations = read_durations(root / DURATIONS)
    objects, _ = load_assoc_info(root / ASSOC, durations)
    wanted = list(objects) if videos is None else videos
    for video in wanted:  # ids name folders and files: never let one point elsewhere
        check_name(video, where=str(root / ASSOC), field="video id")
    unknown = [v for v in wanted if v not in objects]
    if unknown:
        raise InputFileError(
            f"{root / ASSOC}: no video {', '.join(unknown[:5])} (ids look like P01-20240202-110250)"
        )
    no_duration = [v for v in wanted if v not in durations]
    if no_duration:
        raise InputFileError(
            f"{root / DURATIONS}: no row for video {', '.join(no_duration[:5])}"
            f"{f' (and {len(no_duration) - 5} more)' if len(no_duration) > 5 else ''}, which {ASSOC} lists; "
            "use the CSV of the same HD-EPIC release, or import only the videos it has (--videos)"
        )
    assoc_sha = sha256_file(root / ASSOC)
    masks = load_mask_info(root / MASKS, set(wanted)) if (root / MASKS).is_file() else None
    mask_sha = sha256_file(root / MASKS) if masks is not None else None
    mask_report = mask_report if mask_report is not None else MaskReport()
    twins: dict[str, list[Fixture]] = {}
    activities: dict[str, dict[str, list[dict]]] = {}
    for video in wanted:
        participant = video.split("-", 1)[0]
        files = {ASSOC: assoc_sha}
        if participant not in twins:
            glb = root / "digital-twin" / f"{participant}_final.glb"
            twins[participant] = load_digital_twin(glb, participant) if glb.is_file() else []
            activities[participant] = _activities(root, participant, durations)
        extra = {}
        if twins[participant]:
            rel = f"digital-twin/{participant}_final.glb"
            files[rel] = sha256_file(root / rel)
            extra["mesh"] = MESH_FILE
        video_objects = list(objects[video])
        if masks is not None:
            files[MASKS] = mask_sha
            fixture_ids = {f.id for f in twins[participant]}
            video_objects = locate_movements(
                video, video_objects, masks.get(video, {}), fixture_ids, HD_EPIC_FPS, mask_report
            )
        camera = poses = None
        inter = root / "intermediate-data" / participant / video
        if (inter / "device_calibration.json").is_file() and (inter / "framewise_info.jsonl").is_file():
            camera, device_from_camera = load_rgb_camera(inter / "device_calibration.json")
            poses = load_framewise_poses(inter / "framewise_info.jsonl", device_from_camera, HD_EPIC_FPS)
            for name in ("device_calibration.json", "framewise_info.jsonl"):
                rel = f"intermediate-data/{participant}/{video}/{name}"
                files[rel] = sha256_file(root / rel)
        meta = {"participant": participant}
        if activities[participant].get(video):
            meta["activities"] = activities[participant][video]
        yield Episode(
            id=video,
            duration_s=durations[video],
            fps=HD_EPIC_FPS,
            camera=camera,
            poses=poses,
            fixtures=tuple(twins[participant]),
            objects=tuple(video_objects),
            media=_media(Path(video_dir) if video_dir else None, participant, video, extra),
            source={"loader": "hd-epic", "files": files},
            meta=meta,
        )


def import_hd_epic(
    root: str | Path, out: str | Path, videos: list[str] | None = None, video_dir: str | Path | None = None
) -> tuple[list[Path], TrackReport]:
    """Write one episode folder per video under ``out`` (with a copy of the kitchen's digital twin where
    there is one); returns the folders and the track report (``report.masks``: the mask_info join)."""
    root, out = Path(root), Path(out)
    _, report = load_assoc_info(root / ASSOC, read_durations(root / DURATIONS))
    report.masks = MaskReport() if (root / MASKS).is_file() else None
    folders = []
    for ep in iter_hd_epic_episodes(root, videos, video_dir, report.masks):
        folder = begin_write(out / ep.id, "world import hd-epic")
        if ep.media.extra.get("mesh"):
            participant = ep.meta["participant"]
            shutil.copyfile(root / "digital-twin" / f"{participant}_final.glb", folder / MESH_FILE)
        folders.append(save_episode(ep, folder))
    return folders, report
