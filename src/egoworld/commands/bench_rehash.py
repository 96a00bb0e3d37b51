"""``egoworld bench rehash``: accept hand edits of a benchmark's samples.jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def bench_rehash(
    folder: Annotated[Path, typer.Option("--bench", help="Benchmark folder.")],
) -> None:
    """Accept hand edits of samples.jsonl: validate it and rewrite the manifest's counts and hash."""
    from egoworld.core.folders.bench_folder import rehash_benchmark

    manifest = rehash_benchmark(folder)
    console.print(f"{folder}: manifest updated ({sum(manifest.counts.values())} samples)")
