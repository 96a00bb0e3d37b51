"""EXPLORE instances: the official annotation schema and its mapping to benchmark samples.

An official instance is ``{"start_frame": "<image name>", "atomic_actions": "C … | C … | …",
"end_frame_info": [{"category", "description", "relation": [..], "key_state"?}, …]}``, optionally with
``middle_frame_<k>_info`` lists of the same objects. In a sample, ``question`` keeps the original action string,
``answer`` holds the reference scenes (``{"final": [...], "middle": [{"objects": [...], "after_action": n}]}``)
and ``metadata`` the facts analyses need (partition, tiny, abnormal, the initial scene when known).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from egoworld.benchmarks.explore import TASK_ABNORMAL, TASK_SCENE, TASK_UNANNOTATED
from egoworld.benchmarks.explore.partitions import partition_of
from egoworld.core.folders.confine import check_name
from egoworld.core.folders.files import InputFileError
from egoworld.core.schema import ImageInput, Media, Sample
from egoworld.world.scene_file import SceneObject

IMAGES_DIR = "images"
_MIDDLE_KEY = re.compile(r"^middle_frame_(\d+)_info$")
_KNOWN = {"start_frame", "atomic_actions", "end_frame_info"}


@dataclass(frozen=True)
class Scene:
    """Objects of one scene; ``after_action`` = how many actions have happened when it holds (None: unknown)."""

    objects: tuple[SceneObject, ...]
    after_action: int | None = None

    def to_json(self) -> list[dict[str, Any]]:
        return [o.to_json() for o in self.objects]


def split_actions(text: str) -> list[str]:
    """The atomic actions of an official ``|``-joined string (pieces kept as written; empty pieces dropped)."""
    return [p for p in text.split("|") if p.strip()]


@dataclass(frozen=True)
class Instance:
    """One EXPLORE instance. ``final`` is None for real sequences without a final annotation."""

    start_frame: str
    actions_text: str
    final: Scene | None
    middle: tuple[Scene, ...] = ()
    initial: Scene | None = None
    image: str | None = None
    cluster: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def actions(self) -> list[str]:
        return split_actions(self.actions_text)

    @property
    def abnormal(self) -> bool:
        return self.final is not None and any(o.key_state for o in self.final.objects)

    @property
    def sample_id(self) -> str:
        return re.sub(r"\.(jpe?g|png|webp|bmp)$", "", self.start_frame, flags=re.IGNORECASE)

    def task(self) -> str:
        if self.final is None:
            return TASK_UNANNOTATED
        return TASK_ABNORMAL if self.abnormal else TASK_SCENE

    def to_sample(self, benchmark: str, *, tiny: bool = False) -> Sample:
        n = len(self.actions)
        answer: dict[str, Any] = {"final": self.final.to_json() if self.final else []}
        if self.middle:
            answer["middle"] = [{"objects": m.to_json(), "after_action": m.after_action} for m in self.middle]
        meta: dict[str, Any] = {
            "start_frame": self.start_frame,
            "n_actions": n,
            "partition": partition_of(n),
            "tiny": tiny,
            "abnormal": self.abnormal,
            "annotated": self.final is not None,
        }
        if self.initial is not None:
            meta["initial_scene"] = self.initial.to_json()
        if self.extra:
            meta["extra"] = self.extra
        media = Media(images=(ImageInput(path=self.image, label="Initial scene"),)) if self.image else Media()
        return Sample(
            id=self.sample_id,
            benchmark=benchmark,
            task=self.task(),
            episode=self.cluster,
            cluster=self.cluster,
            question=self.actions_text,
            answer_type="free",
            answer=answer,
            media=media,
            metadata=meta,
        )


def _objects(items: Any, where: str) -> tuple[SceneObject, ...]:
    if not isinstance(items, list):
        raise InputFileError(f"{where}: expected a list of objects, got {type(items).__name__}")
    return tuple(SceneObject.from_json(o, f"{where}[{i}]") for i, o in enumerate(items))


def instance_from_official(item: Any, where: str, *, with_image: bool = True) -> Instance:
    """Parse one official annotation item; ``where`` names the file and item for errors."""
    if not isinstance(item, dict):
        raise InputFileError(f"{where}: expected an object with start_frame and atomic_actions")
    sf = check_name(item.get("start_frame"), where=where, field="start_frame")
    where = f"{where} (start_frame {sf})"
    acts = item.get("atomic_actions")
    if isinstance(acts, list) and all(isinstance(a, str) for a in acts):
        acts = "|".join(acts)
    if not isinstance(acts, str) or not split_actions(acts):
        raise InputFileError(f"{where}: 'atomic_actions' must be a non-empty '|'-joined string of actions")
    final = None
    if "end_frame_info" in item:
        final = Scene(_objects(item["end_frame_info"], f"{where}: end_frame_info"), after_action=None)
    middles = []
    for key in sorted((k for k in item if _MIDDLE_KEY.match(k)), key=lambda k: int(_MIDDLE_KEY.match(k)[1])):
        middles.append(Scene(_objects(item[key], f"{where}: {key}")))
    extra = {k: v for k, v in item.items() if k not in _KNOWN and not _MIDDLE_KEY.match(k)}
    return Instance(
        start_frame=sf,
        actions_text=acts,
        final=final,
        middle=tuple(middles),
        image=f"{IMAGES_DIR}/{sf}" if with_image else None,
        extra=extra,
    )


def instance_from_sample(sample: Sample) -> Instance:
    """The instance a sample was made from (inverse of `Instance.to_sample`)."""
    ans = sample.answer if isinstance(sample.answer, dict) else {}
    annotated = sample.metadata.get("annotated", bool(ans.get("final")))
    where = f"sample {sample.id}"
    final = Scene(_objects(ans.get("final", []), f"{where}: final")) if annotated else None
    middle = tuple(
        Scene(_objects(m.get("objects", []), f"{where}: middle[{i}]"), after_action=m.get("after_action"))
        for i, m in enumerate(ans.get("middle", []))
    )
    init = sample.metadata.get("initial_scene")
    return Instance(
        start_frame=sample.metadata.get("start_frame", sample.id),
        actions_text=sample.question,
        final=final,
        middle=middle,
        initial=Scene(_objects(init, f"{where}: initial_scene")) if init is not None else None,
        image=sample.media.images[0].path if sample.media.images else None,
        cluster=sample.cluster,
        extra=sample.metadata.get("extra", {}),
    )
