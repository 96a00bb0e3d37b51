"""Visibility tracks: one state per object and time step (1 Hz by default), vectorised over objects × times.

Stages (paper §4.1 / Supp. 10), for every sample at which the object has a stationary location:

1. **view** — nine footprint points (an annotated pixel box back-projected at the object's depth, or a
   square of the object's half-size parallel to the placing view) are reprojected with the pose at ``t``;
   the object is in view when at least ``min_points_in_view`` (5 of 9) fall inside the image and, for a
   fisheye, its valid circle. Otherwise ``out_of_view``.
2. **occlusion** — each in-view point is depth-tested: against the episode's depth media when it has any
   (``depth="media"``), else against its scene mesh (``"mesh"``: a digital twin named by
   ``media.extra["mesh"]``, ray cast with trimesh, `egoworld.world.twin`), else against the fixture boxes
   (``"boxes"``). A point is blocked when the first surface on the camera→point segment lies
   ≥ ``occlusion_margin_m`` in front of it. The object's own supporting fixture, boxes that contain it and
   boxes that contain the camera never block (with a mesh: the triangles of those fixtures). The object is
   ``occluded`` when at least half of its in-view points are blocked, or when it lies inside an openable
   fixture that is closed at ``t``.
3. **detection** — consecutive unoccluded in-view samples at one location form an interval; the interval
   is ``detected_visible`` when the detector confirms the object in at least half of its tested frames,
   else ``visually_unconfirmed``. Without a detection file every such interval is ``detected_visible``
   (geometric visibility only; the build records this).

Other samples are ``in_motion`` (during a movement) or ``not_groundable`` (unnamed object, or no 3D
location). The binary visibility of the paper is ``detected_visible`` or ``in_motion``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.benchmarks.beyond3d.build.depth import DepthFrames, open_depth
from egoworld.benchmarks.beyond3d.build.locations import (
    IN_MOTION_SEGMENT,
    display_name,
    groundable,
    segment_start,
    timeline,
)
from egoworld.benchmarks.beyond3d.build.projection import footprint_from_bbox, square_footprint
from egoworld.core.folders.files import InputFileError
from egoworld.geometry.boxes import ray_box_entry
from egoworld.geometry.visibility import sample_depth
from egoworld.world.detections import DetectionTable
from egoworld.world.episode import Episode, EpisodeObject

OUT_OF_VIEW, OCCLUDED, VISUALLY_UNCONFIRMED, DETECTED_VISIBLE, IN_MOTION, NOT_GROUNDABLE = range(6)
STATE_NAMES = (
    "out_of_view",
    "occluded",
    "visually_unconfirmed",
    "detected_visible",
    "in_motion",
    "not_groundable",
)
STATE_CODES = {name: code for code, name in enumerate(STATE_NAMES)}
F64 = NDArray[np.float64]


@dataclass(frozen=True)
class TrackConfig:
    """Parameters of the visibility pipeline (recorded in the benchmark manifest)."""

    rate_hz: float = 1.0
    half_size_m: float = 0.05
    min_points_in_view: int = 5
    occlusion_margin_m: float = 0.10
    min_blocked_frac: float = 0.5
    min_detected_frac: float = 0.5
    detection_margin_px: float = 20.0
    depth: str = "auto"

    def describe(self) -> dict:
        return asdict(self)


@dataclass
class VisibilityTracks:
    """States ``(O, T)`` of an episode's objects at ``times``, with what the stages saw."""

    episode: str
    times: F64
    object_ids: tuple[str, ...]
    states: NDArray[np.int8]
    positions: F64
    centre_uv: F64
    segments: NDArray[np.int64]
    moves_done: NDArray[np.int64]
    fixtures: list[list[str | None]]
    in_view_points: NDArray[np.int64]
    blocked_frac: F64
    detected_frac: F64
    depth_source: str = "none"
    detector: str = "none"
    _rows: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._rows = {oid: i for i, oid in enumerate(self.object_ids)}

    def row(self, object_id: str) -> int:
        return self._rows[object_id]

    def index_of(self, t: float) -> int:
        """Index of the sample nearest ``t``."""
        return int(np.argmin(np.abs(self.times - t)))

    @property
    def visible(self) -> NDArray[np.bool_]:
        """The paper's binary visibility: detected visible or in motion."""
        return (self.states == DETECTED_VISIBLE) | (self.states == IN_MOTION)

    def last_visible_index(self) -> NDArray[np.int64]:
        """``(O, T)``: index of the latest visible sample at or before each step (-1 when none)."""
        idx = np.where(self.visible, np.arange(len(self.times))[None, :], -1)
        return np.maximum.accumulate(idx, axis=1)

    def last_visible_before(self, object_id: str, t: float) -> float | None:
        """Latest time strictly before ``t`` at which the object was detected visible (None if never)."""
        o = self.row(object_id)
        ok = (self.states[o] == DETECTED_VISIBLE) & (self.times < t - 1e-9)
        return float(self.times[np.nonzero(ok)[0][-1]]) if ok.any() else None

    def runs(self, object_id: str, state: int = DETECTED_VISIBLE) -> list[tuple[float, float]]:
        """Maximal runs ``(first time, last time)`` of consecutive samples in ``state``."""
        mask = self.states[self.row(object_id)] == state
        return [(float(self.times[a]), float(self.times[b])) for a, b in _runs(mask)]

    def state_counts(self) -> dict[str, int]:
        return {name: int((self.states == code).sum()) for code, name in enumerate(STATE_NAMES)}


def _runs(mask: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """Inclusive index ranges of True runs."""
    m = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    d = np.diff(m.astype(np.int8))
    starts = np.nonzero(d == 1)[0]
    ends = np.nonzero(d == -1)[0] - 1
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def sample_times(duration_s: float, rate_hz: float) -> F64:
    """The track's time grid: 0, 1/rate, … up to the episode's duration."""
    n = int(np.floor(duration_s * rate_hz + 1e-9)) + 1
    return np.round(np.arange(n) / rate_hz, 9)


def object_half_size(obj: EpisodeObject, default: float) -> float:
    """Half-size of the footprint: ``meta["size_m"]`` (a length or 3 lengths: half the largest) or
    ``meta["radius_m"]``, else ``default``."""
    size = obj.meta.get("size_m")
    if isinstance(size, int | float):
        return float(size) / 2
    if isinstance(size, list | tuple) and size:
        return float(max(size)) / 2
    radius = obj.meta.get("radius_m")
    return float(radius) if isinstance(radius, int | float) else default


def _footprints(
    episode: Episode, obj: EpisodeObject, segments: NDArray[np.int64], positions: F64, half: float
) -> F64:
    """World footprint points ``(T, 9, 3)`` (NaN while in motion / unknown)."""
    out = np.full((len(segments), 9, 3), np.nan)
    for seg in np.unique(segments):
        if seg == IN_MOTION_SEGMENT:
            continue
        idx = np.nonzero(segments == seg)[0]
        centre = positions[idx[0]]
        if not np.all(np.isfinite(centre)):
            continue
        bbox, seen_s = None, segment_start(obj, int(seg))
        if seg >= 0:
            bbox = obj.movements[int(seg)].meta.get("end_bbox")
            seen_s = obj.movements[int(seg)].meta.get("end_bbox_s", seen_s)
        elif obj.movements:
            bbox = obj.movements[0].meta.get("start_bbox")
            seen_s = obj.movements[0].meta.get("start_bbox_s", seen_s)
        pose = episode.pose_at(float(seen_s))  # the view the box was annotated in
        pts = footprint_from_bbox(episode.camera, pose, bbox, centre) if bbox is not None else None
        if pts is None or not np.all(np.isfinite(pts)):
            pts = square_footprint(centre, half, pose)
        out[idx] = pts
    return out


def _open_masks(episode: Episode, times: F64) -> NDArray[np.bool_]:
    """``(F, T)``: whether each fixture stands open (non-openable fixtures never do)."""
    out = np.zeros((len(episode.fixtures), len(times)), dtype=bool)
    for f, fx in enumerate(episode.fixtures):
        for iv in fx.open_intervals:
            out[f] |= (times >= iv.start_s) & (times <= iv.end_s)
    return out


def _ride_open_drawers(
    episode: Episode,
    times: F64,
    fixtures: list[list[str | None]],
    in_motion: NDArray[np.bool_],
    positions: F64,
    world_pts: F64,
) -> None:
    """Move the content of an open drawer (a fixture with ``meta["open_offset_m"]``) out with it, in place:
    the recorded position is the closed-drawer one, but while it stands open its content is seen (or hidden)
    where it really is, in front of the worktop."""
    opened = _open_masks(episode, times)
    for f, fx in enumerate(episode.fixtures):
        offset = fx.meta.get("open_offset_m")
        if offset is None or not opened[f].any():
            continue
        shift = np.asarray(offset, dtype=np.float64)
        for o, row in enumerate(fixtures):
            mask = np.array([fid == fx.id for fid in row]) & opened[f] & ~in_motion[o]
            if mask.any():
                positions[o, mask] += shift
                world_pts[o, mask] += shift


def _containment(episode: Episode, positions: F64, fixtures: list[list[str | None]]) -> NDArray[np.bool_]:
    """``(O, T, F)``: the object rests on / in fixture f (its annotated fixture, or f's box contains it)."""
    o_n, t_n = positions.shape[:2]
    out = np.zeros((o_n, t_n, len(episode.fixtures)), dtype=bool)
    index = {fx.id: f for f, fx in enumerate(episode.fixtures)}
    flat = positions.reshape(-1, 3)
    finite = np.all(np.isfinite(flat), axis=1)
    for f, fx in enumerate(episode.fixtures):
        inside = np.zeros(len(flat), dtype=bool)
        inside[finite] = fx.box.contains(flat[finite])
        out[..., f] = inside.reshape(o_n, t_n)
    for o, row in enumerate(fixtures):
        for t, fid in enumerate(row):
            if fid is not None and fid in index:
                out[o, t, index[fid]] = True
    return out


def _box_blocking(
    episode: Episode,
    cam_centres: F64,
    pts: F64,
    valid: NDArray[np.bool_],
    excluded: NDArray[np.bool_],
    margin: float,
) -> NDArray[np.bool_]:
    """``(O, T, 9)``: in-view points whose camera segment enters a (non-excluded) fixture box ≥ margin in
    front of the point."""
    blocked = np.zeros(valid.shape, dtype=bool)
    o_idx, t_idx, p_idx = np.nonzero(valid)
    if not len(o_idx):
        return blocked
    origins = cam_centres[t_idx]
    seg = pts[o_idx, t_idx, p_idx] - origins
    length = np.linalg.norm(seg, axis=1)
    limit = np.where(length > 0, 1.0 - margin / np.maximum(length, 1e-12), -1.0)
    hit = np.zeros(len(o_idx), dtype=bool)
    for f, fx in enumerate(episode.fixtures):
        cam_inside = fx.box.contains(cam_centres)  # (T,): a box around the camera never blocks
        test = ~excluded[o_idx, t_idx, f] & ~cam_inside[t_idx] & ~hit
        if not test.any():
            continue
        s = ray_box_entry(origins[test], seg[test], fx.box)
        hit[np.nonzero(test)[0][s < limit[test]]] = True
    blocked[o_idx, t_idx, p_idx] = hit
    return blocked


def _mesh_blocking(
    episode: Episode,
    twin: tuple,
    cam_centres: F64,
    pts: F64,
    valid: NDArray[np.bool_],
    excluded: NDArray[np.bool_],
    margin: float,
) -> NDArray[np.bool_]:
    """``(O, T, 9)``: in-view points with a surface of the scene mesh ≥ margin in front of them (the
    triangles of excluded fixtures and of fixtures whose box holds the camera are skipped)."""
    mesh, part_fixture = twin
    blocked = np.zeros(valid.shape, dtype=bool)
    o_idx, t_idx, p_idx = np.nonzero(valid)
    if not len(o_idx):
        return blocked
    cam_inside = (
        np.stack([fx.box.contains(cam_centres) for fx in episode.fixtures], axis=1)
        if episode.fixtures
        else np.zeros((len(cam_centres), 0), bool)
    )
    skip = excluded[o_idx, t_idx] | cam_inside[t_idx]  # (N, F); a last column for parts of no fixture
    skip = np.concatenate([skip, np.zeros((len(o_idx), 1), bool)], axis=1)[:, part_fixture]  # (N, P)
    blocked[o_idx, t_idx, p_idx] = mesh.blocked(cam_centres[t_idx], pts[o_idx, t_idx, p_idx], margin, skip)
    return blocked


def _depth_blocking(
    episode: Episode,
    depth: DepthFrames,
    times: F64,
    cam_pts: F64,
    uv: F64,
    valid: NDArray[np.bool_],
    margin: float,
) -> NDArray[np.bool_]:
    """``(O, T, 9)``: in-view points behind a surface of the depth map by more than ``margin``."""
    cam = episode.camera
    blocked = np.zeros(valid.shape, dtype=bool)
    point_depth = np.linalg.norm(cam_pts, axis=-1) if depth.kind == "range" else cam_pts[..., 2]
    for t in np.nonzero(valid.any(axis=(0, 2)))[0]:
        dmap = depth.at(float(times[t]))
        if dmap is None:
            continue
        sx, sy = dmap.shape[1] / cam.width, dmap.shape[0] / cam.height
        q = uv[:, t] * np.array([sx, sy]) + np.array([(sx - 1) / 2, (sy - 1) / 2])
        surface = sample_depth(dmap, q)
        with np.errstate(invalid="ignore"):
            b = np.isfinite(surface) & (surface > 0) & (surface < point_depth[:, t] - margin)
        blocked[:, t] = b & valid[:, t]
    return blocked


def _depth_mode(episode: Episode, root: str | Path | None, mode: str) -> tuple[str, DepthFrames | None]:
    if mode not in ("auto", "media", "mesh", "boxes", "none"):
        raise ValueError(f"depth mode {mode!r}: expected auto, media, mesh, boxes or none")
    if mode in ("auto", "media") and episode.media.depth is not None:
        return "media", open_depth(episode, root)
    if mode == "media":
        raise InputFileError(
            f"episode {episode.id}: --depth media, but episode.json has no media.depth; use --depth boxes or auto"
        )
    if mode in ("auto", "mesh") and episode.media.extra.get("mesh"):
        from egoworld.world.twin import episode_mesh

        return "mesh", episode_mesh(episode, root)
    if mode == "mesh":
        raise InputFileError(
            f"episode {episode.id}: --depth mesh, but episode.json has no media.extra.mesh; use --depth boxes or auto"
        )
    if mode in ("auto", "boxes") and episode.fixtures:
        return "boxes", None
    return "none", None


def build_tracks(
    episode: Episode,
    *,
    root: str | Path | None = None,
    config: TrackConfig = TrackConfig(),
    detections: DetectionTable | None = None,
    half_sizes: dict[str, float] | None = None,
) -> VisibilityTracks:
    """Visibility tracks of every object of ``episode`` (needs a camera model and poses); ``half_sizes``
    overrides the footprint half-size of objects by id (e.g. from a simulator's scene file)."""
    if episode.camera is None or episode.poses is None:
        missing = "a camera model" if episode.camera is None else "camera poses"
        raise InputFileError(
            f"episode {episode.id}: visibility tracks need {missing} (episode.json camera, poses.jsonl)"
        )
    cfg = config
    times = sample_times(episode.duration_s, cfg.rate_hz)
    objects = list(episode.objects)
    o_n, t_n = len(objects), len(times)
    poses = episode.pose_at(times)
    lines = [timeline(o, times) for o in objects]
    positions = np.stack([ln.position for ln in lines]) if objects else np.zeros((0, t_n, 3))
    segments = np.stack([ln.segment for ln in lines]) if objects else np.zeros((0, t_n), dtype=np.int64)
    moves_done = np.stack([ln.moves_done for ln in lines]) if objects else np.zeros((0, t_n), dtype=np.int64)
    fixtures = [ln.fixture for ln in lines]
    in_motion = segments == IN_MOTION_SEGMENT
    known = np.all(np.isfinite(positions), axis=-1) & ~in_motion
    known &= np.array([groundable(o) for o in objects], dtype=bool)[:, None] if objects else known

    sizes = half_sizes or {}
    halves = [sizes.get(o.id, object_half_size(o, cfg.half_size_m)) for o in objects]
    world_pts = (
        np.stack(
            [_footprints(episode, o, segments[i], positions[i], halves[i]) for i, o in enumerate(objects)]
        )
        if objects
        else np.zeros((0, t_n, 9, 3))
    )
    _ride_open_drawers(episode, times, fixtures, in_motion, positions, world_pts)
    rot_inv = np.swapaxes(poses[:, :3, :3], -1, -2)
    centres = poses[:, :3, 3]
    with np.errstate(invalid="ignore"):
        cam_pts = np.einsum("tij,otpj->otpi", rot_inv, world_pts - centres[None, :, None, :])
        uv, ok = episode.camera.project(cam_pts)
        valid = ok & episode.camera.in_image(uv) & known[..., None]
        cam_centre = np.einsum("tij,otj->oti", rot_inv, positions - centres[None])
        cuv, cok = episode.camera.project(cam_centre)
    centre_uv = np.where((cok & episode.camera.in_image(cuv))[..., None], cuv, np.nan)
    in_view_points = valid.sum(axis=-1)
    in_view = known & (in_view_points >= cfg.min_points_in_view)
    valid &= in_view[..., None]

    source, depth = _depth_mode(episode, root, cfg.depth)
    contain = _containment(episode, positions, fixtures)
    if source == "media":
        blocked = _depth_blocking(episode, depth, times, cam_pts, uv, valid, cfg.occlusion_margin_m)
    elif source == "mesh":
        blocked = _mesh_blocking(episode, depth, centres, world_pts, valid, contain, cfg.occlusion_margin_m)
    elif source == "boxes":
        blocked = _box_blocking(episode, centres, world_pts, valid, contain, cfg.occlusion_margin_m)
    else:
        blocked = np.zeros(valid.shape, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        blocked_frac = np.where(in_view_points > 0, blocked.sum(-1) / np.maximum(valid.sum(-1), 1), np.nan)
    openable = np.array([fx.openable for fx in episode.fixtures], dtype=bool)
    closed = ~_open_masks(episode, times)
    inside_closed = (
        (contain & openable[None, None, :] & closed.T[None, :, :]).any(axis=-1)
        if len(openable)
        else np.zeros((o_n, t_n), dtype=bool)
    )
    occluded = in_view & ((blocked_frac >= cfg.min_blocked_frac) | inside_closed)

    states = np.full((o_n, t_n), NOT_GROUNDABLE, dtype=np.int8)
    states[in_motion] = IN_MOTION
    states[known & ~in_view] = OUT_OF_VIEW
    states[occluded] = OCCLUDED
    candidate = in_view & ~occluded
    detected_frac = np.full((o_n, t_n), np.nan)
    for o, obj in enumerate(objects):
        names = (display_name(obj), obj.name, obj.category)
        for a, b in _runs(candidate[o]):
            for a2, b2 in _same_segment(segments[o], a, b):
                if detections is None:
                    states[o, a2 : b2 + 1] = DETECTED_VISIBLE
                    continue
                hits = np.array(
                    [
                        detections.confirms(
                            float(times[k]), obj.id, names, centre_uv[o, k], cfg.detection_margin_px
                        )
                        for k in range(a2, b2 + 1)
                    ]
                )
                frac = float(np.nanmean(hits)) if np.isfinite(hits).any() else float("nan")
                detected_frac[o, a2 : b2 + 1] = frac
                ok_run = np.isfinite(frac) and frac >= cfg.min_detected_frac
                states[o, a2 : b2 + 1] = DETECTED_VISIBLE if ok_run else VISUALLY_UNCONFIRMED
    return VisibilityTracks(
        episode=episode.id,
        times=times,
        object_ids=tuple(o.id for o in objects),
        states=states,
        positions=positions,
        centre_uv=centre_uv,
        segments=segments,
        moves_done=moves_done,
        fixtures=fixtures,
        in_view_points=in_view_points,
        blocked_frac=blocked_frac,
        detected_frac=detected_frac,
        depth_source=source,
        detector="none" if detections is None else detections.where,
    )


def _same_segment(segments: NDArray[np.int64], a: int, b: int) -> list[tuple[int, int]]:
    """Split the inclusive range [a, b] where the object's location segment changes."""
    out, start = [], a
    for k in range(a + 1, b + 1):
        if segments[k] != segments[k - 1]:
            out.append((start, k - 1))
            start = k
    out.append((start, b))
    return out
