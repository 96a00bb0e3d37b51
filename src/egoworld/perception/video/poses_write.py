"""Write a perceived trajectory into an episode folder: ``poses.jsonl`` and its provenance in
``episode.json`` ``meta["perception"]["poses"]`` (backend, version, settings, ``metric``, registration)."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.folders.files import InputFileError
from egoworld.media.index import probe
from egoworld.perception.video.trajectory import Trajectory
from egoworld.world.episode import Episode, EpisodeMedia
from egoworld.world.episode_folder import HEADER, load_episode, save_episode


def perception_meta(meta: dict, field: str, record: dict) -> dict:
    """``meta`` with ``meta["perception"][field] = record`` (other fields kept)."""
    return meta | {"perception": dict(meta.get("perception", {})) | {field: record}}


def write_poses(folder: str | Path, trajectory: Trajectory, *, video: str | Path | None = None) -> Path:
    """Put ``trajectory`` into the episode at ``folder``; without an ``episode.json`` there, ``video``
    (inside ``folder``) makes a new episode named after the folder."""
    folder = Path(folder)
    record = trajectory.provenance.record() | trajectory.summary()
    if (folder / HEADER).is_file():
        ep = load_episode(folder)
        meta = perception_meta(ep.meta, "poses", record)
        ep = ep.model_copy(update={"poses": trajectory.track(), "meta": meta})
    elif video is not None:
        video = Path(video)
        try:
            rel = video.resolve().relative_to(folder.resolve())
        except ValueError:
            raise InputFileError(f"{video}: the video must lie inside the episode folder {folder}; "
                                 "copy or link it there") from None  # fmt: skip
        index = probe(video)
        ep = Episode(
            id=folder.name,
            duration_s=max(index.end_s, float(trajectory.times_s[-1])) or 1.0,
            fps=index.avg_fps or 1.0,
            poses=trajectory.track(),
            media=EpisodeMedia(video=str(rel)),
            source={"loader": "egoworld.perception", "kind": "walk"},
            meta=perception_meta({}, "poses", record),
        )
    else:
        raise InputFileError(f"{folder / HEADER}: not found; pass the video to start a new episode")
    save_episode(ep, folder)
    return folder
