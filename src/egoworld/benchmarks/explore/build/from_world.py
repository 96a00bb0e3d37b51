"""EXPLORE instances from world episodes (`egoworld.world`): recorded or synthetic action scenes.

An episode gives its ordered action texts, its scene graphs and its images. The final scene is the graph
labelled ``final`` (else the latest one); the initial scene the graph labelled ``initial`` (else one at or before
the first action); graphs in between become middle scenes placed after the actions that ended by their time.
The initial image is the initial graph's ``image``, else ``media.images["initial"]`` (paths relative to the
episode folder). An episode without scene graphs becomes an unannotated instance (inference and cost only).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from egoworld.benchmarks.explore.build.builder import ActionEpisode, build_from_episodes
from egoworld.benchmarks.explore.instances import SceneObject
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.world.scene_file import CORRECTED_FILE, load_scene, scene_object


def _objects(graph: Any, *, end_frame: bool = True) -> tuple[SceneObject, ...]:
    """The annotation of a scene: what its image shows, so objects a world marks as not visible (e.g. inside a
    closed fridge: ``attributes["visible"] == "no"``) are left out, as EXPLORE annotates the end frame; an
    end frame (``end_frame``) also leaves out what no action touched (``attributes["touched"] == "no"``)."""
    return tuple(
        SceneObject(
            category=o.category,
            description=o.description,
            relations=tuple(o.relations),
            key_state=o.key_state or None,
        )
        for o in graph.objects
        if (getattr(o, "attributes", None) or {}).get("visible") != "no"
        and not (end_frame and (getattr(o, "attributes", None) or {}).get("touched") == "no")
    )


def action_episode(ep: Any, folder: str | Path) -> ActionEpisode:
    """An `ActionEpisode` from an `egoworld.world.Episode` stored in ``folder``."""
    if not ep.actions:
        raise InputFileError(f"{folder}: episode {ep.id} has no actions")
    actions = [a.text for a in ep.actions]
    graphs = list(ep.scene_graphs)
    final = next((g for g in graphs if g.label == "final"), None)
    if final is None and graphs:
        timed = [g for g in graphs if g.time_s is not None]
        final = max(timed, key=lambda g: g.time_s) if timed else graphs[-1]
    first_start = ep.actions[0].start_s
    initial = next((g for g in graphs if g.label == "initial"), None)
    if initial is None:
        initial = next(
            (g for g in graphs if g is not final and g.time_s is not None and g.time_s <= first_start), None
        )
    middles = []
    for g in graphs:
        if g is final or g is initial or g.time_s is None:
            continue
        done = sum(a.end_s <= g.time_s for a in ep.actions)
        if 0 < done < len(actions):
            middles.append((done, _objects(g)))
    image = (initial.image if initial is not None else None) or ep.media.images.get("initial")
    image_path = None
    if image:
        image_path = Path(image) if Path(image).is_absolute() else Path(folder) / image
    return ActionEpisode(
        id=ep.id,
        actions=actions,
        final_scene=_objects(final) if final is not None else None,
        initial_image=image_path,
        initial_scene=_objects(initial, end_frame=False) if initial is not None else None,
        middle_scenes=sorted(middles, key=lambda m: m[0]),
        cluster=str(ep.meta.get("video_id") or ep.id),
    )


def build_from_world(
    roots: Iterable[str | Path], out: str | Path, *, seed: int = 0, tiny_size: int = 100
) -> Benchmark:
    """One instance per episode folder found under ``roots``."""
    from egoworld.world.episode_folder import find_episodes, load_episode

    episodes = []
    sources = []
    for root in roots:
        folders = find_episodes(root)
        if not folders:
            raise InputFileError(f"{root}: no episode folders (episode.json) here")
        for folder in folders:
            episodes.append(action_episode(load_episode(folder), folder))
            sources.append(str(folder))
    return build_from_episodes(
        episodes,
        out,
        seed=seed,
        tiny_size=tiny_size,
        builder={"builder": "explore-world", "episodes": len(sources)},
    )


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
