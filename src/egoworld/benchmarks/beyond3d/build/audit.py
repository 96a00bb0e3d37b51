"""Audit of visibility tracks against marks (paper Supp. 11, Tables 4–6).

Marks say whether an object was visible at a time: human marks from a CSV, or the exact visibility a
synthetic world writes (``visibility.npz`` of `egoworld.sim.kitchen.synth`, or ``visibility.jsonl``). Each mark
is matched to the track sample nearest its time (within ``tolerance_s``); the pipeline calls an object visible when its state is ``detected_visible``.
``in_motion`` and ``not_groundable`` marks are counted but not scored (the pipeline makes no claim).

* Table 4: per pipeline state, the number of marks, how many were marked visible, and agreement.
* Table 5: accuracy, precision, recall, F1 and balanced accuracy over all scored marks, with 95 %
  cluster-bootstrap CIs over videos (2,000 resamples of whole episodes).
* Table 6: the same per participant.

CSV columns: ``episode`` (or ``video_id``), ``time_s``, ``object`` (object id), ``visible``
(1/0, yes/no, true/false) and optionally ``participant``.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from egoworld.benchmarks.beyond3d.build.visibility_tracks import (
    DETECTED_VISIBLE,
    IN_MOTION,
    NOT_GROUNDABLE,
    STATE_NAMES,
    VisibilityTracks,
)
from egoworld.core.folders.files import InputFileError, iter_jsonl, open_text
from egoworld.metrics.stats import cluster_bootstrap_cis
from egoworld.render.tables import Table, fmt, to_markdown
from egoworld.world.detections import DetectionTable
from egoworld.world.episode import Episode

UNSCORED = (IN_MOTION, NOT_GROUNDABLE)
_TRUE = {"1", "yes", "true", "y", "visible"}
_FALSE = {"0", "no", "false", "n", "not_visible", "invisible"}


@dataclass(frozen=True)
class Mark:
    episode: str
    time_s: float
    object: str
    visible: bool
    participant: str | None = None


def read_marks_csv(path: str | Path) -> list[Mark]:
    """Marks from a CSV (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: marks file not found")
    out = []
    with open_text(path) as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            ep = row.get("episode") or row.get("video_id")
            try:
                t = float(row["time_s"])
                v = str(row["visible"]).strip().lower()
            except (KeyError, TypeError, ValueError) as exc:
                raise InputFileError(
                    f"{path}, line {lineno}: needs columns episode, time_s, object, visible ({exc})"
                ) from exc
            if not ep or not row.get("object"):
                raise InputFileError(f"{path}, line {lineno}: 'episode' and 'object' must not be empty")
            if v not in _TRUE | _FALSE:
                raise InputFileError(
                    f"{path}, line {lineno}: visible {row['visible']!r} is not 1/0, yes/no or true/false"
                )
            out.append(Mark(ep, t, row["object"], v in _TRUE, row.get("participant") or None))
    return out


def read_truth(
    folder: str | Path, episode: Episode, min_pixels: int | None = None
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray | None]:
    """Exact visibility of a synthetic episode (``media.extra["visibility"]``): times ``(F,)``, object ids,
    visible ``(F, O)`` and pixel boxes ``(F, O, 4)`` (or None).

    ``visibility.npz`` (`egoworld.sim.kitchen.synth`): visible = at least ``min_pixels`` visible pixels (default 1:
    any visible pixel, the simulator's exact visibility). ``visibility.jsonl`` (any other generator): rows
    ``{"time_s", "visible": [ids]}``."""
    rel = episode.media.extra.get("visibility", "visibility.jsonl")
    path = Path(folder) / rel
    if not path.is_file():
        raise InputFileError(
            f"{path}: episode {episode.id} has no exact visibility file; pass --marks CSV instead"
        )
    if path.suffix == ".npz":
        data = np.load(path)
        min_pixels = 1 if min_pixels is None else min_pixels
        pixels = np.asarray(data["pixels"])
        boxes = np.where(np.asarray(data["bbox"]) >= 0, np.asarray(data["bbox"], dtype=float), np.nan)
        return (
            np.asarray(data["times"], float),
            [str(x) for x in data["object_ids"]],
            pixels >= max(1, min_pixels),
            boxes,
        )
    ids = [o.id for o in episode.objects]
    times, rows = [], []
    for lineno, row in iter_jsonl(path):
        if not isinstance(row, dict) or "time_s" not in row or not isinstance(row.get("visible"), list):
            raise InputFileError(f"{path}, line {lineno}: expected {{'time_s': t, 'visible': [object ids]}}")
        seen = set(row["visible"])
        times.append(float(row["time_s"]))
        rows.append([oid in seen for oid in ids])
    return np.asarray(times), ids, np.asarray(rows, dtype=bool).reshape(len(times), len(ids)), None


def truth_marks(
    folder: str | Path, episode: Episode, participant: str | None = None, min_pixels: int | None = None
) -> list[Mark]:
    """One mark per object and truth time from the episode's exact visibility (`read_truth`)."""
    times, ids, vis, _ = read_truth(folder, episode, min_pixels)
    return [
        Mark(episode.id, float(t), oid, bool(vis[k, o]), participant)
        for k, t in enumerate(times)
        for o, oid in enumerate(ids)
    ]


def perfect_detections(folder: str | Path, episode: Episode, min_pixels: int | None = None) -> DetectionTable:
    """A perfect detector: every truly visible object detected with its pixel box (``visibility.npz``)."""
    times, ids, vis, boxes = read_truth(folder, episode, min_pixels)
    if boxes is None:
        raise InputFileError(
            f"episode {episode.id}: its visibility file has no pixel boxes; use its detections file"
        )
    rows = [
        [{"object": oid, "bbox": boxes[k, o].tolist()} for o, oid in enumerate(ids) if vis[k, o]]
        for k in range(len(times))
    ]
    return DetectionTable(np.asarray(times, float), rows, where=f"perfect detector ({episode.id})")


@dataclass
class _Counts:
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    def add(self, pred: bool, truth: bool) -> None:
        if pred and truth:
            self.tp += 1
        elif pred:
            self.fp += 1
        elif truth:
            self.fn += 1
        else:
            self.tn += 1

    def array(self) -> np.ndarray:
        return np.array([self.tp, self.fp, self.tn, self.fn], dtype=float)


def metrics(c: np.ndarray) -> dict[str, float]:
    """Accuracy, precision, recall, F1, balanced accuracy (percent) of confusion counts (tp, fp, tn, fn)."""
    tp, fp, tn, fn = (float(x) for x in c)
    n = tp + fp + tn + fn
    prec = tp / (tp + fp) if tp + fp else float("nan")
    rec = tp / (tp + fn) if tp + fn else float("nan")
    spec = tn / (tn + fp) if tn + fp else float("nan")
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else float("nan")
    return {
        "accuracy": 100 * (tp + tn) / n if n else float("nan"),
        "precision": 100 * prec,
        "recall": 100 * rec,
        "f1": 100 * f1,
        "balanced_accuracy": 100 * np.nanmean([rec, spec])
        if not (np.isnan(rec) and np.isnan(spec))
        else float("nan"),
    }


METRICS = ("accuracy", "precision", "recall", "f1", "balanced_accuracy")


def metrics_ci(per_cluster: np.ndarray, n_boot: int = 2000, seed: int = 0) -> dict[str, tuple[float, float]]:
    """95 % percentile CIs of each metric when whole clusters (rows of confusion counts) are resampled
    (`egoworld.metrics.stats.cluster_bootstrap_cis`)."""
    cis = cluster_bootstrap_cis(per_cluster, _metric_rows, n_boot=n_boot, seed=seed)
    return dict(zip(METRICS, cis, strict=True))


def _metric_rows(totals: np.ndarray) -> np.ndarray:
    return np.array([[m[name] for name in METRICS] for m in map(metrics, totals)])


@dataclass
class AuditResult:
    per_state: dict[str, tuple[int, int]]
    overall: dict[str, float]
    ci: dict[str, tuple[float, float]]
    per_participant: dict[str, dict]
    scored: int
    unmatched: int

    def tables(self) -> tuple[Table, Table, Table]:
        t4: Table = [["Pipeline state", "#Marks", "#Visible", "Acc. (%)"]]
        for name in STATE_NAMES:
            marks, vis = self.per_state.get(name, (0, 0))
            if not marks:
                continue
            if name in ("in_motion", "not_groundable"):
                acc = "—"
            else:
                acc = fmt(100 * (vis if name == "detected_visible" else marks - vis) / marks, digits=1)
            t4.append([name, str(marks), str(vis), acc])
        t5: Table = [["Metric", "All marks", "95% CI"]]
        for key, label in (
            ("accuracy", "Accuracy"),
            ("precision", "Precision"),
            ("recall", "Recall"),
            ("f1", "F1"),
            ("balanced_accuracy", "Balanced acc."),
        ):
            lo, hi = self.ci[key]
            t5.append([label, fmt(self.overall[key], digits=1), f"[{lo:.1f}, {hi:.1f}]"])
        t5.append(["Audited marks", str(self.scored), ""])
        t6: Table = [["Part.", "Marks", "Acc.", "Prec.", "Rec.", "Bal. acc."]]
        for p in sorted(self.per_participant):
            m = self.per_participant[p]
            t6.append(
                [
                    p,
                    str(m["marks"]),
                    fmt(m["accuracy"], digits=1),
                    fmt(m["precision"], digits=1),
                    fmt(m["recall"], digits=1),
                    fmt(m["balanced_accuracy"], digits=1),
                ]
            )
        t6.append(
            [
                "All",
                str(self.scored),
                *(
                    fmt(self.overall[k], digits=1)
                    for k in ("accuracy", "precision", "recall", "balanced_accuracy")
                ),
            ]
        )
        return t4, t5, t6

    def markdown(self) -> str:
        t4, t5, t6 = self.tables()
        return "\n".join(
            [
                "### Table 4 — marks per pipeline state\n",
                to_markdown(t4),
                "### Table 5 — pipeline vs marks\n",
                to_markdown(t5),
                "### Table 6 — per participant\n",
                to_markdown(t6),
            ]
        )

    def as_dict(self) -> dict:
        return {
            "per_state": {k: {"marks": m, "visible": v} for k, (m, v) in self.per_state.items()},
            "overall": self.overall,
            "ci95": {k: list(v) for k, v in self.ci.items()},
            "per_participant": self.per_participant,
            "scored": self.scored,
            "unmatched": self.unmatched,
        }


def audit(
    tracks: dict[str, VisibilityTracks],
    marks: Sequence[Mark],
    participants: dict[str, str] | None = None,
    tolerance_s: float = 1.0,
    seed: int = 0,
) -> AuditResult:
    """Compare tracks (by episode id) with marks; see the module docstring."""
    participants = participants or {}
    per_state: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_episode: dict[str, _Counts] = defaultdict(_Counts)
    by_part: dict[str, _Counts] = defaultdict(_Counts)
    part_marks: dict[str, int] = defaultdict(int)
    unmatched = 0
    for m in marks:
        tr = tracks.get(m.episode)
        if tr is None or m.object not in tr.object_ids:
            unmatched += 1
            continue
        k = tr.index_of(m.time_s)
        if abs(tr.times[k] - m.time_s) > tolerance_s:
            unmatched += 1
            continue
        state = int(tr.states[tr.row(m.object), k])
        entry = per_state[STATE_NAMES[state]]
        entry[0] += 1
        entry[1] += int(m.visible)
        if state in UNSCORED:
            continue
        pred = state == DETECTED_VISIBLE
        by_episode[m.episode].add(pred, m.visible)
        part = m.participant or participants.get(m.episode) or m.episode.split("-", 1)[0]
        by_part[part].add(pred, m.visible)
        part_marks[part] += 1
    episodes = sorted(by_episode)
    per_cluster = np.stack([by_episode[e].array() for e in episodes]) if episodes else np.zeros((0, 4))
    total = per_cluster.sum(axis=0) if episodes else np.zeros(4)
    return AuditResult(
        per_state={k: (v[0], v[1]) for k, v in per_state.items()},
        overall=metrics(total),
        ci=metrics_ci(per_cluster, seed=seed) if episodes else {},
        per_participant={p: {"marks": part_marks[p], **metrics(c.array())} for p, c in by_part.items()},
        scored=int(total.sum()),
        unmatched=unmatched,
    )


def audit_worlds(
    worlds: Sequence[str | Path],
    *,
    marks: str | Path | None = None,
    truth: bool = False,
    detections: str = "auto",
    depth: str = "auto",
    min_pixels: int | None = None,
) -> AuditResult:
    """Build the tracks of ``worlds`` (as a build would, or with a perfect detector: ``detections="perfect"``)
    and audit them against a marks CSV or the worlds' exact visibility."""
    from egoworld.benchmarks.beyond3d.build.anchor_samples import participant
    from egoworld.benchmarks.beyond3d.build.builder import detection_table, load_worlds, sim_half_sizes
    from egoworld.benchmarks.beyond3d.build.visibility_tracks import TrackConfig, build_tracks

    if (marks is None) == (not truth):
        raise InputFileError("pass either a marks CSV (--marks) or --truth (the worlds' exact visibility)")
    loaded = load_worlds(worlds)
    cfg = TrackConfig(depth=depth)
    tracks = {}
    for folder, ep in loaded:
        det = (
            perfect_detections(folder, ep, min_pixels)
            if detections == "perfect"
            else detection_table(folder, ep, detections)
        )
        tracks[ep.id] = build_tracks(
            ep, root=folder, config=cfg, detections=det, half_sizes=sim_half_sizes(folder, ep)
        )
    parts = {ep.id: participant(ep) for _, ep in loaded}
    if marks is not None:
        return audit(tracks, read_marks_csv(marks), parts)
    # exact visibility comes per video frame: audit the frames at the tracks' own sample times
    found = []
    for f, ep in loaded:
        on_grid = set(np.round(tracks[ep.id].times, 6).tolist())
        found += [m for m in truth_marks(f, ep, parts[ep.id], min_pixels) if round(m.time_s, 6) in on_grid]
    return audit(tracks, found, parts, tolerance_s=1e-6)
