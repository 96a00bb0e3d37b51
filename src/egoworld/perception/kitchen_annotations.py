"""A kitchen's annotations that perception does not make: object movements, fixtures, the camera model.

``--movements FILE`` of ``egoworld world perceive --kind kitchen`` is either

* an objects JSON Lines file in the episode folder's own spelling (``objects.jsonl``: one object a line,
  ``id``, ``category``, ``name``, ``initial_position``, ``movements`` with ``start_s`` / ``end_s`` and their
  positions and fixtures), as `write_annotations` exports it from any episode (a synthetic kitchen), or
* HD-EPIC's ``assoc_info.json`` (objects and movement times keyed by video id; the episode's id picks the
  video), read by `egoworld.world.hd_epic.tracks.load_assoc_info`; a ``mask_info.json`` beside it gives
  each movement its start / end position, fixture and box (`egoworld.world.hd_epic.masks`), without
  which no movement has a position and no anchor builds.

Positions are in the frame of the annotations, so the camera trajectory must be given in that frame
(``--trajectory FILE``: an Aria MPS trajectory, as HD-EPIC's are).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from egoworld.core.folders.files import InputFileError, read_json, write_jsonl
from egoworld.world.episode import Episode, EpisodeObject, Fixture
from egoworld.world.episode_folder import FOLDER

if TYPE_CHECKING:
    from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera

ANNOTATIONS = ("objects.jsonl", "fixtures.jsonl", "camera.json")
FIX = ("give --movements an objects JSONL (one object a line: id, category, name, initial_position, movements "
       "[{start_s, end_s, start_position, end_position}]) or HD-EPIC's assoc_info.json")  # fmt: skip


def read_movements(
    path: str | Path, episode: str, fixture_ids: Collection[str] = frozenset()
) -> list[EpisodeObject]:
    """The annotated objects and movements of ``episode`` (see the module docstring); ``fixture_ids``: the
    fixtures HD-EPIC masks may name."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: no such movements file; {FIX}")
    if path.suffix == ".json":
        from egoworld.world.hd_epic.tracks import load_assoc_info

        by_video, _ = load_assoc_info(path)
        if episode not in by_video:
            raise InputFileError(f"{path}: no video {episode!r} in this assoc_info.json (it has "
                                 f"{len(by_video)} videos); name the video file after its HD-EPIC video id")  # fmt: skip
        masks_file = path.parent / "mask_info.json"
        if not masks_file.is_file():
            return by_video[episode]
        from egoworld.world.hd_epic.aria import HD_EPIC_FPS
        from egoworld.world.hd_epic.masks import MaskReport, load_mask_info, locate_movements

        masks = load_mask_info(masks_file, {episode}).get(episode, {})
        return locate_movements(
            episode, by_video[episode], masks, set(fixture_ids), HD_EPIC_FPS, MaskReport()
        )
    objects, _ = FOLDER.read_rows(path, EpisodeObject)
    if not objects:
        raise InputFileError(f"{path}: no objects; {FIX}")
    return objects


def read_fixtures(path: str | Path) -> list[Fixture]:
    """Fixture boxes (``fixtures.jsonl`` spelling) for occlusion and the fixture questions."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(
            f"{path}: no such fixtures file; give --fixtures a fixtures JSONL (id, label, type, box)"
        )
    return FOLDER.read_rows(path, Fixture)[0]


def read_camera(path: str | Path) -> PinholeCamera | FisheyeCamera | EquirectCamera:
    """A camera model (``episode.json``'s ``camera`` spelling: pinhole, fisheye or equirect)."""
    from pydantic import TypeAdapter

    from egoworld.geometry.cameras import CameraModel

    path = Path(path)
    if not path.is_file():
        raise InputFileError(
            f"{path}: no such camera file; give --camera a JSON camera model (kind, width, height, fx, …)"
        )
    from pydantic import ValidationError

    from egoworld.core.folders.files import explain_validation

    data = read_json(path)
    kinds = "pinhole, fisheye, equirect"
    if not isinstance(data, dict) or data.get("kind") is None:
        raise InputFileError(f"{path}: field 'kind' is missing; add \"kind\": one of {kinds} (the camera "
                             "model, as episode.json's camera spells it)")  # fmt: skip
    try:
        return TypeAdapter(CameraModel).validate_python(data)
    except ValidationError as exc:
        raise InputFileError(
            f"{path}: {explain_validation(exc)}; write the camera as episode.json spells it"
        ) from None


def write_annotations(episode: Episode, out: str | Path) -> Path:
    """Export what a kitchen user annotates (objects and movements, fixtures, camera calibration) into
    ``out`` as ``objects.jsonl``, ``fixtures.jsonl`` and ``camera.json``; no poses, no visibility."""
    import json

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(
        out / "objects.jsonl", (o.model_dump(mode="json", exclude_defaults=True) for o in episode.objects)
    )
    write_jsonl(
        out / "fixtures.jsonl", (f.model_dump(mode="json", exclude_defaults=True) for f in episode.fixtures)
    )
    if episode.camera is not None:
        text = json.dumps(episode.camera.model_dump(mode="json"), sort_keys=True, indent=2)
        (out / "camera.json").write_text(text + "\n")
    return out
