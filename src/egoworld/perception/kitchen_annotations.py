"""A kitchen's annotations that perception does not make: object movements, fixtures, the camera model.

``--movements FILE`` of ``egoworld world perceive --kind kitchen`` is one of

* an objects JSON Lines file in the episode folder's own spelling (``objects.jsonl``: one object a line,
  ``id``, ``category``, ``name``, ``initial_position``, ``movements`` with ``start_s`` / ``end_s`` and their
  positions and fixtures), as `write_annotations` exports it from any episode (a synthetic kitchen), or
* HD-EPIC's ``assoc_info.json`` (objects and movement times keyed by video id; the episode's id picks the
  video), read by `egoworld.world.hd_epic.tracks.load_assoc_info`; a ``mask_info.json`` beside it gives
  each movement its start / end position, fixture and box (`egoworld.world.hd_epic.masks`), without
  which no movement has a position and no anchor builds, or
* a movements CSV, one movement a row (`egoworld.perception.kitchen_tables`; ``--fixtures`` may be its
  fixtures CSV).

``egoworld world annotations`` writes any of them as ``objects.jsonl``, with ``fixtures.jsonl`` and a
``camera.json`` made from its camera flags (`write_annotation_files`).

Positions are in the frame of the annotations, so the camera trajectory is given in that frame
(``--trajectory FILE``: an Aria MPS trajectory, as HD-EPIC's are) or carried into it by ``--align``
(`egoworld.perception.video.trajectory_align`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from egoworld.core.folders.files import InputFileError, read_json, write_jsonl
from egoworld.world.episode import Episode, EpisodeObject, Fixture
from egoworld.world.episode_folder import FOLDER

if TYPE_CHECKING:
    from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera

ANNOTATIONS = ("objects.jsonl", "fixtures.jsonl", "camera.json")
FIX = ("give --movements an objects JSONL (one object a line: id, category, name, initial_position, movements "
       "[{start_s, end_s, start_position, end_position}]), a movements CSV or HD-EPIC's assoc_info.json")  # fmt: skip


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
    if path.suffix.lower() == ".csv":
        from egoworld.perception.kitchen_tables import read_movement_table

        return read_movement_table(path, fixture_ids)
    objects, _ = FOLDER.read_rows(path, EpisodeObject)
    if not objects:
        raise InputFileError(f"{path}: no objects; {FIX}")
    return objects


def read_fixtures(path: str | Path) -> list[Fixture]:
    """Fixture boxes (``fixtures.jsonl`` spelling, or a fixtures CSV) for occlusion and the fixture questions."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(
            f"{path}: no such fixtures file; give --fixtures a fixtures JSONL (id, label, type, box) or CSV"
        )
    if path.suffix.lower() == ".csv":
        from egoworld.perception.kitchen_tables import read_fixture_table

        return read_fixture_table(path)
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


def pinhole_from_flags(
    fov_deg: float | None, pinhole: str | None, size: tuple[int, int] | None
) -> PinholeCamera | None:
    """``--camera-fov DEG`` over the frame ``size`` (width, height) or ``--camera-pinhole fx,fy,cx,cy,width,height``
    as a pinhole camera; None when neither is given."""
    from egoworld.geometry.cameras import PinholeCamera

    if fov_deg is not None and pinhole is not None:
        raise ValueError("give --camera-fov or --camera-pinhole, not both")
    if fov_deg is not None:
        if not 0 < fov_deg < 180:
            raise ValueError(
                f"--camera-fov {fov_deg:g}: a pinhole's horizontal field of view is between 0 and 180°"
            )
        if size is None:
            raise ValueError("--camera-fov needs the frame size: give --video (the kitchen video)")
        return PinholeCamera.from_fov(size[0], size[1], fov_deg)
    if pinhole is None:
        return None
    parts = [p.strip() for p in pinhole.split(",")]
    fix = "write --camera-pinhole fx,fy,cx,cy,width,height (pixels), e.g. 600,600,639.5,359.5,1280,720"
    try:
        fx, fy, cx, cy, w, h = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"--camera-pinhole {pinhole!r}: expected 6 numbers; {fix}") from None
    if not all(np.isfinite([fx, fy, cx, cy, w, h])) or min(fx, fy, w, h) <= 0 or w != int(w) or h != int(h):
        raise ValueError(f"--camera-pinhole {pinhole!r}: focal lengths and size must be positive, the size whole "
                         f"pixels; {fix}")  # fmt: skip
    return PinholeCamera(fx=fx, fy=fy, cx=cx, cy=cy, width=int(w), height=int(h))


def write_annotation_files(
    out: str | Path,
    objects: Collection[EpisodeObject],
    fixtures: Collection[Fixture] | None,
    camera: PinholeCamera | FisheyeCamera | EquirectCamera | None,
) -> list[Path]:
    """``objects.jsonl`` and, when given, ``fixtures.jsonl`` and ``camera.json`` in ``out``; the paths."""
    from egoworld.core.folders.files import write_json

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "objects.jsonl"]
    write_jsonl(paths[0], (o.model_dump(mode="json", exclude_defaults=True) for o in objects))
    if fixtures is not None:
        paths.append(out / "fixtures.jsonl")
        write_jsonl(paths[-1], (f.model_dump(mode="json", exclude_defaults=True) for f in fixtures))
    if camera is not None:
        paths.append(out / "camera.json")
        write_json(paths[-1], camera.model_dump(mode="json"))
    return paths


def write_annotations(episode: Episode, out: str | Path) -> Path:
    """Export what a kitchen user annotates (objects and movements, fixtures, camera calibration) into
    ``out`` as ``objects.jsonl``, ``fixtures.jsonl`` and ``camera.json``; no poses, no visibility."""
    write_annotation_files(out, episode.objects, episode.fixtures, episode.camera)
    return Path(out)
