"""Save and load an episode folder (byte-identical for the same content, validated on load).

Layout of ``DIR/`` (media files, written by whoever produced them, sit beside these)::

    episode.json        format, id, duration_s, fps, camera, media, source, meta, counts
    poses.jsonl         {"t": s, "world_from_camera": 4×4}            one pose per line, t increasing
    fixtures.jsonl      {"id", "label", "type", "box": {center, size, rotation}, "openable", ...}
    objects.jsonl       {"id", "category", "name", "movements": [{start_s, end_s, ...}], ...}
    actions.jsonl       {"start_s", "end_s", "text", ...}                sorted by (start_s, end_s)
    scene_graphs.jsonl  {"label", "time_s", "image", "objects": [...]}

JSON keys are sorted and default values left out, so the same episode always gives the same bytes.
Every file is written atomically and ``episode.json`` last; its ``counts`` let the loader detect a folder
whose writing was interrupted. A bad file is refused with `InputFileError` naming the file, the line,
the field and the reason. A world set is a folder of episode folders (`find_episodes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from egoworld.core.folders.confine import MediaRoots
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.loader import FolderKind, MediaRef
from egoworld.core.numbers import Finite, PositiveFloat, Seconds
from egoworld.geometry.cameras import CameraModel
from egoworld.world.episode import (
    Action,
    Episode,
    EpisodeMedia,
    EpisodeObject,
    Fixture,
    SceneGraph,
    episode_problems,
    plain_name,
)
from egoworld.world.poses import PoseTrack

FORMAT = "egoworld.episode/1"
HEADER = "episode.json"
COLLECTIONS: dict[str, tuple[str, type[BaseModel]]] = {
    "fixtures": ("fixtures.jsonl", Fixture),
    "objects": ("objects.jsonl", EpisodeObject),
    "actions": ("actions.jsonl", Action),
    "scene_graphs": ("scene_graphs.jsonl", SceneGraph),
}
POSES = "poses.jsonl"
FOLDER = FolderKind(
    header=HEADER,
    noun="episode",
    holds="episode.json and *.jsonl files",
    create="`egoworld world import …` or `egoworld world synth …`",
    resave="re-save the episode",
)


class EpisodeHeader(BaseModel):
    """Contents of ``episode.json``."""

    model_config = ConfigDict(extra="forbid")

    format: str = FORMAT
    id: str = Field(min_length=1)
    duration_s: PositiveFloat
    fps: PositiveFloat
    camera: CameraModel | None = None
    media: EpisodeMedia = EpisodeMedia()
    source: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_is_a_name(cls, v: str) -> str:
        return plain_name(v)


class PoseRow(BaseModel):
    """One line of ``poses.jsonl``."""

    model_config = ConfigDict(extra="forbid")

    t: Seconds
    world_from_camera: tuple[tuple[Finite, Finite, Finite, Finite], ...] = Field(min_length=4, max_length=4)


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_defaults=True)


def save_episode(episode: Episode, root: str | Path) -> Path:
    """Write ``episode`` into folder ``root`` (created if needed); returns ``root``."""
    root = Path(root)
    rows: dict[str, Iterable[Any]] = {
        filename: (_dump(item) for item in getattr(episode, name))
        for name, (filename, _) in COLLECTIONS.items()
    }
    rows[POSES] = episode.poses.to_rows() if episode.poses is not None else []
    names = {filename: name for name, (filename, _) in COLLECTIONS.items()} | {POSES: "poses"}

    def header(counts: dict[str, int]) -> dict[str, Any]:
        head = EpisodeHeader(
            id=episode.id,
            duration_s=episode.duration_s,
            fps=episode.fps,
            camera=episode.camera,
            media=episode.media,
            source=episode.source,
            meta=episode.meta,
            counts=dict(sorted((names[f], n) for f, n in counts.items())),
        )
        doc = head.model_dump(mode="json", exclude_defaults=True) | {"format": FORMAT}
        if episode.camera is not None:  # in full: its "kind" tag is a default value
            doc["camera"] = episode.camera.model_dump(mode="json")
        return doc

    FOLDER.save(root, rows, header)
    return root


def load_episode(root: str | Path) -> Episode:
    """Load and validate an episode folder; problems raise `InputFileError` (file, line, field, reason)."""
    root = Path(root)
    header = FOLDER.read_header(root, EpisodeHeader)
    if header.format != FORMAT:
        raise InputFileError(f"{root / HEADER}: field 'format': {header.format!r} is not {FORMAT!r}")
    parts: dict[str, Any] = {}
    lines: dict[str, list[int]] = {}
    for name, (filename, model) in COLLECTIONS.items():
        parts[name], lines[name] = FOLDER.read_rows(
            root / filename, model, expected=header.counts.get(name), optional=True
        )
    _check_media(root, header.media, parts["scene_graphs"], lines["scene_graphs"])
    pose_rows, _ = FOLDER.read_rows(root / POSES, PoseRow, expected=header.counts.get("poses"), optional=True)
    poses = None
    if pose_rows:
        try:
            poses = PoseTrack([r.t for r in pose_rows], [r.world_from_camera for r in pose_rows])
        except ValueError as exc:
            raise InputFileError(f"{root / POSES}: {exc}") from exc
    fields = dict(
        id=header.id,
        duration_s=header.duration_s,
        fps=header.fps,
        camera=header.camera,
        poses=poses,
        media=header.media,
        source=header.source,
        meta=header.meta,
        **{k: tuple(v) for k, v in parts.items()},
    )
    problems = episode_problems(Episode.model_construct(**fields))
    if problems:
        where, field, reason = problems[0]
        name, index = where.rstrip("]").split("[")
        filename = COLLECTIONS[name][0]
        raise InputFileError(f"{root / filename}, line {lines[name][int(index)]}: field '{field}': {reason}")
    return Episode(**fields)


def _check_media(root: Path, media: EpisodeMedia, graphs: list[SceneGraph], lines: list[int]) -> None:
    """Every media path of the episode resolves inside its folder or a root ``media.roots`` declares."""
    refs = [MediaRef(path, str(root / HEADER), f"media.{field}") for field, path in media.paths()]
    graphs_file = root / COLLECTIONS["scene_graphs"][0]
    refs += [
        MediaRef(graph.image, f"{graphs_file}, line {lineno}", "image")
        for graph, lineno in zip(graphs, lines, strict=True)
        if graph.image
    ]
    FOLDER.confine(MediaRoots(root, media.roots), refs)


def find_episodes(root: str | Path) -> list[Path]:
    """Episode folders at or below ``root`` (sorted); ``root`` itself if it is one."""
    root = Path(root)
    if (root / HEADER).is_file():
        return [root]
    return sorted(p.parent for p in root.rglob(HEADER))


def iter_episodes(root: str | Path) -> Iterator[Episode]:
    """Load every episode of a world set, in folder order."""
    for folder in find_episodes(root):
        yield load_episode(folder)
