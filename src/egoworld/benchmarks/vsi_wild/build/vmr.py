"""VMR — motion orientation recall: which way the camera moves, relative to the view's looking direction, at
an indicated moment of a view video.

Rules (thresholds in `VMRRules`, stored in the manifest):

* Candidate moments are the view video's frames at least ``edge_s`` + the window from its start and end.
* Window: ``t ± W`` with ``W = max(window_s, one pose interval)``, cut into segments of one pose interval
  (at least 2). The answer angle is the horizontal displacement from ``t − W`` to ``t + W`` in the view's
  camera frame at ``t`` (x right, z forward): 0° forward, +90° right, ±180° backward, −90° left.
* Steady: every segment moves at ≥ the minimum speed (too slow → rejected) and its direction, in the view
  frame of its own midpoint, stays within ``max_turn_deg`` of the answer; the camera's heading changes by at
  most ``max_turn_deg`` over the window.
* Unambiguous: the answer lies within ``max_off_deg`` of a class centre — cardinal set (forward, right,
  backward, left) or diagonal set (forward-right, …) — so it is at least ``45 − max_off_deg`` from any
  boundary (near a boundary → rejected). The options are that set's four directions. With the defaults a
  direction measured anywhere in the window stays within 20 + 10 + 10 = 40° < 45° of the answer's centre.
* The minimum speed is ``min_speed_m_s`` on a metric trajectory. A trajectory without metric scale
  (``meta["perception"]["poses"]["metric"]`` False: monocular odometry, a scale-less file) measures in its
  own units, so the threshold is put in them: ``min_speed_m_s × typical ÷ walking_speed_m_s``, where
  ``typical`` is the median speed of the trajectory's moving pose steps (in its units per second) and
  ``walking_speed_m_s`` (1.4) the walking speed it stands for — "at least 0.5 / 1.4 of the walk's usual
  speed". (OpenCV odometry gives every step the same speed, 1 unit/s, so there the rule cannot tell a slow
  sidestep from a walk: a metric trajectory, ``--scale`` or an Aria MPS import, is the cure.)
* Untrusted poses: no moment whose window meets a span the trajectory's self-check marked
  (``meta["perception"]["poses"]["check"]["untrusted_s"]``: jumps, sawtooth, held frames, registration gaps;
  `egoworld.perception.video.trajectory_check`) or that ``egoworld world fix`` flagged
  (``meta["pose_flags"]``); how many moments each reason left out is reported by the build.
* Doubt (`doubt.vmr`): the margin of the window's and its segments' directions to the option boundary, and
  a self-check span within one window of the moment's window.
* Moments of one view video are at least ``min_separation_s`` apart.
* Answer mix (`choose`): the release's shares of the two option sets (`mixes.VMR_MIX`: 78.8 % cardinal,
  21.2 % diagonal), each set a multiple of 4 questions with its four directions in turn, so each direction
  of a set is equally often correct; the correct letter is balanced per set (the draft's balance key) and
  the file holds whole blocks of 4 of one set, merged in the sets' proportion.

How the moment is shown (``moment``, a builder option): ``frame`` — the moment's frame is listed after the
sampled frames, labelled "Indicated moment"; ``timestamp`` — the question names the time (HH:MM:SS);
``both`` (default) — the labelled frame and the time, so the moment is defined in every input setting
(text-only runs get the time; frame runs see the exact image and where it sits in the video).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from egoworld.benchmarks.vsi_wild.build import doubt
from egoworld.benchmarks.vsi_wild.build.config import VMRRules
from egoworld.benchmarks.vsi_wild.build.drafts import Draft, select, weighted_merge
from egoworld.benchmarks.vsi_wild.build.mixes import VMR_MIX, VMR_SETS
from egoworld.benchmarks.vsi_wild.timing import duration_group, hms
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.schema import FrameInput, Media, VideoInput
from egoworld.geometry.transforms import rotation_about
from egoworld.world.fields import ref
from egoworld.world.walk_source import ViewVideo, WalkSource

CARDINAL = {"forward": 0.0, "right": 90.0, "backward": 180.0, "left": -90.0}
DIAGONAL = {"forward-right": 45.0, "backward-right": 135.0, "backward-left": -135.0, "forward-left": -45.0}
QUESTION = (
    "[Single-Choice] At {moment} in this clip, which direction is the camera/person moving? "
    "(forward = the direction the camera is facing)"
)


def wrap(deg: NDArray | float) -> NDArray | float:
    """Angle difference wrapped to [−180, 180)."""
    return (np.asarray(deg) + 180.0) % 360.0 - 180.0


def classify(angle_deg: float, max_off_deg: float) -> tuple[str, str] | None:
    """(direction, option set) of an angle, or None when it is not within ``max_off_deg`` of a centre."""
    for set_name, centres in (("cardinal", CARDINAL), ("diagonal", DIAGONAL)):
        for label, c in centres.items():
            if abs(float(wrap(angle_deg - c))) <= max_off_deg:
                return label, set_name
    return None


@dataclass(frozen=True)
class Moment:
    time_s: float
    frame: int
    angle_deg: float
    speed_m_s: float
    direction: str
    option_set: str
    off_deg: float = (
        0.0  # the largest offset from the answer's centre of the window's and segments' directions
    )


def _turn(rot: NDArray, ref: NDArray) -> NDArray:
    """Yaw (deg, about the camera's own vertical axis) of each ``rot`` (…, k, 3, 3) relative to ``ref`` (…, 3, 3):
    the later forward axis seen in the reference camera frame (no assumption about the world's up axis)."""
    fwd = np.einsum("nji,nkj->nki", ref, rot[..., :, 2])
    return np.degrees(np.arctan2(fwd[..., 0], fwd[..., 2]))


def poses_record(src: WalkSource) -> dict:
    """``meta["perception"]["poses"]`` (empty for a world with true poses, e.g. a synthetic walk)."""
    return dict((src.episode.meta.get("perception") or {}).get("poses") or {})


def is_metric(src: WalkSource) -> bool:
    """Whether the poses are in metres (true poses of a synthetic walk are; perceived ones say so)."""
    return bool(poses_record(src).get("metric", True))


def min_speed(src: WalkSource, rules: VMRRules) -> tuple[float, str]:
    """The minimum segment speed in the trajectory's own units and that unit (see the module docstring)."""
    if is_metric(src):
        return rules.min_speed_m_s, "m/s"
    poses = src.episode.poses
    assert poses is not None
    speed = np.linalg.norm(np.diff(poses.positions, axis=0), axis=1) / np.diff(poses.times_s)
    moving = speed[speed > 1e-9]
    typical = float(np.median(moving)) if len(moving) else 0.0
    return rules.min_speed_m_s * typical / rules.walking_speed_m_s, "unit/s"


def untrusted(src: WalkSource) -> list[tuple[float, float, str]]:
    """Spans whose poses cannot be trusted: the self-check's and ``world fix``'s flags, with the reason."""
    spans = [(float(f["start_s"]), float(f["end_s"]), "flagged by world fix")
             for f in src.episode.meta.get("pose_flags") or []]  # fmt: skip
    check = poses_record(src).get("check") or {}
    spans += [(float(s["start_s"]), float(s["end_s"]), str(s.get("why", "self-check")))
              for s in check.get("untrusted_s") or []]  # fmt: skip
    return spans


def analyse(src: WalkSource, view: ViewVideo, times: NDArray, rules: VMRRules) -> list[Moment | None]:
    """The motion at each of ``times`` (view video frame times); None where the rules reject it."""
    poses = src.episode.poses
    assert poses is not None
    least, _unit = min_speed(src, rules)
    pose_dt = float(np.median(np.diff(poses.times_s)))
    w = max(rules.window_s, pose_dt)
    m = max(2, math.ceil(2 * w / pose_dt - 1e-9))
    offsets = np.linspace(-w, w, m + 1)
    tau = times[:, None] + offsets[None, :]
    mats = poses.interpolate(tau.ravel()).reshape(len(times), m + 1, 4, 4)
    mids = poses.interpolate(((tau[:, 1:] + tau[:, :-1]) / 2).ravel()).reshape(len(times), m, 4, 4)
    at_t = poses.interpolate(times)
    r_yaw = rotation_about("y", view.yaw_deg)
    pos = mats[..., :3, 3]
    seg = pos[:, 1:] - pos[:, :-1]
    local = np.einsum("nkji,nkj->nki", mids[..., :3, :3] @ r_yaw, seg)  # R_view^T · d
    seg_angle = np.degrees(np.arctan2(local[..., 0], local[..., 2]))
    seg_speed = np.hypot(local[..., 0], local[..., 2]) / (offsets[1] - offsets[0])
    total = np.einsum("nji,nj->ni", at_t[:, :3, :3] @ r_yaw, pos[:, -1] - pos[:, 0])
    angle = np.degrees(np.arctan2(total[:, 0], total[:, 2]))
    turn = np.abs(_turn(mats[..., :3, :3], at_t[:, :3, :3])).max(axis=1)
    out: list[Moment | None] = []
    for i, t in enumerate(times):
        steady = (
            seg_speed[i].min() >= least
            and np.abs(wrap(seg_angle[i] - angle[i])).max() <= rules.max_turn_deg
            and turn[i] <= rules.max_turn_deg
        )
        cls = classify(float(angle[i]), rules.max_off_deg) if steady else None
        if cls is None:
            out.append(None)
            continue
        frame = view.index.nearest(float(t))
        speed = float(np.hypot(total[i, 0], total[i, 2]) / (2 * w))
        centre = (CARDINAL if cls[1] == "cardinal" else DIAGONAL)[cls[0]]
        off = max(abs(float(wrap(angle[i] - centre))), float(np.abs(wrap(seg_angle[i] - centre)).max()))
        out.append(Moment(float(t), frame, float(angle[i]), speed, cls[0], cls[1], off))
    return out


def moments(
    src: WalkSource, view_name: str, rules: VMRRules, seed: int, left_out: dict[str, int] | None = None
) -> list[Moment]:
    """Accepted moments of one view video, at least ``min_separation_s`` apart (seeded choice);
    ``left_out`` counts the candidate moments left out for untrusted poses, by reason."""
    view = src.views[view_name]
    t = view.times
    w = window_s(src, rules)
    lo, hi = rules.edge_s + w, min(view.duration_s, float(t[-1])) - rules.edge_s - w
    cand = t[(t >= lo) & (t <= hi)]
    flags = untrusted(src)
    if flags:  # no moment whose window meets poses the self-check or `egoworld world fix` flagged
        keep = []
        for x in cand:
            why = next((r for a, b, r in flags if a <= x + w and x - w <= b), None)
            if why is None:
                keep.append(x)
            elif left_out is not None:
                left_out[why] = left_out.get(why, 0) + 1
        cand = np.array(keep)
    found = [m for m in analyse(src, view, cand, rules) if m is not None] if len(cand) else []
    seeded_rng(seed, src.id, view_name, "vmr").shuffle(found)
    kept: list[Moment] = []
    for m in found:
        if all(abs(m.time_s - k.time_s) >= rules.min_separation_s for k in kept):
            kept.append(m)
    return sorted(kept, key=lambda m: m.time_s)


def window_s(src: WalkSource, rules: VMRRules) -> float:
    """The half-window W of the displacement (at least one pose step)."""
    return max(rules.window_s, float(np.median(np.diff(src.episode.poses.times_s))))  # type: ignore[union-attr]


def _span(t: float, w: float) -> tuple[float, float]:
    return (round(t - w, 6), round(t + w, 6))


def drafts(
    src: WalkSource,
    view_name: str,
    video_path: str,
    rules: VMRRules,
    seed: int,
    left_out: dict[str, int] | None = None,
) -> list[Draft]:
    """VMR drafts of one view video (``left_out``: see `moments`)."""
    view = src.views[view_name]
    vid = src.video_id(view_name)
    w = window_s(src, rules)
    least, unit = min_speed(src, rules)
    flags = untrusted(src)
    out = []
    for m in moments(src, view_name, rules, seed, left_out):
        near = any(a <= m.time_s + 2 * w and m.time_s - 2 * w <= b for a, b, _ in flags)
        stamp = hms(m.time_s)
        where = {"frame": "the indicated moment", "timestamp": stamp}.get(
            rules.moment, f"the indicated moment ({stamp})"
        )
        frames: tuple[FrameInput, ...] = ()
        if rules.moment != "timestamp":
            label = "Indicated moment" if rules.moment == "frame" else f"Indicated moment ({stamp})"
            frames = (
                FrameInput(index=m.frame, time_s=round(m.time_s, 6), label=label, role="indicated_moment"),
            )
        options = CARDINAL if m.option_set == "cardinal" else DIAGONAL
        out.append(
            Draft(
                id=f"{vid}|VMR|{m.frame}",
                task="VMR",
                video=vid,
                cluster=src.id,
                question=QUESTION.format(moment=where),
                correct=m.direction,
                distractors=tuple(o for o in options if o != m.direction),
                media=Media(
                    video=VideoInput(path=video_path, duration_s=round(view.duration_s, 6)), frames=frames
                ),
                metadata={
                    "view": view_name,
                    "moment_s": round(m.time_s, 6),
                    "moment_frame": m.frame,
                    "moment_shown": rules.moment,
                    "direction": m.direction,
                    "option_set": m.option_set,
                    "angle_deg": round(m.angle_deg, 2),
                    "speed_m_s": round(m.speed_m_s, 3),
                    "off_deg": round(m.off_deg, 2),
                    **doubt.vmr(m.off_deg, near),
                    **({} if unit == "m/s" else {"speed_unit": unit, "min_speed": round(least, 6)}),
                    "duration_s": round(view.duration_s, 6),
                    "duration_group": duration_group(view.duration_s),
                    "provenance": [
                        ref("pose", src.id, f"{m.time_s:.6g}", "flagged", False, span=_span(m.time_s, w))
                    ],
                },
                stratum=m.direction,
                balance=m.option_set,
            )
        )
    return out


def _blocks(items: list[Draft], n: int) -> list[list[Draft]]:
    return [items[i : i + 4] for i in range(0, n, 4)]


def choose(drafts: list[Draft], n: int | None, seed: int) -> list[Draft]:
    """Up to ``n`` drafts in the release's option-set mix (see the module docstring): never more than both
    sets can fill in that mix (the build reports a count below ``n``); a set left with no candidates at all
    leaves the other alone (the build reports the mix's distance to the release). ``n`` None: every
    candidate (in blocks of 4 per set)."""
    share = {k: sum(VMR_MIX[d] for d in dirs) for k, dirs in VMR_SETS.items()}
    lists = {k: select([d for d in drafts if d.balance == k], None, seed, "VMR") for k in VMR_SETS}
    have = {k: len(v) - len(v) % 4 for k, v in lists.items()}
    total = sum(have.values()) if n is None else min(n - n % 4, sum(have.values()))
    if n is not None and all(have.values()):  # the largest count both sets fill in the mix (None: all)
        fit = int(min(have[k] / share[k] for k in share))
        total = min(total, fit - fit % 4)
    want = {"diagonal": 4 * round(total * share["diagonal"] / 4)}
    want["cardinal"] = total - want["diagonal"]
    short = {k: want[k] - have[k] for k in want if want[k] > have[k]}
    for k, missing in short.items():  # the other set fills the count
        other = next(o for o in want if o != k)
        want[k] = have[k]
        want[other] = min(have[other], want[other] + missing)
    blocks = {k: _blocks(lists[k], want[k]) for k in VMR_SETS}
    return [d for b in weighted_merge(blocks, share) for d in b]
