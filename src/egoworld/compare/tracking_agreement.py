"""Perceived instances against exact truth: tracking (motmetrics IDF1 / MOTA on boxes at IoU ≥ 0.5; HOTA,
DetA and AssA by TrackEval's own ``HOTA`` metric, box IoU as the similarity), count
MRA per category (`egoworld.metrics.mra.mra_linear`, VSI-Super-Wild's VOC score) and the first / last
appearance time error of each truth object matched to the perceived instance sharing most of its boxes.

Truth boxes come as ``{time_s: [(object, category, box), …]}``; `kitchen_truth` reads them from a
synthetic kitchen's ``visibility.npz`` (objects with at least ``min_pixels`` visible pixels).
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from egoworld.core.folders.files import InputFileError, read_input_bytes
from egoworld.metrics.mra import mra_linear
from egoworld.perception.detectors.nms import iou_matrix
from egoworld.perception.video.instance_tracks import Instance

TruthBoxes = dict[float, list[tuple[str, str, tuple[float, ...]]]]


def kitchen_truth(npz: str | Path, categories: dict[str, str], min_pixels: int = 30) -> TruthBoxes:
    """Truth boxes of a synthetic kitchen's visibility file (``categories``: object id → category)."""
    path = Path(npz)
    if not path.exists():
        raise InputFileError(
            f"{path}: no visibility file; synthesise the kitchen with `egoworld sim kitchen`"
        )
    data = read_input_bytes(path, "visibility file (.npz)", empty_ok=False)
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        times, ids, pixels, bbox = z["times"], [str(x) for x in z["object_ids"]], z["pixels"], z["bbox"]
    out: TruthBoxes = {}
    for f, t in enumerate(times):
        out[round(float(t), 6)] = [
            (ids[j], categories[ids[j]], tuple(float(v) for v in bbox[f, j]))
            for j in np.flatnonzero(pixels[f] >= min_pixels)
        ]
    return out


def tracking_scores(truth: TruthBoxes, instances: Sequence[Instance], iou: float = 0.5) -> dict:
    """motmetrics IDF1, MOTA, ID switches and the truth → perceived id mapping (most shared boxes)."""
    import motmetrics as mm

    hyp: dict[float, list[tuple[str, tuple[float, ...]]]] = defaultdict(list)
    for inst in instances:
        for t, b in zip(inst.times, inst.boxes, strict=True):
            hyp[round(t, 6)].append((inst.id, b))
    acc = mm.MOTAccumulator(auto_id=True)
    ids: dict[str, int] = {}

    def num(name: str) -> int:
        return ids.setdefault(name, len(ids) + 1)

    shared: Counter = Counter()
    for t in sorted(set(truth) | set(hyp)):
        gt, hy = truth.get(t, []), hyp.get(t, [])
        gb = np.array([b for _, _, b in gt], float).reshape(-1, 4)
        hb = np.array([b for _, b in hy], float).reshape(-1, 4)
        overlap = iou_matrix(gb, hb)  # motmetrics' own iou_matrix uses np.asfarray (gone in NumPy 2)
        dist = np.where(overlap >= iou, 1.0 - overlap, np.nan)
        acc.update([num(g[0]) for g in gt], [num(h[0]) for h in hy], dist)  # motmetrics wants numeric ids
        for i, j in zip(*np.nonzero(np.isfinite(dist)), strict=True):
            shared[(gt[i][0], hy[j][0])] += 1
    summary = mm.metrics.create().compute(acc, metrics=["idf1", "mota", "num_switches"], name="all")
    best: dict[str, tuple[int, str]] = {}
    for (g, h), n in sorted(shared.items()):
        if n > best.get(g, (0, ""))[0]:
            best[g] = (n, h)
    return {
        "idf1": float(summary["idf1"].iloc[0]),
        "mota": float(summary["mota"].iloc[0]),
        "id_switches": int(summary["num_switches"].iloc[0]),
        "match": {g: h for g, (_, h) in best.items()},
    }


def _numbered(names: dict[str, int], items: Sequence[str]) -> np.ndarray:
    return np.array([names.setdefault(n, len(names)) for n in items], int)


def hota_scores(truth: TruthBoxes, instances: Sequence[Instance]) -> dict:
    """TrackEval HOTA / DetA / AssA (means over its IoU thresholds 0.05 … 0.95) of the perceived instances."""
    from trackeval.metrics import HOTA

    hyp: dict[float, list[tuple[str, tuple[float, ...]]]] = defaultdict(list)
    for inst in instances:
        for t, b in zip(inst.times, inst.boxes, strict=True):
            hyp[round(t, 6)].append((inst.id, b))
    gt_names: dict[str, int] = {}
    tr_names: dict[str, int] = {}
    data: dict = {"gt_ids": [], "tracker_ids": [], "similarity_scores": []}
    for t in sorted(set(truth) | set(hyp)):
        gt, hy = truth.get(t, []), hyp.get(t, [])
        data["gt_ids"].append(_numbered(gt_names, [g[0] for g in gt]))
        data["tracker_ids"].append(_numbered(tr_names, [h[0] for h in hy]))
        gb = np.array([b for _, _, b in gt], float).reshape(-1, 4)
        hb = np.array([b for _, b in hy], float).reshape(-1, 4)
        data["similarity_scores"].append(iou_matrix(gb, hb))
    data |= {
        "num_gt_ids": len(gt_names),
        "num_tracker_ids": len(tr_names),
        "num_gt_dets": sum(len(x) for x in data["gt_ids"]),
        "num_tracker_dets": sum(len(x) for x in data["tracker_ids"]),
    }
    res = HOTA().eval_sequence(data)
    return {k.lower(): float(np.mean(res[k])) for k in ("HOTA", "DetA", "AssA")}


def count_mra(truth: dict[str, int], perceived: dict[str, int]) -> dict:
    """MRA of the unique count of every truth category (a category never perceived counts 0)."""
    per = {c: mra_linear(perceived.get(c, 0), n) for c, n in sorted(truth.items())}
    return {"per_category": per, "mean": float(np.mean(list(per.values()))) if per else float("nan")}


def time_errors(truth_rows: Sequence[dict], perceived_rows: Sequence[dict], match: dict[str, str]) -> dict:
    """Mean |first_s| and |last_s| error of matched truth objects (appearances rows), and how many matched."""
    by_id = {r["object"]: r for r in perceived_rows}
    first, last = [], []
    for r in truth_rows:
        p = by_id.get(match.get(r["object"], ""))
        if p is not None:
            first.append(abs(p["first_s"] - r["first_s"]))
            last.append(abs(p["last_s"] - r["last_s"]))
    nan = float("nan")
    return {
        "first_s_error": float(np.mean(first)) if first else nan,
        "last_s_error": float(np.mean(last)) if last else nan,
        "matched": len(first),
        "truth_objects": len(truth_rows),
    }


def detected_truth(path: str | Path) -> TruthBoxes:
    """Truth boxes that a simulated detector reported (its rows carry the true ``object``): scores against
    them measure the tracker alone, apart from the detector's misses."""
    from egoworld.core.folders.files import iter_jsonl

    out: TruthBoxes = {}
    for _, row in iter_jsonl(Path(path)):
        t = round(float(row.get("time_s", row.get("t"))), 6)
        out[t] = [
            (
                d["object"],
                d.get("label", d.get("category")),
                tuple(float(v) for v in d.get("bbox", d.get("box"))),
            )
            for d in row["detections"]
            if d.get("object")
        ]
    return out
