"""A benchmark build named by what it is: ``VSI-Super-Wild — official release``, ``Beyond3D — synthetic``,
read from what its manifest records (the importer, else the builder and the worlds it was built from); the
manifest's hash is a detail beside the name, never the name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from egoworld.core.plugin import plugin_for

#: world loaders (``episode.json`` ``source.loader``, recorded per source entry) → what the build is
LOADERS = {
    "hd-epic": "built from HD-EPIC",
    "epic-kitchens-100": "built from EPIC-KITCHENS-100",
    "egoworld.perception": "perceived from video",
}
#: builders whose inputs say what they are without the worlds' loaders
BUILDERS = {
    "explore-epic": "built from EPIC-KITCHENS-100",
    "explore-scenes": "built from annotated scenes",
}


def _loaders(source: Mapping[str, Any]) -> list[str]:
    """The loaders a manifest's ``source`` records for its worlds (``worlds`` or ``episodes`` entries)."""
    entries = [*(source.get("worlds") or []), *(source.get("episodes") or [])]
    return sorted({str(e["loader"]) for e in entries if isinstance(e, Mapping) and e.get("loader")})


def _loader_kind(loader: str) -> str:
    if loader.startswith("egoworld.sim."):
        return "synthetic"
    return LOADERS.get(loader, f"built from {loader} worlds")


def build_kind(builder: Mapping[str, Any], source: Mapping[str, Any]) -> str:
    """What a build is, from its manifest's ``builder`` and ``source``: ``official release`` (an importer of
    the released questions), ``official release (lmms-eval log)``, ``synthetic`` (built from simulated
    worlds), ``built from HD-EPIC`` …, else ``built by egoworld`` (a build that predates the recorded
    loaders) or ``unknown origin`` (nothing recorded)."""
    importer = builder.get("importer")
    if importer == "lmms-eval":
        return "official release (lmms-eval log)"
    if importer:
        return "official release"
    kinds = list(dict.fromkeys(_loader_kind(x) for x in _loaders(source)))
    if kinds:
        return " + ".join(kinds)
    if builder.get("builder") in BUILDERS:
        return BUILDERS[str(builder["builder"])]
    return "built by egoworld" if builder.get("builder") else "unknown origin"


def build_title(name: str, builder: Mapping[str, Any], source: Mapping[str, Any]) -> str:
    """``VSI-Super-Wild — official release``: the benchmark as its paper names it and what the build is."""
    return f"{plugin_for(name).title or name} — {build_kind(builder, source)}"


def build_detail(bench_hash: str, folder: str) -> str:
    """The detail printed beside a build's name: ``build 46c49c56 · folder NAME``."""
    return f"build {bench_hash[:8]} · folder {folder}"
