"""An annotated scene folder (``egoworld scene annotate``): the final-scene image(s), the action list, the
initial image, and the objects in the official ``end_frame_info`` shape plus their boxes.

``scene.json`` (the pipeline's annotation) and ``corrected.json`` (the same after human correction,
``egoworld scene apply``) share one layout::

    {"version": 1, "images": ["images/final.png"], "initial_image": "images/initial.png" | null,
     "actions": ["C picks up the cup", …],
     "objects": [{"id": "bowl.2", "category": "bowl", "description": "…", "relation": ["on the table"],
                  "key_state"?: "…", "image": 0, "bbox": [x0, y0, x1, y1] | null}, …]}

`SceneObject` is one object in the official shape (validated); `to_official` drops ``id``, ``image`` and
``bbox``. The EXPLORE builder turns a corrected folder into an episode
(`egoworld.benchmarks.explore.build.from_world.scene_episode`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_json, write_json
from egoworld.core.folders.loader import check_not_writing

SCENE_FILE = "scene.json"
CORRECTED_FILE = "corrected.json"
VERSION = 1


@dataclass(frozen=True)
class SceneObject:
    """One annotated object of a scene."""

    category: str
    description: str
    relations: tuple[str, ...] = ()
    key_state: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "category": self.category,
            "description": self.description,
            "relation": list(self.relations),
        }
        if self.key_state:
            out["key_state"] = self.key_state
        return out

    @classmethod
    def from_json(cls, obj: Any, where: str) -> SceneObject:
        if not isinstance(obj, dict):
            raise InputFileError(f"{where}: an object must be a JSON object with 'category', got {obj!r:.80}")
        cat = obj.get("category")
        if not isinstance(cat, str) or not cat.strip():
            raise InputFileError(f"{where}: 'category' must be a non-empty string, got {cat!r}")
        desc = obj.get("description", "")
        if not isinstance(desc, str):
            raise InputFileError(f"{where} ({cat}): 'description' must be a string, got {desc!r:.80}")
        rel = obj.get("relation", [])
        if rel is None:
            rel = []
        elif isinstance(rel, str):
            rel = [rel]
        if not isinstance(rel, list) or not all(isinstance(r, str) for r in rel):
            raise InputFileError(f"{where} ({cat}): 'relation' must be a list of strings, got {rel!r:.80}")
        ks = obj.get("key_state")
        if ks is not None and not isinstance(ks, str):
            raise InputFileError(f"{where} ({cat}): 'key_state' must be a string, got {ks!r:.80}")
        return cls(
            category=cat.strip(),
            description=desc.strip(),
            relations=tuple(r.strip() for r in rel if r.strip()),
            key_state=ks.strip() if ks and ks.strip() else None,
        )


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
