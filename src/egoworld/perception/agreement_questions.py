"""Question agreement: the share of questions built from a perceived world whose gold answer equals the
gold of the same question (same id) built from the world's truth, per task."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any


def gold_agreement(perceived: Iterable[Any], truth: Iterable[Any]) -> dict[str, dict]:
    """Per task: ``built`` (perceived questions), ``matched`` (also built from truth), ``agree`` (same
    gold) and ``share`` = agree / built (a question the truth does not build counts as a disagreement)."""
    gold = {s.id: s.answer for s in truth}
    out: dict[str, dict] = defaultdict(lambda: {"built": 0, "matched": 0, "agree": 0})
    for s in perceived:
        row = out[s.task]
        row["built"] += 1
        row["matched"] += s.id in gold
        row["agree"] += s.id in gold and gold[s.id] == s.answer
    return {t: r | {"share": round(r["agree"] / r["built"], 4)} for t, r in sorted(out.items())}
