"""``egoworld bench rehash``: accept hand edits of a benchmark's samples.jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, fail


def bench_rehash(
    folder: Annotated[Path | None, typer.Option("--bench", help="Benchmark folder.")] = None,
    old_folder: Annotated[Path | None, typer.Argument(hidden=True)] = None,
) -> None:
    """Accept hand edits of samples.jsonl: validate it and rewrite the manifest's counts and hash."""
    from egoworld.core.aliases import one_folder
    from egoworld.core.folders.bench_folder import rehash_benchmark
    from egoworld.core.folders.files import InputFileError

    folder = one_folder(folder, old_folder, "--bench")
    try:
        manifest = rehash_benchmark(folder)
    except (InputFileError, ValueError) as exc:
        fail(exc)
    console.print(f"{folder}: manifest updated ({sum(manifest.counts.values())} samples)")
