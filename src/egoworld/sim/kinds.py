"""World kinds: what ``egoworld world synth KIND`` and `egoworld.sim.worldset` can make.

A kind is a `WorldKind` registered under the ``egoworld.world_kinds`` entry-point group
(`egoworld.core.registry`); egoworld's own (``kitchen``, ``walk``, ``actions``) are below and in its
pyproject.toml, and a package adds one the same way::

    [project.entry-points."egoworld.world_kinds"]
    garden = "mypkg.garden:WORLD_KIND"
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FrameProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class WorldKind:
    """``config(options)`` makes a kind's parameters (an object with ``to_json()``) from the options of
    ``egoworld world synth`` (``minutes``, ``fps``, ``camera``, ``size``, ``view_size``, ``actions``,
    ``abnormal_rate``; None where not given; ``render``: False with ``--no-render``) and raises ValueError on a bad one; ``synth(folder, episode_id,
    seed, config, progress)`` writes one episode folder; ``frames``: whether synth reports frame progress."""

    name: str
    synth: Callable[[Path, str, int, Any, FrameProgress | None], Path]
    config: Callable[[dict[str, Any]], Any]
    frames: bool = True


def _kitchen_config(o: dict[str, Any]) -> Any:
    from egoworld.sim.kitchen.synth import KitchenConfig

    m = 3.0 if o["minutes"] is None else o["minutes"]
    if not 2.0 <= m <= 40.0:
        raise ValueError(f"--minutes for a kitchen is 2 to 40, got {m}")
    camera = o["camera"]
    return KitchenConfig(
        minutes=m,
        fps=o["fps"] or 2.0,
        camera=camera,
        size=o["size"] or (448 if camera == "fisheye" else 640),
        render=o.get("render", True),
    )


def _rendered_only(kind: str, o: dict[str, Any]) -> None:
    if not o.get("render", True):
        raise ValueError(f"--no-render is a kitchen option; a {kind} episode is always rendered")


def _kitchen(folder: Path, episode_id: str, seed: int, config: Any, progress: FrameProgress | None) -> Path:
    from egoworld.sim.kitchen.synth import synth_kitchen

    return synth_kitchen(folder, episode_id, seed, config, progress)


def _walk_config(o: dict[str, Any]) -> Any:
    from egoworld.sim.walk.synth import WalkConfig

    _rendered_only("walk", o)
    return WalkConfig(
        minutes=10.0 if o["minutes"] is None else o["minutes"],
        fps=o["fps"] or 1.0,
        pano_width=o["size"] or 512,
        view_size=o["view_size"],
    )


def _walk(folder: Path, episode_id: str, seed: int, config: Any, progress: FrameProgress | None) -> Path:
    from egoworld.sim.walk.synth import synth_walk

    return synth_walk(folder, episode_id, seed, config, progress)


def _actions_config(o: dict[str, Any]) -> Any:
    from egoworld.sim.actions.synth import ActionConfig

    _rendered_only("actions", o)
    return ActionConfig(n_actions=o["actions"], abnormal_rate=o["abnormal_rate"])


def _actions(folder: Path, episode_id: str, seed: int, config: Any, progress: FrameProgress | None) -> Path:
    from egoworld.sim.actions.synth import synth_action_scene

    return synth_action_scene(folder, episode_id, seed, config)


KITCHEN = WorldKind("kitchen", _kitchen, _kitchen_config)
WALK = WorldKind("walk", _walk, _walk_config)
ACTIONS = WorldKind("actions", _actions, _actions_config, frames=False)


def world_kind(name: str) -> WorldKind:
    """The registered kind ``name``; a ValueError naming the registered ones when none is."""
    from egoworld.core import registry

    if not registry.has(registry.WORLD_KINDS, name):
        *rest, last = kind_names() or ["none"]
        raise ValueError(
            f"unknown world kind {name!r}; choose {', '.join(rest) + ' or ' if rest else ''}{last}"
        )
    found = registry.load(registry.WORLD_KINDS, name)
    if not isinstance(found, WorldKind):
        raise registry.RegistryError(
            f"world kind entry point {name!r} is a {type(found).__name__}, not an egoworld.sim.kinds.WorldKind"
        )
    return found


def kind_names() -> list[str]:
    """The registered world kinds, sorted."""
    from egoworld.core import registry

    return registry.names(registry.WORLD_KINDS)
