"""A perceived world against its truth, episode by episode (`egoworld world compare`).

Episodes are paired by id. Per pair, where both folders hold the files: the trajectory (evo ATE after
Sim(3) alignment, as % of the true path length, RPE; `agreement_trajectory`), the place timeline, and per
view video the objects: count MRA per category (VSI-Super-Wild's VOC score), tracking on the per-frame
detection files both list under the same key (``detections_<view>``: the truth file's rows carry the true
``object``; motmetrics IDF1 / MOTA and TrackEval HOTA) and the first / last appearance time error of each
truth instance matched to a perceived one (by shared boxes when tracked, else by shared visible time). An
episode with one video (a kitchen) lists one ``detections`` file (view ``video``); without appearances
files the instances of the detection files stand for them.
Question agreement lives in `compare_questions`; `compare_worlds` puts both together.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from egoworld.compare.tracking_agreement import (
    count_mra,
    detected_truth,
    hota_scores,
    time_errors,
    tracking_scores,
)
from egoworld.compare.trajectory_agreement import place_agreement, trajectory_agreement
from egoworld.core.folders.files import InputFileError, iter_jsonl, read_jsonl
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.instance_tracks import Instance
from egoworld.perception.video.trajectory import Trajectory
from egoworld.world.episode import Episode
from egoworld.world.episode_folder import find_episodes, load_episode

#: appearance intervals are closed runs of frame times; matching by visible time widens each by this
PAD_S = 0.5


@dataclass(frozen=True)
class Pair:
    id: str
    perceived: Path
    truth: Path


def _episodes(root: Path, role: str) -> dict[str, Path]:
    if not root.is_dir():
        raise InputFileError(f"{root}: no such folder ({role} world); give a folder of episode folders")
    folders = find_episodes(root)
    if not folders:
        raise InputFileError(
            f"{root}: not a world (no episode.json below it); give a folder written by "
            "`egoworld world perceive` or `egoworld world synth`"
        )
    out: dict[str, Path] = {}
    for f in folders:
        ep_id = load_episode(f).id
        if ep_id in out:
            raise InputFileError(
                f"{f}: episode id {ep_id!r} repeats {out[ep_id]}; episode ids must be unique"
            )
        out[ep_id] = f
    return out


def pair_episodes(perceived: Path, truth: Path) -> tuple[list[Pair], list[str], list[str]]:
    """Pairs by episode id, and the ids found only in the perceived / only in the truth world."""
    p, t = _episodes(perceived, "perceived"), _episodes(truth, "truth")
    shared = sorted(set(p) & set(t))
    if not shared:
        raise InputFileError(
            f"{perceived} and {truth} share no episode id (perceived: {sorted(p)[:5]}, truth: "
            f"{sorted(t)[:5]}); perceive the truth world's own videos, keeping their episode names"
        )
    for i in shared:
        check_same_recording(p[i], t[i])
    return [Pair(i, p[i], t[i]) for i in shared], sorted(set(p) - set(t)), sorted(set(t) - set(p))


def check_same_recording(perceived: Path, truth: Path) -> None:
    """Refuse a pair whose two episodes cannot be one recording: durations further apart than one frame."""
    pe, te = load_episode(perceived), load_episode(truth)
    frame_s = 1.0 / min(pe.fps or 1.0, te.fps or 1.0)
    if abs(pe.duration_s - te.duration_s) > frame_s + 1e-6:
        raise InputFileError(
            f"{perceived} ({pe.duration_s:g} s) and {truth} ({te.duration_s:g} s) share the episode id "
            f"{pe.id!r} but not the recording: their durations differ by more than a frame; compare a world "
            "perceived from the truth world's own videos"
        )


def trajectory_figures(pe: Episode, te: Episode) -> dict | None:
    """ATE / RPE of the perceived poses against the true ones (None when either has no poses)."""
    if pe.poses is None or te.poses is None or len(pe.poses) < 3:
        return None
    rec = pe.meta.get("perception", {}).get("poses", {})
    missing = set(rec.get("unregistered_s", []))
    times = pe.poses.times_s
    registered = np.array([round(float(t), 6) not in missing for t in times])
    traj = Trajectory(times, pe.poses.matrices, Provenance(str(rec.get("backend", "unknown"))),
                      registered=registered)  # fmt: skip
    out = trajectory_agreement(traj, te.poses)
    out["metric"] = bool(rec.get("metric", False))
    return out


def _rows(folder: Path, ep: Episode, key: str) -> list[dict] | None:
    name = ep.media.extra.get(key)
    return list(read_jsonl(folder / name)) if name and (folder / name).is_file() else None


def place_figures(pair: Pair, pe: Episode, te: Episode) -> dict | None:
    pv, tv = _rows(pair.perceived, pe, "place_visits"), _rows(pair.truth, te, "place_visits")
    return place_agreement(pv, tv) if pv and tv else None


def instances_of(path: Path) -> list[Instance]:
    """Instances of a tracked detections file (rows ``{time_s | t, detections: [{track | object, label |
    category, bbox | box}]}``: ``track`` or else ``object`` names the instance; boxes with neither are left
    out)."""
    by_id: dict[str, Instance] = {}
    for _, row in iter_jsonl(path):
        t = round(float(row.get("time_s", row.get("t"))), 6)
        for d in row["detections"]:
            name = d.get("track") or d.get("object")
            if name:
                inst = by_id.setdefault(name, Instance(name, d.get("label", d.get("category"))))
                inst.times.append(t)
                inst.boxes.append(tuple(float(v) for v in d.get("bbox", d.get("box"))))
                inst.scores.append(float(d.get("score", 1.0)))
    return [by_id[k] for k in sorted(by_id)]


def _time_match(truth: list[dict], perceived: list[dict]) -> dict[str, str]:
    """Truth object → perceived object of the same category sharing the most visible time (Hungarian)."""
    out: dict[str, str] = {}
    for cat in sorted({r["category"] for r in truth}):
        a = [r for r in truth if r["category"] == cat]
        b = [r for r in perceived if r["category"] == cat]
        if not b:
            continue
        overlap = np.array([[_shared_s(x["intervals"], y["intervals"]) for y in b] for x in a])
        for i, j in zip(*linear_sum_assignment(-overlap), strict=True):
            if overlap[i, j] > 0:
                out[a[i]["object"]] = b[j]["object"]
    return out


def _shared_s(a: list, b: list, pad: float = PAD_S) -> float:
    """Seconds two interval lists share, each interval widened by ``pad`` (a one-frame interval has none)."""
    return float(sum(max(0.0, min(x1, y1) - max(x0, y0) + 2 * pad) for x0, x1 in a for y0, y1 in b))


def _detection_files(pair: Pair, pe: Episode, te: Episode) -> dict[str, tuple[Path, Path]]:
    """View → (perceived, truth) detection files both list under the same key (``detections_<view>``, or
    ``detections`` for a one-video episode, view ``video``)."""
    out = {}
    for key in sorted(set(pe.media.extra) & set(te.media.extra)):
        if key == "detections" or key.startswith("detections_"):
            a, b = pair.perceived / pe.media.extra[key], pair.truth / te.media.extra[key]
            if a.is_file() and b.is_file():
                out[key.removeprefix("detections_").replace("detections", "video")] = (a, b)
    return out


def rows_of(instances: list[Instance], view: str) -> list[dict]:
    """Appearance-like rows of instances (one interval first → last) where no appearances file exists."""
    return [{"view": view, "object": i.id, "category": i.label, "first_s": min(i.times), "last_s": max(i.times),
             "intervals": [[min(i.times), max(i.times)]]} for i in instances if i.times]  # fmt: skip


def object_figures(pair: Pair, pe: Episode, te: Episode) -> dict | None:
    """Per view: count MRA, tracking (where both list detection files), time errors; and their means."""
    pa, ta = _rows(pair.perceived, pe, "appearances"), _rows(pair.truth, te, "appearances")
    dets = _detection_files(pair, pe, te)
    if (pa is None or ta is None) and not dets:
        return None
    views = sorted({r["view"] for r in pa} & {r["view"] for r in ta}) if pa and ta else sorted(dets)
    per_view: dict[str, dict] = {}
    for v in views:
        fig: dict = {}
        match = None
        truth_inst: list[Instance] = []
        perceived_inst: list[Instance] = []
        if v in dets:
            boxes = detected_truth(dets[v][1])
            perceived_inst, truth_inst = instances_of(dets[v][0]), instances_of(dets[v][1])
            fig["tracking"] = tracking_scores(boxes, perceived_inst) | hota_scores(boxes, perceived_inst)
            match = fig["tracking"].pop("match")
        if pa is not None and ta is not None:
            prow = [r for r in pa if r["view"] == v]
            trow = [r for r in ta if r["view"] == v]
        else:
            prow, trow = rows_of(perceived_inst, v), rows_of(truth_inst, v)
        fig["count"] = count_mra(_counts(trow), _counts(prow))
        fig["times"] = time_errors(trow, prow, match if match is not None else _time_match(trow, prow))
        fig["times"]["matched_by"] = "boxes" if match is not None else "visible time"
        per_view[v] = fig
    if not per_view:
        return {"views": {}, "note": "the two appearances files share no view"}
    return {"views": per_view} | summarise_objects(per_view)


def _counts(rows: list[dict]) -> dict[str, int]:
    objs: dict[str, set] = defaultdict(set)
    for r in rows:
        objs[r["category"]].add(r["object"])
    return {c: len(o) for c, o in sorted(objs.items())}


def _mean(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None and np.isfinite(v)]
    return float(np.mean(vals)) if vals else None


def summarise_objects(per_view: dict[str, dict]) -> dict:
    """Means over views: count MRA (over every view × category), per category, tracking, time errors."""
    cells = [(c, m) for f in per_view.values() for c, m in f["count"]["per_category"].items()]
    per_cat: dict[str, list[float]] = defaultdict(list)
    for c, m in cells:
        per_cat[c].append(m)
    out: dict = {
        "count_mra": _mean([m for _, m in cells]),
        "count_mra_per_category": {c: float(np.mean(v)) for c, v in sorted(per_cat.items())},
        "first_s_error": _mean([f["times"]["first_s_error"] for f in per_view.values()]),
        "last_s_error": _mean([f["times"]["last_s_error"] for f in per_view.values()]),
        "matched": sum(f["times"]["matched"] for f in per_view.values()),
        "truth_objects": sum(f["times"]["truth_objects"] for f in per_view.values()),
    }
    tracked = [f["tracking"] for f in per_view.values() if "tracking" in f]
    for k in ("hota", "deta", "assa", "idf1", "mota"):
        out[k] = _mean([t[k] for t in tracked]) if tracked else None
    return out


def episode_figures(pair: Pair) -> dict:
    """Every per-episode figure the two folders allow (absent parts are None)."""
    pe, te = load_episode(pair.perceived), load_episode(pair.truth)
    return {
        "trajectory": trajectory_figures(pe, te),
        "places": place_figures(pair, pe, te),
        "objects": object_figures(pair, pe, te),
    }
