"""Judge agreement: Spearman's rank correlation between two judges' item scores, or between a judge and
human scores from a CSV (the paper reports 0.919 between Qwen3-8B and humans).

Items are keyed by (sample, scene, kind, object, relation). Items without evidence (0 by rule, no judge
call) are left out unless asked for; items a judge failed on are left out and counted.

Human CSV columns: ``sample,scene,kind,object,relation,score`` (``scene`` defaults to ``final``, ``relation``
is empty except for relations); `write_template` writes this file from a scored folder for people to fill.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.core.folders.files import InputFileError, iter_jsonl, open_text, write_text

Key = tuple[str, str, str, int, int]
COLUMNS = ("sample", "scene", "kind", "object", "relation", "score")


def _scores_file(path: str | Path) -> Path:
    p = Path(path)
    return p / "scores.jsonl" if p.is_dir() else p


def judge_items(
    path: str | Path, *, include_no_evidence: bool = False
) -> tuple[dict[Key, float], dict[str, Any]]:
    """Item scores of a scored folder (or its scores.jsonl): {key: score} and counts of what was left out."""
    out: dict[Key, float] = {}
    info: dict[str, Any] = {"failed": 0, "no_evidence": 0}
    for _, row in iter_jsonl(_scores_file(path)):
        if row.get("epoch", 0) != 0:
            continue
        for it in row.get("items") or []:
            rel = -1 if it["relation"] is None else int(it["relation"])
            key = (row["sample"], it["scene"], it["kind"], int(it["object"]), rel)
            if it["status"] == "failed" or it["score"] is None:
                info["failed"] += 1
            elif it["status"] == "no_evidence" and not include_no_evidence:
                info["no_evidence"] += 1
            else:
                out[key] = float(it["score"])
    return out, info


def human_scores(path: str | Path) -> dict[Key, float]:
    """Scores from a human CSV (columns: sample, scene, kind, object, relation, score)."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    out: dict[Key, float] = {}
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        need = {"sample", "kind", "object", "score"}
        if not need <= set(reader.fieldnames or ()):
            raise InputFileError(f"{path}: needs columns {', '.join(COLUMNS)} (got {reader.fieldnames})")
        for lineno, row in enumerate(reader, start=2):
            if not (row.get("score") or "").strip():
                continue
            try:
                rel = (row.get("relation") or "").strip()
                key = (
                    row["sample"],
                    (row.get("scene") or "final").strip() or "final",
                    row["kind"].strip(),
                    int(row["object"]),
                    int(rel) if rel else -1,
                )
                out[key] = float(row["score"])
            except ValueError as exc:
                raise InputFileError(f"{path}, line {lineno}: {exc}") from exc
    return out


def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(x: Any, y: Any) -> float | None:
    """Spearman's rho (Pearson correlation of average ranks); None when either side is constant or n < 2."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < 2 or len(a) != len(b):
        return None
    ra, rb = rankdata(a), rankdata(b)
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def agreement(a: dict[Key, float], b: dict[Key, float]) -> dict[str, Any]:
    """Spearman, Pearson, exact and within-one agreement over the items both sides scored."""
    common = sorted(set(a) & set(b))
    x = np.array([a[k] for k in common], dtype=float)
    y = np.array([b[k] for k in common], dtype=float)
    by_kind = {}
    for kind in ("attribute", "relation", "key_state"):
        ks = [i for i, k in enumerate(common) if k[2] == kind]
        if ks:
            by_kind[kind] = {"n": len(ks), "spearman": spearman(x[ks], y[ks])}
    pearson = float(np.corrcoef(x, y)[0, 1]) if len(common) > 1 and x.std() > 0 and y.std() > 0 else None
    return {
        "n": len(common),
        "only_first": len(set(a) - set(b)),
        "only_second": len(set(b) - set(a)),
        "spearman": spearman(x, y),
        "pearson": pearson,
        "exact": float(np.mean(x == y)) if common else None,
        "within_one": float(np.mean(np.abs(x - y) <= 1)) if common else None,
        "by_kind": by_kind,
    }


def write_template(scored: str | Path, out: str | Path) -> int:
    """A CSV of every judged item of a scored folder (phrase shown) with an empty score column for humans."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*COLUMNS, "phrase", "evidence_sentences"])
    n = 0
    for _, row in iter_jsonl(_scores_file(scored)):
        if row.get("epoch", 0) != 0:
            continue
        for it in row.get("items") or []:
            if it["status"] != "ok":
                continue
            rel = "" if it["relation"] is None else it["relation"]
            w.writerow(
                [row["sample"], it["scene"], it["kind"], it["object"], rel, "", it["phrase"], it["evidence"]]
            )
            n += 1
    write_text(out, buf.getvalue())
    return n
