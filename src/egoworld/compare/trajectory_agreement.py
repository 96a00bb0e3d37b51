"""A perceived trajectory and place timeline measured against the truth.

`trajectory_agreement`: ATE (RMSE of positions after Sim(3) alignment, Umeyama, by ``evo``), the same as a
% of the true path length, RPE (translation, between consecutive frames, after the same alignment) with
``evo``, and the registration rate. Truth poses are interpolated at the perceived frame times.
`place_agreement`: the share of time whose perceived place is the true one, after matching perceived to
true places one-to-one (Hungarian, by shared time), and the mean boundary error of matched changes.
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.optimize import linear_sum_assignment

from egoworld.perception.video.trajectory import Trajectory
from egoworld.world.poses import PoseTrack


def trajectory_agreement(perceived: Trajectory, truth: PoseTrack, registered_only: bool = False) -> dict:
    """``{ate_m, ate_pct, rpe_m, rpe_pct, path_m, scale, registration_rate, frames}`` (truth in metres);
    ``registered_only`` leaves the interpolated frames out."""
    from evo.core import metrics
    from evo.core.trajectory import PoseTrajectory3D

    keep = perceived.registered if registered_only else np.ones(len(perceived), bool)
    times = perceived.times_s[keep]
    ref = PoseTrajectory3D(poses_se3=list(truth.interpolate(times)), timestamps=times)
    est = PoseTrajectory3D(poses_se3=list(perceived.world_from_camera[keep]), timestamps=times)
    est = copy.deepcopy(est)
    _, _, scale = est.align(ref, correct_scale=True)
    ate = metrics.APE(metrics.PoseRelation.translation_part)
    ate.process_data((ref, est))
    rpe = metrics.RPE(metrics.PoseRelation.translation_part, delta=1, delta_unit=metrics.Unit.frames)
    rpe.process_data((ref, est))
    path = float(ref.path_length)
    rmse = float(ate.get_statistic(metrics.StatisticsType.rmse))
    rpe_rmse = float(rpe.get_statistic(metrics.StatisticsType.rmse))
    return {
        "frames": int(keep.sum()),
        "registration_rate": perceived.registration_rate,
        "ate_m": rmse,
        "ate_pct": 100.0 * rmse / path if path > 0 else float("nan"),
        "rpe_m": rpe_rmse,
        "rpe_pct": 100.0 * rpe_rmse / path if path > 0 else float("nan"),
        "path_m": path,
        "scale": float(scale),
    }


def _timeline(visits: list[dict], grid: np.ndarray) -> np.ndarray:
    out = np.full(len(grid), "", dtype=object)
    for v in visits:
        out[(grid >= v["start_s"]) & (grid < v["end_s"])] = v["place"]
    return out


def place_agreement(perceived: list[dict], truth: list[dict], step_s: float = 0.1) -> dict:
    """``{time_agreement, boundary_error_s, perceived_places, true_places}`` (see the module docstring)."""
    end = max(v["end_s"] for v in truth)
    grid = np.arange(0.0, end, step_s)
    a, b = _timeline(perceived, grid), _timeline(truth, grid)
    pa, pb = sorted(set(a) - {""}), sorted(set(b) - {""})
    overlap = np.array([[np.sum((a == x) & (b == y)) for y in pb] for x in pa], float)
    rows, cols = linear_sum_assignment(-overlap) if overlap.size else ([], [])
    agree = float(overlap[rows, cols].sum() / len(grid)) if len(grid) else 0.0
    mapping = {pa[r]: pb[c] for r, c in zip(rows, cols, strict=True)}
    true_cuts = np.array([v["start_s"] for v in truth[1:]])
    errors = [
        float(np.min(np.abs(true_cuts - v["start_s"])))
        for prev, v in zip(perceived, perceived[1:], strict=False)
        if len(true_cuts) and mapping.get(v["place"]) != mapping.get(prev["place"])
    ]
    return {
        "time_agreement": agree,
        "boundary_error_s": float(np.mean(errors)) if errors else None,
        "perceived_places": len(pa),
        "true_places": len(pb),
        "perceived_changes": len(perceived) - 1,
        "true_changes": len(truth) - 1,
    }
