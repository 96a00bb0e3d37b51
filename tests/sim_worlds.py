"""Small rendered sim kitchens for Beyond3D tests (tiny images at 1 frame/s keep them cheap)."""

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
) -> Path:
    """``episodes`` kitchens of ``minutes`` each under ``out`` (``kitchen_000`` …); returns ``out``."""
    from egoworld.sim.kitchen import KitchenConfig
    from egoworld.sim.worldset import synth_world_set

    cfg = KitchenConfig(minutes=minutes, fps=1.0, size=size, objects=objects, pace=pace)  # type: ignore[arg-type]
    synth_world_set("kitchen", out, episodes, seed, cfg)
    return out
