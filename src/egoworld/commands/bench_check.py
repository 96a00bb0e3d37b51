"""``egoworld bench check``: validate a benchmark folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import fail


def bench_check(
    folder: Annotated[Path | None, typer.Option("--bench", help="Benchmark folder.")] = None,
    old_folder: Annotated[Path | None, typer.Argument(hidden=True)] = None,
) -> None:
    """Validate a benchmark folder and print its tasks and answer balance."""
    from egoworld.core.aliases import one_folder
    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.core.folders.files import InputFileError

    folder = one_folder(folder, old_folder, "--bench")
    try:
        bench = load_benchmark(folder)
    except (InputFileError, ValueError) as exc:
        fail(exc)
    m = bench.manifest
    print(f"{m.name} v{m.version}: {len(bench.samples)} samples, hash {bench.hash[:12]}")
    for line in bench.media_roots.describe():
        print(f"  media root: {line}")
    for task, info in m.tasks.items():
        dist = m.answer_distribution.get(task, {})
        shown = ", ".join(f"{k}:{v}" for k, v in list(dist.items())[:8]) + (" …" if len(dist) > 8 else "")
        print(f"  {task:<28} {m.counts.get(task, 0):>6}  {info.answer_type:<8} {info.metric:<10} {shown}")
