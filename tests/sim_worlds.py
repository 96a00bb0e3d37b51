"""Small synthetic worlds for tests: rendered sim kitchens for Beyond3D (tiny images at 1 frame/s keep them
cheap), and the demo's walks of every duration group with tiny images for VSI-Super-Wild."""

from __future__ import annotations

from pathlib import Path


def sim_kitchens(
    out: Path,
    episodes: int,
    minutes: float,
    *,
    seed: int = 0,
    size: int = 64,
    objects: int = 40,
    pace: str = "hd-epic",
    render: bool = True,
) -> Path:
    """``episodes`` kitchens of ``minutes`` each under ``out`` (``kitchen_000`` …); returns ``out``.
    ``render=False``: ground truth only (no video, enough for a text-only build with detections "none")."""
    from egoworld.sim.kitchen.synth import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    cfg = KitchenConfig(minutes=minutes, fps=1.0, size=size, objects=objects, pace=pace, render=render)  # type: ignore[arg-type]
    synth_world_set("kitchen", out, episodes, seed, cfg)
    return out


#: the VSI-Super-Wild benchmark several test files build from `sim_walks` (conftest's `vsi_sim_bench`)
VSI_SIM_PER_TASK, VSI_SIM_SEED = 160, 3


def sim_walks(out: Path) -> Path:
    """The demo's `WALKS` (6 to 125 minutes) under ``out`` with 128-pixel panoramas and 32-pixel views."""
    from egoworld.demo.vsi_wild import synth_walks

    synth_walks(out, pano_width=128, view_size=32)
    return out
