"""A perceived trajectory's self-check: where its poses cannot be trusted, written beside the trajectory
(``episode.json`` ``meta["perception"]["poses"]["check"]``) and printed as a warning.

Rules (the thresholds are module constants, recorded in the check as ``rules``):

* **jump**: a pose step whose speed is above ``JUMP_FACTOR`` × the median speed of the moving steps (a
  registration that snapped somewhere else);
* **sawtooth**: ``SAWTOOTH_RUN`` or more consecutive reversals — each step at least half the median moving
  step and pointing back (cosine below ``SAWTOOTH_COS``) from the one before (forward / back / forward …,
  which a walker does not do but a flipping estimate does);
* **held**: frames whose pose the estimator held over a degenerate frame pair (``notes["held_s"]``: a black
  or blank frame, collinear tracks, OpenCV refusing the pair);
* **gap**: a run of unregistered (interpolated) frames longer than ``GAP_S`` seconds: the motion inside it
  is made up by interpolation;
* **loop**: the loop-closure residual when the backend reports one (``notes["loop_residual"]``); recorded,
  not turned into spans.

``untrusted_s`` lists the spans ``{start_s, end_s, why}`` (merged per reason); builders leave out questions
whose window meets one (VSI-Super-Wild's VMR: `egoworld.benchmarks.vsi_wild.build.vmr`).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class CheckedTrack(Protocol):
    """What the check reads of a trajectory (`egoworld.perception.video.trajectory.Trajectory`, which calls it)."""

    @property
    def times_s(self) -> Any: ...
    @property
    def positions(self) -> Any: ...
    @property
    def registered(self) -> Any: ...
    @property
    def metric(self) -> bool: ...
    @property
    def notes(self) -> dict: ...


JUMP_FACTOR = 5.0
SAWTOOTH_COS = -0.5
SAWTOOTH_RUN = 2
GAP_S = 1.0


def _spans(times: np.ndarray, flags: np.ndarray, why: str, pad: int = 1) -> list[dict]:
    """Runs of ``flags`` (per frame) as spans reaching to the neighbouring frames."""
    out: list[dict] = []
    idx = np.flatnonzero(flags)
    for i in idx:
        a, b = float(times[max(0, i - pad)]), float(times[min(len(times) - 1, i + pad)])
        if out and a <= out[-1]["end_s"]:
            out[-1]["end_s"] = round(max(out[-1]["end_s"], b), 6)
        else:
            out.append({"start_s": round(a, 6), "end_s": round(b, 6), "why": why})
    return out


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of True."""
    out, start = [], None
    for i, f in enumerate(flags):
        if f and start is None:
            start = i
        if not f and start is not None:
            out.append((start, i - 1))
            start = None
    if start is not None:
        out.append((start, len(flags) - 1))
    return out


def check_trajectory(traj: CheckedTrack) -> dict:
    """The self-check of ``traj`` (see the module docstring)."""
    t, p = traj.times_s, traj.positions
    n = len(t)
    step = p[1:] - p[:-1] if n > 1 else np.zeros((0, 3))
    length = np.linalg.norm(step, axis=1)
    speed = length / np.diff(t) if n > 1 else np.zeros(0)
    moving = speed > 1e-9
    med = float(np.median(speed[moving])) if moving.any() else 0.0
    jump = np.zeros(n, bool)
    if med > 0:
        jump[1:] = speed > JUMP_FACTOR * med
    back = np.zeros(n, bool)
    if med > 0 and n > 2:
        big = speed > 0.5 * med
        cos = np.einsum("ij,ij->i", step[:-1], step[1:]) / np.maximum(length[:-1] * length[1:], 1e-12)
        rev = (cos < SAWTOOTH_COS) & big[:-1] & big[1:]
        for a, b in _runs(rev):
            if b - a + 1 >= SAWTOOTH_RUN:
                back[a + 1 : b + 3] = True
    held_s = set(traj.notes.get("held_s") or [])
    held = np.array([round(float(x), 6) in held_s for x in t], bool)
    gap = np.zeros(n, bool)
    reg = np.asarray(traj.registered, bool)
    for a, b in _runs(~reg):
        lo, hi = max(0, a - 1), min(n - 1, b + 1)
        if t[hi] - t[lo] > GAP_S:
            gap[a : b + 1] = True
    untrusted = (
        _spans(t, jump, "jump")
        + _spans(t, back, "sawtooth")
        + _spans(t, held, "held")
        + _spans(t, gap, "gap")
    )
    unit = "m" if traj.metric else "unit"
    counts = {
        "jumps": int(jump.sum()),
        "sawtooth_frames": int(back.sum()),
        "held_frames": int(held.sum()),
        "gap_frames": int(gap.sum()),
    }
    warnings = []
    if counts["jumps"]:
        warnings.append(f"{counts['jumps']} pose step(s) over {JUMP_FACTOR:g}× the median step "
                        f"({med:.3g} {unit}/s)")  # fmt: skip
    if counts["sawtooth_frames"]:
        warnings.append(f"{counts['sawtooth_frames']} frame(s) in forward/back sawtooth")
    if counts["held_frames"]:
        why = ", ".join(f"{k} {v}" for k, v in (traj.notes.get("held_why") or {}).items())
        warnings.append(
            f"{counts['held_frames']} frame(s) held over degenerate frame pairs"
            + (f" ({why})" if why else "")
        )
    if counts["gap_frames"]:
        warnings.append(
            f"{counts['gap_frames']} frame(s) in registration gaps over {GAP_S:g} s (interpolated)"
        )
    duration = float(t[-1] - t[0]) if n > 1 else 0.0
    covered = sum(s["end_s"] - s["start_s"] for s in untrusted)
    return {
        "ok": not untrusted,
        "median_speed": round(med, 6),
        "speed_unit": f"{unit}/s",
        **counts,
        "loop_residual": traj.notes.get("loop_residual"),
        "untrusted_s": untrusted,
        "untrusted_share": round(min(1.0, covered / duration), 4) if duration else 0.0,
        "warnings": warnings,
        "rules": {
            "jump_factor": JUMP_FACTOR,
            "sawtooth_cos": SAWTOOTH_COS,
            "sawtooth_run": SAWTOOTH_RUN,
            "gap_s": GAP_S,
        },  # fmt: skip
    }


def check_lines(episode: str, check: dict) -> list[str]:
    """The warning lines a command prints for a check (none when it found nothing)."""
    if check.get("ok", True):
        return []
    head = f"WARNING: {episode}: the trajectory is untrusted over {100 * check['untrusted_share']:.0f} % of its time"
    return [
        head + ": " + "; ".join(check["warnings"]) + " (meta.perception.poses.check; VMR leaves these out)"
    ]
