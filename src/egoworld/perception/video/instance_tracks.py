"""Detections → instances: ByteTrack (the maintained ``trackers`` package, successor of ``supervision``'s
tracker) links boxes frame to frame, one tracker per label; re-identification then joins tracklets.

Re-identification rule (documented, deterministic): tracklets are taken in order of their first time; a
tracklet joins the earlier instance of the same label that ended before it began, within ``reid_gap_s``,
whose last box centre is nearest its first box centre, provided that distance is at most ``reid_gate`` of
the image diagonal (position gating: an object that leaves and re-enters view near where it left keeps its
identity). A box ByteTrack leaves unnamed (a track's first box, or a low-score box no track took) is a
one-box tracklet; with ``min_tracklet`` 2 (walks: many labels, sparse far objects) a one-box tracklet (a
sparsely detected far object, or a false positive) is not re-identified but attached, after the others, to the instance (or the chain of such
boxes) with a box within ``join_gap_s`` and ``join_gate`` of the diagonal of it (one scoring below
``activation`` starts no chain), so scattered false
positives of one label never pile up into an instance (the default, 1, re-identifies every tracklet:
kitchens at 2 frames/s, where ByteTrack often names a box alone). With ``rays`` (`reid3d`, poses of the
perceived trajectory) a tracklet of ``min_tracklet`` boxes or more first joins the instance its rays meet in
3D; instances its rays clearly miss are left out of the 2D rule. Instances with fewer than ``min_frames``
detections are dropped (isolated false positives).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from egoworld.perception.detectors.detector import FrameDetections
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.reid3d import Rays


@dataclass
class Instance:
    id: str
    label: str
    times: list[float] = field(default_factory=list)
    boxes: list[tuple[float, ...]] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class TrackSettings:
    lost_track_s: float = 2.0
    activation: float = 0.5
    high_conf: float = 0.6
    min_iou: float = 0.1
    min_frames: int = 3
    reid_gap_s: float = 30.0
    reid_gate: float = 0.6
    min_tracklet: int = 1
    join_gap_s: float = 8.0
    join_gate: float = 0.15

    def provenance(self) -> Provenance:
        from dataclasses import asdict

        return Provenance("bytetrack", "trackers", asdict(self))


def _bytetrack(
    rows: Sequence[FrameDetections], label: str, fps: float, s: TrackSettings
) -> dict[int, Instance]:
    import supervision as sv
    from trackers import ByteTrackTracker

    tracker = ByteTrackTracker(
        lost_track_buffer=max(1, round(s.lost_track_s * 30)),
        frame_rate=fps,
        track_activation_threshold=s.activation,
        minimum_consecutive_frames=1,
        minimum_iou_threshold=s.min_iou,
        high_conf_det_threshold=s.high_conf,
    )
    out: dict[int, Instance] = {}
    single = 0
    for row in rows:
        dets = [d for d in row.detections if d.label == label]
        xyxy = np.array([d.bbox for d in dets], np.float64).reshape(-1, 4)
        conf = np.array([d.score for d in dets], np.float64)
        res = tracker.update(sv.Detections(xyxy=xyxy, confidence=conf), timestamp=row.time_s)
        for box, score, tid in zip(res.xyxy, res.confidence, res.tracker_id, strict=True):
            if tid < 0:  # a track's first box (ByteTrack names it from its second) or a low-score box
                single -= 1
                tid = single
            inst = out.setdefault(int(tid), Instance(f"{label}#{tid}", label))
            inst.times.append(row.time_s)
            inst.boxes.append(tuple(float(v) for v in box))
            inst.scores.append(float(score))
    return out


def _centre(box: Sequence[float]) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])


def _merge(inst: Instance, tl: Instance) -> None:
    order = np.argsort(inst.times + tl.times, kind="stable")
    times, boxes, scores = inst.times + tl.times, inst.boxes + tl.boxes, inst.scores + tl.scores
    inst.times, inst.boxes, inst.scores = (
        [times[i] for i in order],
        [boxes[i] for i in order],
        [scores[i] for i in order],
    )


def _overlap(a: Instance, b: Instance) -> bool:
    return not set(a.times).isdisjoint(b.times)  # two boxes of one frame are two objects


def _near_2d(tl: Instance, inst: Instance, max_gap: float, gate: float, after_only: bool) -> float | None:
    """Pixel distance of ``tl``'s first box to ``inst``'s box nearest in time (its last box when
    ``after_only``: ``tl`` must begin after ``inst`` ended), None beyond ``max_gap`` or ``gate``."""
    t = tl.times[0]
    if after_only:
        j = len(inst.times) - 1
        if not 0 < t - inst.times[j] <= max_gap:
            return None
    else:
        j = int(np.argmin(np.abs(np.asarray(inst.times) - t)))
        if abs(inst.times[j] - t) > max_gap:
            return None
    d = float(np.linalg.norm(_centre(inst.boxes[j]) - _centre(tl.boxes[0])))
    return d if d <= gate else None


def _join(tracklets: list[Instance], s: TrackSettings, diag: float, rays: Rays | None) -> list[Instance]:
    """Tracklets → instances by the re-identification rule of the module docstring."""
    out: list[Instance] = []
    cache: dict[int, tuple] = {}

    def rays_of(inst: Instance) -> tuple:
        key = id(inst)
        if key not in cache or len(cache[key][0]) != len(inst.times):
            cache[key] = rays.of(inst.times, inst.boxes)  # type: ignore[union-attr]
        return cache[key]

    longs = [t for t in tracklets if len(t.times) >= s.min_tracklet]
    shorts = [t for t in tracklets if len(t.times) < s.min_tracklet]
    for short, group in ((False, longs), (True, shorts)):
        for tl in group:
            cands = [i for i in out if i.label == tl.label and not _overlap(i, tl)]
            best: Instance | None = None
            open_2d = cands
            if rays is not None and cands and not short:
                mine = rays.of(tl.times, tl.boxes)
                scored, open_2d = [], []
                for inst in cands:
                    sc = rays.score(rays_of(inst), mine)
                    if sc is not None and sc <= rays.max_angle_deg:
                        scored.append((sc, inst.times[0], inst))
                    elif sc is None or sc < rays.reject_angle_deg:
                        open_2d.append(inst)
                if scored:
                    best = min(scored, key=lambda x: x[:2])[2]
            if best is None:
                gap, gate = (s.join_gap_s, s.join_gate) if short else (s.reid_gap_s, s.reid_gate)
                near = [(d, i.times[0], i) for i in open_2d
                        if (d := _near_2d(tl, i, gap, gate * diag, not short)) is not None]  # fmt: skip
                best = min(near, key=lambda x: x[:2])[2] if near else None
            if best is None and short and max(tl.scores) < s.activation:
                continue  # a low-score box alone never starts an instance (ByteTrack's activation rule)
            if best is None:
                out.append(Instance("", tl.label, list(tl.times), list(tl.boxes), list(tl.scores)))
            else:
                _merge(best, tl)
    return sorted(out, key=lambda i: (i.times[0], i.boxes[0]))


def track(
    rows: Sequence[FrameDetections],
    size: tuple[int, int],
    settings: TrackSettings = TrackSettings(),
    prefix: str = "p",
    rays: Rays | None = None,
) -> list[Instance]:
    """Instances of one view's detections (``size``: image width, height), ids ``<prefix>_<label>_<k>``."""
    rows = sorted(rows, key=lambda r: r.time_s)
    times = np.array([r.time_s for r in rows])
    fps = 1.0 / float(np.median(np.diff(times))) if len(times) > 1 else 1.0
    diag = float(np.hypot(*size))
    out: list[Instance] = []
    for label in sorted({d.label for r in rows for d in r.detections}):
        tracklets = sorted(_bytetrack(rows, label, fps, settings).values(), key=lambda i: (i.times[0], i.id))
        joined = _join(tracklets, settings, diag, rays)
        kept = [i for i in joined if len(i.times) >= settings.min_frames]
        for k, inst in enumerate(kept):
            inst.id = f"{prefix}_{label.replace(' ', '_')}_{k:03d}"
        out.extend(kept)
    return out
