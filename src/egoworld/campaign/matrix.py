"""A sweep file (YAML): models × benchmarks × settings → cells, each cell the options of one `egoworld run`."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_input_text

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class Cell:
    """One run of the campaign: its folder name, the `egoworld run` options and the server it loads."""

    name: str
    options: dict[str, Any]
    server: str
    #: `egoworld score --judge` for free-form answers (EXPLORE), scored as part of the sweep
    judge: str | None = None
    #: `--track` for this cell (the sweep's own when None)
    track: str | None = None


@dataclass(frozen=True)
class Sweep:
    cells: tuple[Cell, ...]
    budgets: dict[str, int] = field(default_factory=dict)
    attempts: int = 3
    backoff_s: float = 1.0


def _entries(data: dict[str, Any], key: str, where: str) -> list[tuple[str, dict[str, Any]]]:
    items = data.get(key)
    if not isinstance(items, list) or not items:
        raise InputFileError(f"{where}: {key!r} must be a non-empty list")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "name" not in item:
            raise InputFileError(f"{where}: {key}[{i}] must be a mapping with a 'name'")
        name = str(item["name"])
        if not _NAME.match(name):
            raise InputFileError(f"{where}: {key}[{i}] name {name!r}: use letters, digits, '.', '_' or '-'")
        out.append((name, {k: v for k, v in item.items() if k != "name"}))
    if len({n for n, _ in out}) != len(out):
        raise InputFileError(f"{where}: {key} names must be unique")
    return out


def load_sweep(path: Path, run_keys: set[str]) -> Sweep:
    """Read a sweep file; every cell option must be a key of `egoworld run` (``run_keys``)."""
    import yaml

    try:
        data = yaml.safe_load(read_input_text(path, "sweep file (YAML)"))
    except yaml.YAMLError as exc:
        raise InputFileError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: a sweep file is a mapping (models, benchmarks, settings)")
    unknown = set(data) - {"models", "benchmarks", "settings", "defaults", "retry"}
    if unknown:
        raise InputFileError(f"{path}: unknown top-level keys {sorted(unknown)}")
    base = dict(data.get("defaults") or {})
    models = _entries(data, "models", str(path))
    benches = _entries(data, "benchmarks", str(path))
    settings = _entries(data, "settings", str(path)) if data.get("settings") else [("default", {})]
    budgets: dict[str, int] = {}
    cells = []
    for (m, mo), (b, bo), (s, so) in itertools.product(models, benches, settings):
        mo = dict(mo)
        budget = mo.pop("budget", None)
        options = {**base, **mo, **bo, **so}
        options = {str(k).replace("-", "_"): v for k, v in options.items()}
        judge, track = options.pop("judge", None), options.pop("track", None)
        bad = set(options) - run_keys - {"out"}
        if bad:
            raise InputFileError(f"{path}: cell {m}/{b}/{s}: unknown run option(s) {sorted(bad)}")
        for need in ("model", "bench"):
            if need not in options:
                raise InputFileError(f"{path}: cell {m}/{b}/{s} has no {need!r}")
        server = str(options.get("base_url") or options["model"])
        if budget is not None:
            budgets[server] = int(budget)
        cells.append(
            Cell(
                name=f"{m}__{b}__{s}",
                options=options,
                server=server,
                judge=None if judge is None else str(judge),
                track=None if track is None else str(track),
            )
        )
    retry = data.get("retry") or {}
    return Sweep(
        cells=tuple(cells),
        budgets=budgets,
        attempts=int(retry.get("attempts", 3)),
        backoff_s=float(retry.get("backoff_s", 1.0)),
    )
