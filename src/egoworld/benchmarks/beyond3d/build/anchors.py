"""Query anchors: out-of-sight anchors and visible controls, stratified and exactly balanced.

**Out-of-sight anchor** ``(o, T_q)``: ``o`` has a unique groundable name, completed at least one movement
before ``T_q``, is ``out_of_view`` or ``occluded`` at ``T_q``, and its latest visible sample before ``T_q``
is ``detected_visible`` (not ``in_motion``) at least ``min_horizon_s`` earlier. Horizon ``h = T_q −`` that
time. Its 3D classes: the object–camera quadrant (skipped when unclear) and distance bin, and for each
visible reference object (detected visible at ``T_q``, unique name, clock radius ≥ 0.05 m) an
object–object (clock range, distance bin) cell. **Visible control**: a previously moved object that is
detected visible at ``T_q``.

Selection under exact quotas lives in `egoworld.benchmarks.beyond3d.build.select`; visible controls are
spread evenly over the query-time buckets here (`select_controls`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from egoworld.benchmarks.beyond3d.build.answer_balance import split_even
from egoworld.benchmarks.beyond3d.build.locations import groundable, unique_names
from egoworld.benchmarks.beyond3d.build.time_choices import RANKS, feasible_ranks, round_time
from egoworld.benchmarks.beyond3d.build.visibility_tracks import (
    DETECTED_VISIBLE,
    OCCLUDED,
    OUT_OF_VIEW,
    VisibilityTracks,
)
from egoworld.core.folders.hashing import seeded_rng, stable_int
from egoworld.geometry.directions import (
    clock_range,
    distance_bin,
    quadrant,
    quadrant_is_clear,
)
from egoworld.world.episode import Episode

QUERY_BUCKETS = ("early", "middle", "late")
HORIZON_BUCKETS = ("short", "medium", "long")
MOVE_BUCKETS = (1, 2, 3, 4)
MIN_CLOCK_RADIUS_M = 0.05


_MASK = (1 << 64) - 1


def priorities(seed: int, *parts: object, steps: np.ndarray) -> np.ndarray:
    """Seed-derived visiting priorities of time steps: splitmix64 of ``sha256(seed, parts)`` + step
    (deterministic, independent of the process, far cheaper than one sha256 per candidate)."""
    base = stable_int(seed, *parts)
    z = (np.asarray(steps, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(base)) & np.uint64(
        _MASK
    )
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def query_bucket(t: float) -> str:
    return "early" if t < 150 else "middle" if t < 300 else "late"


def horizon_bucket(h: float) -> str:
    return "short" if h <= 10 else "medium" if h <= 30 else "long"


def moves_bucket(n: int) -> int:
    return min(max(n, 1), 4)


@dataclass
class Candidate:
    """One possible out-of-sight anchor or visible control."""

    kind: str  # "out_of_sight" | "visible"
    episode: int
    obj: int
    k: int
    query_s: float
    moves: int
    key: tuple
    priority: int
    horizon_s: float | None = None
    last_visible_s: float | None = None
    placement_s: float | None = None
    oc: tuple[str, int] | None = None
    oo: list[tuple[tuple[int, int], int]] = field(default_factory=list)
    lv_ranks: list[int] = field(default_factory=list)
    lp_ranks: list[int] = field(default_factory=list)

    @property
    def id(self) -> tuple[int, int, int]:
        return (self.episode, self.obj, self.k)

    @property
    def stratum(self) -> tuple[str, str]:
        return (query_bucket(self.query_s), horizon_bucket(self.horizon_s or 0.0))

    @property
    def moments(self) -> tuple[tuple, ...]:
        """The shown (query, answer) seconds of its timestamp questions: two anchors that share one would
        share a correct choice text ("00:03:15 — 3 seconds before the end"), a guess a blind prior wins
        twice with, so a selection holds at most one anchor per moment."""
        q = round_time(self.query_s)
        out: tuple[tuple, ...] = ()
        if self.last_visible_s is not None:
            out += (("lv", q, round_time(self.last_visible_s)),)
        if self.placement_s is not None:
            out += (("lp", q, round_time(self.placement_s)),)
        return out


@dataclass(frozen=True)
class Needs:
    """Which question types the anchors must support: last visible time, last placement time, 3D."""

    last_visible: bool = True
    last_placement: bool = True
    spatial: bool = True


def camera_coords(episode: Episode, tracks: VisibilityTracks) -> np.ndarray:
    """``(O, T, 3)``: every object's last known position in the camera frame at each sample time."""
    poses = episode.pose_at(tracks.times)
    rot_inv = np.swapaxes(poses[:, :3, :3], -1, -2)
    with np.errstate(invalid="ignore"):
        return np.einsum("tij,otj->oti", rot_inv, tracks.positions - poses[None, :, :3, 3])


def eligible_targets(episode: Episode) -> np.ndarray:
    """``(O,)``: objects with a unique, groundable name."""
    unique = unique_names(list(episode.objects))
    return np.array([o.id in unique and groundable(o) for o in episode.objects], dtype=bool)


def _pair_cells(cam: np.ndarray, ref_ok: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every (target o, reference r, step t): whether r can serve as reference, and the clock range and
    distance bin of ``o − r`` in the camera frame."""
    with np.errstate(invalid="ignore"):
        v = cam[:, None] - cam[None, :]  # (O, R, T, 3)
        radius = np.hypot(v[..., 0], v[..., 2])
        ok = ref_ok[None] & (radius >= MIN_CLOCK_RADIUS_M) & np.all(np.isfinite(v), axis=-1)
        ok &= ~np.eye(cam.shape[0], dtype=bool)[:, :, None]
        clock = clock_range(np.degrees(np.arctan2(v[..., 0], v[..., 2])))
        dist = distance_bin(np.linalg.norm(v, axis=-1))
    return ok, clock, dist


def out_of_sight_candidates(
    ep_index: int,
    episode: Episode,
    tracks: VisibilityTracks,
    seed: int,
    needs: Needs = Needs(),
    min_horizon_s: float = 2.0,
    per_key: int = 3,
) -> list[Candidate]:
    """All out-of-sight anchor candidates of one episode (at most ``per_key`` per uniqueness key, the
    ones with the lowest seed-derived priority)."""
    st = tracks.states
    times = tracks.times
    ok_obj = eligible_targets(episode)
    last_vis = tracks.last_visible_index()
    prev = np.concatenate([np.full((st.shape[0], 1), -1), last_vis[:, :-1]], axis=1)
    hidden = (st == OUT_OF_VIEW) | (st == OCCLUDED)
    prev_state = np.take_along_axis(st, np.maximum(prev, 0), axis=1)
    horizon = times[None, :] - times[np.maximum(prev, 0)]
    cond = (
        hidden & ok_obj[:, None] & (tracks.moves_done >= 1) & (prev >= 0) & (prev_state == DETECTED_VISIBLE)
    )
    cond &= horizon >= min_horizon_s - 1e-9
    if needs.spatial and cond.any():
        cam = camera_coords(episode, tracks)
        clear = np.all(np.isfinite(cam), axis=-1)
        clear[clear] = quadrant_is_clear(cam[clear])
        ref_ok = (st == DETECTED_VISIBLE) & ok_obj[:, None] & np.all(np.isfinite(tracks.centre_uv), axis=-1)
        pair_ok, pair_clock, pair_dist = _pair_cells(cam, ref_ok)
        cond &= clear & pair_ok.any(axis=1)
        with np.errstate(invalid="ignore"):
            quad = quadrant(np.where(np.isfinite(cam), cam, 1.0))
            oc_dist = distance_bin(np.linalg.norm(cam, axis=-1))
    groups: dict[tuple, list[tuple[int, int, int]]] = defaultdict(list)
    prio = {
        o: priorities(seed, episode.id, tracks.object_ids[o], steps=np.arange(len(times)))
        for o in np.unique(np.nonzero(cond)[0])
    }
    for o, k in zip(*np.nonzero(cond), strict=True):
        o, k = int(o), int(k)
        key = (ep_index, o, int(prev[o, k]), horizon_bucket(float(horizon[o, k])))
        groups[key].append((int(prio[o][k]), o, k))
    out: list[Candidate] = []
    for key, items in groups.items():
        items.sort()
        for priority, o, k in items[:per_key]:
            q = float(times[k])
            c = Candidate(
                kind="out_of_sight", episode=ep_index, obj=o, k=k, query_s=q, moves=int(tracks.moves_done[o, k]),
                key=key, priority=priority, horizon_s=float(horizon[o, k]), last_visible_s=float(times[prev[o, k]]),
            )  # fmt: skip
            c.placement_s = max(m.end_s for m in episode.objects[o].movements if m.end_s <= q + 1e-9)
            qs = round_time(q)
            c.lv_ranks = feasible_ranks(round_time(c.last_visible_s), qs) if needs.last_visible else []
            c.lp_ranks = feasible_ranks(round_time(c.placement_s), qs) if needs.last_placement else []
            if (needs.last_visible and not c.lv_ranks) or (needs.last_placement and not c.lp_ranks):
                continue
            if needs.spatial:
                c.oc = (str(quad[o, k]), int(oc_dist[o, k]))
                refs = np.nonzero(pair_ok[o, :, k])[0]
                c.oo = [((int(pair_clock[o, r, k]), int(pair_dist[o, r, k])), int(r)) for r in refs]
            out.append(c)
    return out


def visible_candidates(
    ep_index: int, episode: Episode, tracks: VisibilityTracks, seed: int, per_key: int = 3
) -> list[Candidate]:
    """Visible controls: previously moved objects detected visible at the query time (at most
    ``per_key`` per visible run)."""
    st = tracks.states
    cond = (st == DETECTED_VISIBLE) & eligible_targets(episode)[:, None] & (tracks.moves_done >= 1)
    idx = np.arange(st.shape[1])[None, :]
    starts = np.where(
        cond & ~np.concatenate([np.zeros((st.shape[0], 1), bool), cond[:, :-1]], axis=1), idx, 0
    )
    run_start = np.maximum.accumulate(starts, axis=1)
    groups: dict[tuple, list[tuple[int, int, int]]] = defaultdict(list)
    prio = {
        o: priorities(seed, "control", episode.id, tracks.object_ids[o], steps=np.arange(st.shape[1]))
        for o in np.unique(np.nonzero(cond)[0])
    }
    for o, k in zip(*np.nonzero(cond), strict=True):
        o, k = int(o), int(k)
        groups[(ep_index, o, int(run_start[o, k]))].append((int(prio[o][k]), o, k))
    out = []
    for key, items in groups.items():
        items.sort()
        for priority, o, k in items[:per_key]:
            q = float(tracks.times[k])
            out.append(
                Candidate(
                    kind="visible",
                    episode=ep_index,
                    obj=o,
                    k=k,
                    query_s=q,
                    moves=int(tracks.moves_done[o, k]),
                    key=key,
                    priority=priority,
                )
            )
    return out


@dataclass
class Selection:
    """Chosen anchors and their balanced assignments (by candidate id)."""

    anchors: list[Candidate]
    oo_cell: dict[tuple, tuple[int, int]]
    lv_rank: dict[tuple, int]
    lp_rank: dict[tuple, int]
    wanted: int
    pool: int
    nf_label: dict[tuple, str] = field(default_factory=dict)
    """the Nearest Fixture gold label `label_select.allowance_selection` assigned (empty when it did not run)"""

    @property
    def short(self) -> int:
        return self.wanted - len(self.anchors)


def interleave(cands: list[Candidate]) -> list[Candidate]:
    """Candidates in priority order, round robin over the number-of-moves buckets."""
    by_moves: dict[int, list[Candidate]] = defaultdict(list)
    for c in sorted(cands, key=lambda c: c.priority):
        by_moves[moves_bucket(c.moves)].append(c)
    out = []
    lists = [by_moves[b] for b in MOVE_BUCKETS if by_moves[b]]
    for i in range(max((len(x) for x in lists), default=0)):
        out.extend(x[i] for x in lists if i < len(x))
    return out


def rank_order(seed: int, name: str) -> list[int]:
    """The ranks 1–5 in seed-determined order (the first get the extra units of uneven quotas)."""
    ranks = list(RANKS)
    seeded_rng(seed, "ranks", name).shuffle(ranks)
    return ranks


def rank_capacity(n: int, seed: int, name: str, order: list[int] | None = None) -> dict[int, int]:
    """Quota per chronological rank; the extra units go to the first ranks of ``order`` (default
    `rank_order`)."""
    return split_even(n, order or rank_order(seed, name))


def select_controls(cands: list[Candidate], n: int) -> list[Candidate]:
    """``n`` visible controls spread evenly over query-time buckets (one per visible run)."""
    quota = split_even(n, list(QUERY_BUCKETS))
    queues = {
        b: sorted((c for c in cands if query_bucket(c.query_s) == b), key=lambda c: c.priority)
        for b in QUERY_BUCKETS
    }
    chosen: list[Candidate] = []
    used: set = set()
    count: dict = defaultdict(int)
    for capped in (True, False):
        pos = dict.fromkeys(QUERY_BUCKETS, 0)
        progress = True
        while len(chosen) < n and progress:
            progress = False
            for b in QUERY_BUCKETS:
                if len(chosen) >= n or (capped and count[b] >= quota[b]):
                    continue
                q = queues[b]
                while pos[b] < len(q):
                    c = q[pos[b]]
                    pos[b] += 1
                    if c.key not in used:
                        used.add(c.key)
                        chosen.append(c)
                        count[b] += 1
                        progress = True
                        break
    return chosen
