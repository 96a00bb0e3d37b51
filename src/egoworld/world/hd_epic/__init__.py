"""HD-EPIC loaders: movement tracks (`tracks`), digital-twin fixtures (`fixtures`), Aria camera and
poses (`aria`), and the episode importer (`importer`). See ``../shared/data/hd-epic/README.md``."""

from egoworld.world.hd_epic.aria import load_framewise_poses, load_rgb_camera
from egoworld.world.hd_epic.fixtures import GLTF_TO_WORLD, load_digital_twin
from egoworld.world.hd_epic.importer import import_hd_epic, iter_hd_epic_episodes
from egoworld.world.hd_epic.tracks import TrackReport, category_of, load_assoc_info, read_durations

__all__ = [
    "GLTF_TO_WORLD",
    "TrackReport",
    "category_of",
    "import_hd_epic",
    "iter_hd_epic_episodes",
    "load_assoc_info",
    "load_digital_twin",
    "load_framewise_poses",
    "load_rgb_camera",
    "read_durations",
]
