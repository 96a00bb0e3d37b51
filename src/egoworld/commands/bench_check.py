"""``egoworld bench check``: validate a benchmark folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error


@exit_on_user_error
def bench_check(
    folder: Annotated[Path, typer.Option("--bench", help="Benchmark folder.")],
) -> None:
    """Validate a benchmark folder and print its tasks and answer balance."""
    from egoworld.core.folders.bench_folder import load_benchmark

    bench = load_benchmark(folder)
    m = bench.manifest
    print(f"{m.name} v{m.version}: {len(bench.samples)} samples, hash {bench.hash[:12]}")
    for line in bench.media_roots.describe():
        print(f"  media root: {line}")
    for task, info in m.tasks.items():
        dist = m.answer_distribution.get(task, {})
        shown = ", ".join(f"{k}:{v}" for k, v in list(dist.items())[:8]) + (" …" if len(dist) > 8 else "")
        print(f"  {task:<28} {m.counts.get(task, 0):>6}  {info.answer_type:<8} {info.metric:<10} {shown}")
