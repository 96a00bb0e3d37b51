"""The official release's answer mixes (what a built benchmark's answers are drawn to match) and the distance
between two mixes.

Measured from the released ``vsi_super_wild_qa.jsonl`` (6,980 rows, `release_mixes` recomputes them):

* VMR (1,215): 957 questions offer the four cardinal directions, 258 the four diagonal ones (78.8 / 21.2 %);
  within a set the answers are close to uniform (cardinal 241 / 241 / 239 / 236, diagonal 66 / 66 / 63 / 63).
  The builder's target is the set shares with a uniform answer within each set (19.7 % per cardinal,
  5.3 % per diagonal direction), so the most frequent answer text is no better than chance.
* VOC (1,113): counts 1 … 609, median 7; over doubling bins 1 | 2–3 | 4–7 | 8–15 | 16–31 | 32–63 |
  64–127 | 128+ the shares are 14.0 / 20.8 / 19.2 / 16.5 / 13.5 / 8.7 / 4.9 / 2.2 %.
* VPO (1,302): the release states the rotation (30–60°) but stores no angle; the built images are at
  ``U(30°, 60°)`` either side of the view, compared with that uniform law. Its correct orders cover all 24
  orders of the four frames, near uniform (40 … 77 each; total variation 0.058 from uniform).

Distance: total variation ``½ Σ |p − q|`` over the bins (0 = same mix, 1 = disjoint).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

CARDINAL_SHARE = 957 / 1215
VMR_SETS = {
    "cardinal": ("backward", "forward", "left", "right"),
    "diagonal": ("backward-left", "backward-right", "forward-left", "forward-right"),
}
VMR_MIX = {d: CARDINAL_SHARE / 4 for d in VMR_SETS["cardinal"]} | {
    d: (1 - CARDINAL_SHARE) / 4 for d in VMR_SETS["diagonal"]
}
VOC_BINS = ((1, 1), (2, 3), (4, 7), (8, 15), (16, 31), (32, 63), (64, 127), (128, 10**9))
VOC_COUNTS = (156, 232, 214, 184, 150, 97, 55, 25)  # release questions per bin (1,113)


def voc_bin(n: int) -> str:
    """The doubling bin of a count: ``1``, ``2-3``, …, ``64-127``, ``128+`` (``0``: none yet, a streaming
    query before the category's first instance or a count a fix lowered to zero)."""
    if n == 0:
        return "0"
    for lo, hi in VOC_BINS:
        if lo <= n <= hi:
            return str(lo) if lo == hi else (f"{lo}+" if hi >= 10**9 else f"{lo}-{hi}")
    raise ValueError(f"a count cannot be negative, got {n}")


VOC_MIX = {voc_bin(lo): c / sum(VOC_COUNTS) for (lo, _), c in zip(VOC_BINS, VOC_COUNTS, strict=True)}


def shares(values: Iterable[str]) -> dict[str, float]:
    """The share of each value."""
    c = Counter(values)
    n = sum(c.values())
    return {k: v / n for k, v in sorted(c.items())} if n else {}


def total_variation(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """½ Σ |p − q| over the union of the bins."""
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


def uniform_ks(values: Iterable[float], lo: float, hi: float) -> float:
    """Kolmogorov–Smirnov distance between the values' empirical law and ``U(lo, hi)`` (scipy's statistic)."""
    from scipy.stats import kstest

    xs = list(values)
    if not xs:
        raise ValueError("no values")
    return float(kstest(xs, "uniform", args=(lo, hi - lo)).statistic)


def release_mixes(qa_file: str | Path) -> dict[str, dict[str, float]]:
    """The VMR direction, VOC count-bin and VPO correct-order shares of an official QA file (the first two are
    what the constants above hold)."""
    from egoworld.benchmarks.vsi_wild.importer import row_to_sample
    from egoworld.core.folders.files import iter_jsonl

    directions, bins, orders = [], [], []
    for line, row in iter_jsonl(qa_file):
        s = row_to_sample(row, f"{qa_file}:{line}")
        if s.task == "VMR":
            directions.append((s.choices or ())[s.answer])
        elif s.task == "VOC":
            bins.append(voc_bin(int(s.answer)))
        elif s.task == "VPO":
            orders.append((s.choices or ())[s.answer])
    return {"VMR": shares(directions), "VOC": shares(bins), "VPO": shares(orders)}


def built_mixes(samples: Iterable) -> dict[str, dict[str, float]]:
    """The same shares of built samples (VMR answer texts, VOC count bins, VPO correct orders)."""
    rows = list(samples)
    return {
        "VMR": shares(s.choices[s.answer] for s in rows if s.task == "VMR"),
        "VOC": shares(voc_bin(int(s.answer)) for s in rows if s.task == "VOC"),
        "VPO": shares(s.choices[s.answer] for s in rows if s.task == "VPO"),
    }
