"""Worlds: the episode data model, its folder format, and loaders for real recordings.

Public API (stable):

* `egoworld.world.episode`: `Episode`, `Fixture`, `EpisodeObject`, `Movement`, `Interval`, `Action`,
  `SceneGraph`, `SceneObject`, `EpisodeMedia` (pydantic, ``extra="forbid"``), `episode_problems`.
* `egoworld.world.poses`: `PoseTrack` (world_from_camera 4×4 at timestamps; ``nearest`` with the
  HD-EPIC frame rule, ``interpolate``).
* `egoworld.world.location`: `location_at`, `Location`, `last_completed`, `moving_at`.
* `egoworld.world.episode_folder`: `save_episode`, `load_episode`, `find_episodes`, `iter_episodes`
  (layout in that module's docstring).
* Loaders: `egoworld.world.hd_epic` (assoc_info tracks, digital-twin fixtures, Aria poses + camera,
  `import_hd_epic`), `egoworld.world.epic_kitchens` (action segments → episodes).
* `egoworld.world.show`: text summary and a PNG (contact sheet or top-down plot).
* `egoworld.world.fields`: `FieldRef` (a world field a question depends on: its provenance) and `Fix`;
  `egoworld.world.fix`: `apply_fixes` (a review's corrected values written back to the world).

Camera models and geometry come from `egoworld.geometry`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers and IDEs
    from egoworld.world.episode import (
        Action,
        Episode,
        EpisodeMedia,
        EpisodeObject,
        Fixture,
        Interval,
        Movement,
        SceneGraph,
        SceneObject,
    )
    from egoworld.world.episode_folder import find_episodes, iter_episodes, load_episode, save_episode
    from egoworld.world.location import Location, location_at
    from egoworld.world.poses import PoseTrack

# names exported lazily (PEP 562), so that `egoworld --help` does not import numpy and pydantic models
_EXPORTS = {
    "Action": "egoworld.world.episode",
    "Episode": "egoworld.world.episode",
    "EpisodeMedia": "egoworld.world.episode",
    "EpisodeObject": "egoworld.world.episode",
    "Fixture": "egoworld.world.episode",
    "Interval": "egoworld.world.episode",
    "Movement": "egoworld.world.episode",
    "SceneGraph": "egoworld.world.episode",
    "SceneObject": "egoworld.world.episode",
    "find_episodes": "egoworld.world.episode_folder",
    "iter_episodes": "egoworld.world.episode_folder",
    "load_episode": "egoworld.world.episode_folder",
    "save_episode": "egoworld.world.episode_folder",
    "Location": "egoworld.world.location",
    "location_at": "egoworld.world.location",
    "PoseTrack": "egoworld.world.poses",
}
__all__ = [
    "Action",
    "Episode",
    "EpisodeMedia",
    "EpisodeObject",
    "Fixture",
    "Interval",
    "Location",
    "Movement",
    "PoseTrack",
    "SceneGraph",
    "SceneObject",
    "find_episodes",
    "iter_episodes",
    "load_episode",
    "location_at",
    "save_episode",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'egoworld.world' has no attribute {name!r}")
