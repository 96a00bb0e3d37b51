"""Agreement of an annotated scene with an exact scene graph (a synthetic action scene's final graph).

Objects are paired within a category (names normalised as the tag filter does), each truth object with the
annotated one whose attributes agree most (greedy, ties by order). Figures:

* object recall = paired truth objects / truth objects; precision = paired annotated objects / annotated ones;
* attribute agreement = share of equal values over the attributes both sides name (colour, size, state, …;
  ``material`` of the truth is compared with ``texture``), over paired objects;
* relation recall / precision = relation strings found on both sides (``on the table``) over the truth's /
  the annotation's relations of paired objects.

The truth is the graph's objects the image shows (``attributes["visible"] != "no"``, as EXPLORE annotates the
end frame); `final_truth` renders that final image of a synthetic episode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from egoworld.scene_annotation.tag_rules import normalise

COMPARED = {"colour": "colour", "size": "size", "state": "state", "material": "texture", "shape": "shape"}


def _attrs(obj: dict[str, Any]) -> dict[str, str]:
    a = obj.get("attributes") or {}
    return {k: str(v).strip().lower() for k, v in a.items() if str(v).strip()}


def _agree(truth: dict[str, str], mine: dict[str, str]) -> tuple[int, int]:
    same = total = 0
    for t_key, m_key in COMPARED.items():
        if t_key in truth and m_key in mine:
            total += 1
            same += truth[t_key] == mine[m_key]
    return same, total


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def compare_scene(objects: list[dict[str, Any]], truth: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the module docstring for annotated ``objects`` against ``truth`` (graph objects)."""
    truth = [t for t in truth if _attrs(t).get("visible") != "no"]
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    free = list(objects)
    for t in truth:
        cat = normalise(t["category"])
        cands = [o for o in free if normalise(o["category"]) == cat]
        if not cands:
            continue
        best = max(cands, key=lambda o: _agree(_attrs(t), _attrs(o))[0])
        free.remove(best)
        pairs.append((t, best))
    same = total = rel_hit_t = rel_t = rel_hit_m = rel_m = 0
    for t, o in pairs:
        s, n = _agree(_attrs(t), _attrs(o))
        same, total = same + s, total + n
        tr = {r.strip().lower() for r in t.get("relations", t.get("relation", []))}
        mr = {r.strip().lower() for r in o.get("relation", [])}
        rel_hit_t, rel_t = rel_hit_t + len(tr & mr), rel_t + len(tr)
        rel_hit_m, rel_m = rel_hit_m + len(mr & tr), rel_m + len(mr)
    return {
        "truth_objects": len(truth),
        "annotated_objects": len(objects),
        "paired": len(pairs),
        "object_recall": _ratio(len(pairs), len(truth)),
        "object_precision": _ratio(len(pairs), len(objects)),
        "attribute_agreement": _ratio(same, total),
        "attributes_compared": total,
        "relation_recall": _ratio(rel_hit_t, rel_t),
        "relation_precision": _ratio(rel_hit_m, rel_m),
        "missed": sorted(t.get("id") or t["category"] for t in truth if all(t is not p[0] for p in pairs)),
        "extra": sorted(o.get("id") or o["category"] for o in free),
    }


def final_graph(episode_folder: str | Path) -> list[dict[str, Any]]:
    """The objects of an episode's ``final`` scene graph (else its latest), as JSON."""
    from egoworld.core.folders.files import InputFileError
    from egoworld.world.episode_folder import load_episode

    ep = load_episode(episode_folder)
    graphs = list(ep.scene_graphs)
    if not graphs:
        raise InputFileError(f"{episode_folder}: the episode has no scene graph to compare with")
    final = next((g for g in graphs if g.label == "final"), graphs[-1])
    return [o.model_dump(mode="json") for o in final.objects]


def render_final(episode_folder: str | Path) -> np.ndarray:
    """The final image (RGB) of a synthetic action scene, rendered at the episode's end."""
    from egoworld.sim.kitchen.synth import load_kitchen_world
    from egoworld.sim.render.renderer import Renderer

    world = load_kitchen_world(episode_folder)
    camera = world.episode.camera
    assert camera is not None
    return world.render(Renderer(camera), float(world.episode.duration_s)).rgb
