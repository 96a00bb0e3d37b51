"""Perceived instances → appearances rows ``{view, object, category, first_s, last_s, intervals}`` (the
format `egoworld.world.walk_source` reads; also ``frames``, ``score`` — the mean detection score — and
``max_pixels`` — the largest box area, px² at the view's size) and unique counts per category (VOC)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from egoworld.perception.video.instance_tracks import Instance


def intervals(times: Sequence[float], frame_times: np.ndarray) -> list[list[float]]:
    """Runs of consecutive frames (of ``frame_times``, the tested frames) among ``times``."""
    idx = np.searchsorted(frame_times, np.round(sorted(times), 6) - 1e-6)
    out: list[list[float]] = []
    last = -2
    for i in idx:
        if out and i == last + 1:
            out[-1][1] = round(float(frame_times[i]), 6)
        else:
            out.append([round(float(frame_times[i]), 6)] * 2)
        last = i
    return out


def appearance_rows(instances: Sequence[Instance], view: str, frame_times: Sequence[float]) -> list[dict]:
    ft = np.round(np.asarray(frame_times, float), 6)
    rows = []
    for inst in sorted(instances, key=lambda i: i.id):
        iv = intervals(inst.times, ft)
        rows.append(
            {
                "view": view,
                "object": inst.id,
                "category": inst.label,
                "first_s": iv[0][0],
                "last_s": iv[-1][1],
                "intervals": iv,
                "frames": len(inst.times),
                "score": round(float(np.mean(inst.scores)), 4) if inst.scores else None,
                "max_pixels": round(max(((b[2] - b[0]) * (b[3] - b[1]) for b in inst.boxes), default=0.0), 1),
            }
        )
    return rows


def counts(rows: Sequence[dict]) -> dict[str, dict[str, int]]:
    """Unique objects per category per view."""
    out: dict[str, Counter] = {}
    for r in rows:
        out.setdefault(r["view"], Counter())[r["category"]] += 1
    return {v: dict(sorted(c.items())) for v, c in sorted(out.items())}
