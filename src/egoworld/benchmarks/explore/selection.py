"""Which samples an EXPLORE run covers: a subset (full, tiny, short, medium, long), tasks and a limit."""

from __future__ import annotations

from egoworld.benchmarks.explore.partitions import PARTITION_NAMES
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.schema import Sample

SUBSETS = ("full", "tiny", *PARTITION_NAMES)


def select_explore_samples(
    bench: Benchmark, *, subset: str = "full", tasks: list[str] | None = None, limit: int | None = None
) -> list[Sample]:
    """Samples in file order: ``subset`` (full / tiny / short / medium / long), then ``tasks``, then ``limit``."""
    if subset not in SUBSETS:
        raise ValueError(f"subset {subset!r}: expected one of {', '.join(SUBSETS)}")
    if tasks:
        unknown = sorted(set(tasks) - set(bench.tasks()))
        if unknown:
            raise ValueError(f"tasks {unknown} not in this benchmark (tasks: {', '.join(bench.tasks())})")
    out = []
    for s in bench.samples:
        if subset == "tiny" and not s.metadata.get("tiny"):
            continue
        if subset in PARTITION_NAMES and s.metadata.get("partition") != subset:
            continue
        if tasks and s.task not in tasks:
            continue
        out.append(s)
    return out[:limit] if limit is not None else out
