"""Partitions by number of atomic actions (short 11–99, medium 100–199, long 200–694) and the tiny subset.

The tiny subset keeps the paper's short : medium : long ratio 52 : 37 : 11. Which instances enter it is a
pure function of (seed, sample id) through sha256, so the same inputs and seed always give the same subset.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from egoworld.core.folders.hashing import stable_int

#: (name, smallest, largest) number of actions, both inclusive
PARTITIONS: tuple[tuple[str, int, int], ...] = (("short", 11, 99), ("medium", 100, 199), ("long", 200, 694))
PARTITION_NAMES = tuple(p[0] for p in PARTITIONS)
TINY_RATIO = (52, 37, 11)
TINY_SIZE = 100


def partition_of(n_actions: int) -> str | None:
    """``short`` / ``medium`` / ``long``, or None outside 11–694 (such instances count in Full only)."""
    for name, lo, hi in PARTITIONS:
        if lo <= n_actions <= hi:
            return name
    return None


def quotas(size: int, ratio: Sequence[int] = TINY_RATIO) -> list[int]:
    """Split ``size`` by ``ratio`` with the largest-remainder rule (sums to ``size`` exactly)."""
    if size < 0 or not ratio or any(r < 0 for r in ratio) or sum(ratio) == 0:
        raise ValueError(f"bad tiny subset size {size} or ratio {tuple(ratio)}")
    total = sum(ratio)
    exact = [size * r / total for r in ratio]
    counts = [int(x) for x in exact]
    order = sorted(range(len(ratio)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: size - sum(counts)]:
        counts[i] += 1
    return counts


def tiny_subset(
    items: Iterable[tuple[str, int]],
    *,
    seed: int,
    size: int = TINY_SIZE,
    ratio: Sequence[int] = TINY_RATIO,
) -> tuple[set[str], dict[str, dict[str, int]]]:
    """Pick the tiny subset from ``(sample id, number of actions)`` pairs.

    Returns the chosen ids and, per partition, the quota and the number actually taken (a partition with fewer
    instances than its quota gives all it has; the shortfall is not moved to other partitions, so the ratio
    stays visible in the counts).
    """
    by_part: dict[str, list[str]] = {name: [] for name in PARTITION_NAMES}
    for sid, n in items:
        part = partition_of(n)
        if part is not None:
            by_part[part].append(sid)
    chosen: set[str] = set()
    report: dict[str, dict[str, int]] = {}
    for (name, _, _), quota in zip(PARTITIONS, quotas(size, ratio), strict=True):
        ranked = sorted(by_part[name], key=lambda sid: (stable_int(seed, "tiny", sid), sid))
        taken = ranked[:quota]
        chosen.update(taken)
        report[name] = {"quota": quota, "taken": len(taken), "available": len(ranked)}
    return chosen, report
