"""``egoworld bench rehash``: accept hand edits of a benchmark's samples.jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, fail


def bench_rehash(folder: Annotated[Path, typer.Argument(help="Benchmark folder.")]) -> None:
    """Accept hand edits of samples.jsonl: validate it and rewrite the manifest's counts and hash."""
    from egoworld.core.bench_folder import rehash_benchmark
    from egoworld.core.files import InputFileError

    try:
        manifest = rehash_benchmark(folder)
    except (InputFileError, ValueError) as exc:
        fail(exc)
    console.print(f"{folder}: manifest updated ({sum(manifest.counts.values())} samples)")
