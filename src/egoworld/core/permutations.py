"""Option orders. Orders are permutations of the original option positions, numbered lexicographically.

``perm[j]`` is the original index of the option shown at position ``j``. Order 0 is the original order.
Shuffle24 shows all 24 orders of 4 options; ``K`` shows K distinct orders chosen from
``sha256(seed, sample id, order)`` (order 0 is not forced in).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

from egoworld.core.folders.hashing import seeded_rng, stable_int

Permutation = tuple[int, ...]
MAX_ENUMERATED = 8  # up to 8! = 40,320 orders are enumerated; beyond, orders are drawn by shuffling


@lru_cache(maxsize=16)
def all_orders(n: int) -> tuple[Permutation, ...]:
    """All n! orders in lexicographic order (order 0 = identity)."""
    return tuple(itertools.permutations(range(n)))


def order_index(perm: Permutation) -> int:
    """Lexicographic rank of ``perm`` among all orders of its length."""
    n, rank = len(perm), 0
    remaining = list(range(n))
    for i, p in enumerate(perm):
        pos = remaining.index(p)
        rank += pos * math.factorial(n - 1 - i)
        remaining.pop(pos)
    return rank


def permutation_id(perm: Permutation | None) -> str:
    """A readable id: ``"0123"`` (or ``"0-1-…-11"`` past 10 options); ``"-"`` for no options."""
    if perm is None:
        return "-"
    if len(perm) <= 10:
        return "".join(str(p) for p in perm)
    return "-".join(str(p) for p in perm)


def parse_permutation_id(pid: str) -> Permutation | None:
    if pid == "-":
        return None
    return tuple(int(x) for x in (pid.split("-") if "-" in pid else pid))


def parse_mode(text: str) -> str | int:
    """``none`` | ``shuffle24`` | ``all`` | a positive integer K."""
    t = text.strip().lower()
    if t in ("none", "shuffle24", "all"):
        return t
    try:
        k = int(t)
    except ValueError:
        raise ValueError(f"--permutations {text!r}: expected none, shuffle24, all or a number K") from None
    if k < 1:
        raise ValueError("--permutations K must be at least 1")
    return k


def orders_for(n_choices: int | None, mode: str | int, seed: int, sample_id: str) -> list[Permutation | None]:
    """The option orders to present for one sample."""
    if not n_choices:
        return [None]
    identity = tuple(range(n_choices))
    if mode == "none":
        return [identity]
    if mode in ("shuffle24", "all"):
        # Shuffle24 is defined on 4 options: fewer options get all their orders, more keep the original one.
        if mode == "shuffle24" and n_choices > 4:
            return [identity]
        return list(all_orders(n_choices))
    k = int(mode)
    if n_choices <= MAX_ENUMERATED and k >= math.factorial(n_choices):
        return list(all_orders(n_choices))
    if n_choices <= MAX_ENUMERATED:
        ranked = sorted(all_orders(n_choices), key=lambda p: stable_int(seed, sample_id, permutation_id(p)))
        return list(ranked[:k])
    out: list[Permutation | None] = []
    seen: set[Permutation] = set()
    j = 0
    while len(out) < k:
        perm = list(identity)
        seeded_rng(seed, sample_id, j).shuffle(perm)
        j += 1
        if tuple(perm) not in seen:
            seen.add(tuple(perm))
            out.append(tuple(perm))
    return out
