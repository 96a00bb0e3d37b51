"""The one registry: benchmarks, model backends, world kinds, importers / exporters and commands are
``[project.entry-points]`` groups read with `importlib.metadata`.

egoworld registers its own parts in its ``pyproject.toml`` the same way a third-party package does, so a
package can add a benchmark or a backend without editing egoworld::

    [project.entry-points."egoworld.benchmarks"]
    mybench = "mypkg.plugin:PLUGIN"

    [project.entry-points."egoworld.backends"]
    mybackend = "mypkg.backend:BACKEND"

    [project.entry-points."egoworld.commands"]
    "build mybench" = "mypkg.cli:build_cmd"    # a function; the key is the command's path in words

A ``egoworld.commands`` entry whose value is a string makes the group at its path (the string is its help);
``egoworld.importers`` / ``egoworld.exporters`` entries are the commands ``import NAME`` / ``export NAME``;
``egoworld.world_kinds`` entries are `egoworld.sim.kinds.WorldKind` objects (``world synth NAME``).

An entry point is loaded when it is first asked for (so ``egoworld --help`` imports no heavy module).
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

BENCHMARKS = "egoworld.benchmarks"
BACKENDS = "egoworld.backends"
COMMANDS = "egoworld.commands"
WORLD_KINDS = "egoworld.world_kinds"
IMPORTERS = "egoworld.importers"
EXPORTERS = "egoworld.exporters"
GROUPS = (BENCHMARKS, BACKENDS, COMMANDS, WORLD_KINDS, IMPORTERS, EXPORTERS)


class RegistryError(ValueError):
    """A name that no installed package registers, or an entry point that does not load."""


@cache
def _entries(group: str) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep)  # the first on sys.path wins, as for imports
    return dict(sorted(found.items()))


def names(group: str) -> list[str]:
    """The names registered in ``group`` by every installed package, sorted."""
    return list(_entries(group))


def has(group: str, name: str) -> bool:
    return name in _entries(group)


@cache
def load(group: str, name: str) -> Any:
    """The object the entry point ``name`` of ``group`` names (imported on first use)."""
    ep = _entries(group).get(name)
    if ep is None:
        known = ", ".join(names(group)) or "none"
        raise RegistryError(
            f"unknown {group.rpartition('.')[2].replace('_', ' ').rstrip('s')} {name!r} (known: {known}); "
            f'a package adds one with [project.entry-points."{group}"] in its pyproject.toml'
        )
    try:
        return ep.load()
    except ImportError as exc:
        raise RegistryError(
            f"{group} entry point {name!r} ({ep.value}) does not import: {exc}; install the extra it needs"
        ) from exc


def load_all(group: str) -> dict[str, Any]:
    """Every entry point of ``group`` loaded, by name."""
    return {name: load(group, name) for name in names(group)}


def refresh() -> None:
    """Forget what was read (after a package was installed in this process, e.g. in tests)."""
    _entries.cache_clear()
    load.cache_clear()
