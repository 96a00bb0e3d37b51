"""Detections → instances: ByteTrack (the maintained ``trackers`` package, successor of ``supervision``'s
tracker) links boxes frame to frame, one tracker per label; re-identification then joins tracklets.

Re-identification rule (documented, deterministic): tracklets are taken in order of their first time; a
tracklet joins the earlier instance of the same label that ended before it began, within ``reid_gap_s``,
whose last box centre is nearest its first box centre, provided that distance is at most ``reid_gate`` of
the image diagonal (position gating: an object that leaves and re-enters view near where it left, or is
missed for a few frames, keeps its identity). A box ByteTrack leaves unnamed (a track's first box, or a
low-score box no track took) is a one-box tracklet, so re-identification can join it. Instances with fewer
than ``min_frames`` detections are dropped (isolated false positives).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from egoworld.perception.detect import FrameDetections
from egoworld.perception.provenance import Provenance


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


def track(
    rows: Sequence[FrameDetections],
    size: tuple[int, int],
    settings: TrackSettings = TrackSettings(),
    prefix: str = "p",
) -> list[Instance]:
    """Instances of one view's detections (``size``: image width, height), ids ``<prefix>_<label>_<k>``."""
    rows = sorted(rows, key=lambda r: r.time_s)
    times = np.array([r.time_s for r in rows])
    fps = 1.0 / float(np.median(np.diff(times))) if len(times) > 1 else 1.0
    diag = float(np.hypot(*size))
    out: list[Instance] = []
    for label in sorted({d.label for r in rows for d in r.detections}):
        tracklets = sorted(_bytetrack(rows, label, fps, settings).values(), key=lambda i: (i.times[0], i.id))
        joined: list[Instance] = []
        for tl in tracklets:
            best, best_d = None, settings.reid_gate * diag
            for inst in joined:
                gap = tl.times[0] - inst.times[-1]
                if 0 < gap <= settings.reid_gap_s:
                    d = float(np.linalg.norm(_centre(inst.boxes[-1]) - _centre(tl.boxes[0])))
                    if d <= best_d:
                        best, best_d = inst, d
            if best is None:
                joined.append(Instance("", label, list(tl.times), list(tl.boxes), list(tl.scores)))
            else:
                best.times += tl.times
                best.boxes += tl.boxes
                best.scores += tl.scores
        kept = [i for i in joined if len(i.times) >= settings.min_frames]
        for k, inst in enumerate(kept):
            inst.id = f"{prefix}_{label.replace(' ', '_')}_{k:03d}"
        out.extend(kept)
    return out
