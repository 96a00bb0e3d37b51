"""An annotated scene folder (``egoworld scene annotate``): the final-scene image(s), the action list, the
initial image, and the objects in the official ``end_frame_info`` shape plus their boxes.

``scene.json`` (the pipeline's annotation) and ``corrected.json`` (the same after human correction,
``egoworld scene apply``) share one layout::

    {"version": 1, "images": ["images/final.png"], "initial_image": "images/initial.png" | null,
     "actions": ["C picks up the cup", …],
     "objects": [{"id": "bowl.2", "category": "bowl", "description": "…", "relation": ["on the table"],
                  "key_state"?: "…", "image": 0, "bbox": [x0, y0, x1, y1] | null}, …]}

`to_official` drops ``id``, ``image`` and ``bbox``; `scene_episode` turns a folder into the EXPLORE builder's
`ActionEpisode` (initial image + actions + the corrected final scene).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.benchmarks.explore.build import ActionEpisode
from egoworld.benchmarks.explore.instances import SceneObject
from egoworld.core.files import InputFileError, read_json, write_json
from egoworld.core.folder import check_not_writing

SCENE_FILE = "scene.json"
CORRECTED_FILE = "corrected.json"
VERSION = 1


@dataclass
class AnnotatedScene:
    images: list[str]
    actions: list[str]
    objects: list[dict[str, Any]]
    initial_image: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "images": self.images,
            "initial_image": self.initial_image,
            "actions": self.actions,
            "objects": self.objects,
            **self.extra,
        }

    def to_official(self) -> list[dict[str, Any]]:
        """The objects as EXPLORE's ``end_frame_info`` list."""
        return [scene_object(o, "scene").to_json() for o in self.objects]

    def object(self, oid: str) -> dict[str, Any] | None:
        return next((o for o in self.objects if o.get("id") == oid), None)


def scene_object(obj: dict[str, Any], where: str) -> SceneObject:
    """One object as the official `SceneObject` (validated)."""
    return SceneObject.from_json(
        {k: obj[k] for k in ("category", "description", "relation", "key_state") if k in obj}, where
    )


def load_scene(path: str | Path) -> AnnotatedScene:
    """``scene.json`` / ``corrected.json`` (or a folder: its corrected file, else its scene file)."""
    path = Path(path)
    check_not_writing(path if path.is_dir() else path.parent, "rerun `egoworld scene annotate`")
    if path.is_dir():
        path = path / CORRECTED_FILE if (path / CORRECTED_FILE).is_file() else path / SCENE_FILE
    if not path.is_file():
        raise InputFileError(f"{path}: no annotated scene here; make one with `egoworld scene annotate`")
    data = read_json(path)
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise InputFileError(
            f"{path}: not an annotated scene (version {VERSION} with images, actions, objects)"
        )
    objects = data.get("objects")
    if not isinstance(objects, list):
        raise InputFileError(f"{path}: 'objects' must be a list")
    ids = set()
    for i, o in enumerate(objects):
        scene_object(o, f"{path}, objects[{i}]")
        if not isinstance(o.get("id"), str) or o["id"] in ids:
            raise InputFileError(f"{path}, objects[{i}]: needs a unique string 'id' (e.g. 'bowl.2')")
        ids.add(o["id"])
    known = {"version", "images", "initial_image", "actions", "objects"}
    return AnnotatedScene(
        images=list(data.get("images") or []),
        actions=[str(a) for a in data.get("actions") or []],
        objects=objects,
        initial_image=data.get("initial_image"),
        extra={k: v for k, v in data.items() if k not in known},
    )


def save_scene(path: str | Path, scene: AnnotatedScene) -> Path:
    write_json(path, scene.to_json())
    return Path(path)


def scene_episode(folder: str | Path) -> ActionEpisode:
    """The EXPLORE builder's episode of an annotated, human-corrected scene folder."""
    folder = Path(folder)
    corrected = folder / CORRECTED_FILE
    if not corrected.is_file():
        raise InputFileError(
            f"{folder}: no {CORRECTED_FILE}; review the scene (`egoworld view --scene {folder} --review NAME`) "
            f"and write it with `egoworld scene apply {folder}/reviews/NAME.sqlite`"
        )
    scene = load_scene(corrected)
    if not scene.actions:
        raise InputFileError(f"{corrected}: no actions (annotate with --actions FILE)")
    if not scene.initial_image:
        raise InputFileError(f"{corrected}: no initial image (annotate with --initial IMAGE)")
    objects = tuple(scene_object(o, f"{corrected}, {o.get('id')}") for o in scene.objects)
    return ActionEpisode(
        id=folder.name,
        actions=scene.actions,
        final_scene=objects,
        initial_image=folder / scene.initial_image,
        cluster=folder.name,
    )
