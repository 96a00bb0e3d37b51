"""``egoworld cache stats|prune``: the response cache shared across runs (`--cache DIR`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error

GROUP_HELP = "The response cache shared across runs (egoworld run --cache DIR)."


@exit_on_user_error
def stats(
    cache_dir: Annotated[Path, typer.Option("--cache", help="Cache folder given to `run --cache`.")],
) -> None:
    """Entries, lifetime hits and size of a response cache, per model (JSON on stdout)."""
    from egoworld.runner.response_cache import ResponseCache

    cache = ResponseCache(cache_dir, readonly=True)
    try:
        typer.echo(json.dumps(cache.stats(), indent=2, sort_keys=True))
    finally:
        cache.close()


@exit_on_user_error
def prune(
    cache_dir: Annotated[Path, typer.Option("--cache", help="Cache folder given to `run --cache`.")],
    older_than: Annotated[
        float | None, typer.Option(help="Delete entries not used for this many days.")
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Delete entries of this model (backend:model, as stats lists it).")
    ] = None,
) -> None:
    """Delete cache entries by age and/or model."""
    from egoworld.runner.response_cache import CACHE_FILE, ResponseCache

    if not (cache_dir / CACHE_FILE).is_file():
        raise FileNotFoundError(f"{cache_dir}: no response cache here ({CACHE_FILE} missing)")
    cache = ResponseCache(cache_dir)
    try:
        removed = cache.prune(older_than_days=older_than, model=model)
    finally:
        cache.close()
    typer.echo(f"removed {removed} entries from {cache_dir}")
