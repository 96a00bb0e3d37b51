"""Synthesise a panoramic walk: an equirectangular video, its four perspective view videos, and exact
ground truth of poses, places and per-view appearances of every instance.

`synth_walk(folder, episode_id, seed, config)` writes an episode folder holding:

* the `Episode` files: equirectangular camera, one pose per frame (the panorama's world_from_camera; a
  view's pose is ``pose @ R_y(yaw)`` with ``yaw`` from ``meta["views"]``), the instances as objects
  (``meta``: ``inst`` id, ``place``, and ``walker`` — ``a``, ``b``, ``speed``, ``phase_s`` — for people
  pacing up and down), and walking actions ("C walks forward", "C turns left", "C turns around",
  "C stops and looks around");
* ``pano.mp4`` (``media.video``) and ``front.mp4``, ``right.mp4``, ``back.mp4``, ``left.mp4``
  (``media.extra``): each view is rendered directly as the pinhole camera that `egoworld.geometry.equirect`
  cuts from the panorama (pose ``pose @ R_y(yaw)``, same FOV), so views keep their full detail at any
  size; each view's size, FOV, yaw, frame count and duration are in ``meta["views"]``;
* ``places.jsonl`` — one row per place: ``id``, ``kind`` (street, hall, shop, park, market, station),
  ``name``, ``index``, ``origin``, ``heading_deg``, ``length_m``, ``width_m``, ``looks``;
* ``place_visits.jsonl`` — the place timeline: ``{"place", "start_s", "end_s"}`` rows, contiguous;
* ``appearances.jsonl`` — one row per (view, instance) ever seen: ``view`` (``pano`` or a view name),
  ``object``, ``category``, ``first_s``, ``last_s``, ``intervals`` ([[start_s, end_s], …] of consecutive
  frames with ≥ ``min_pixels`` visible pixels), ``frames``, ``max_pixels``;
* ``visibility.npz`` — ``times`` (F,), ``place_index`` (F,), ``velocity`` (F, 3) world m/s of the camera,
  and sparse per-frame pixel counts ``rec_frame``, ``rec_view`` (index into ``views``), ``rec_inst``,
  ``rec_pixels``; ``views`` names, ``inst_ids`` / ``inst_objects`` / ``inst_categories`` tables;
* ``detections_<view>.jsonl`` (``media.extra["detections_<view>"]``) — each view's simulated detector
  (`egoworld.sim.simulated_detections`, seeded misses, false positives and box jitter; ``WalkConfig.detections``);
* ``meta["counts"]``: unique instances per category per view (seen with ≥ ``min_pixels``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from egoworld.core.folders.files import write_jsonl
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.folders.loader import begin_write
from egoworld.geometry.equirect import FOUR_VIEWS, view_camera, view_rotation
from egoworld.geometry.transforms import make_transform
from egoworld.media.writer import VideoWriter
from egoworld.sim.arrays import save_npz
from egoworld.sim.head import head_poses
from egoworld.sim.render.backgrounds import SkyBackground
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PrimitiveSet
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.simulated_detections import DetectionModel, frame_detections, id_boxes
from egoworld.sim.walk.places import Instance, Place, build_place, make_route
from egoworld.sim.walk.route import WalkPlan, plan_walk
from egoworld.sim.world_cameras import equirect
from egoworld.world.episode import Episode, EpisodeMedia, EpisodeObject
from egoworld.world.episode_folder import save_episode
from egoworld.world.poses import PoseTrack

GENERATOR = "egoworld.sim.walk"  # a recorded name in every episode.json: kept across module moves
VIEW_ORDER = ("front", "right", "back", "left")
NEAR_RADIUS = 90.0
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class WalkConfig:
    """Parameters of a synthetic walk (stored in the episode's ``meta``)."""

    minutes: float = 10.0
    fps: float = 1.0
    pano_width: int = 512
    view_size: int = 384
    view_fov_deg: float = 90.0
    min_pixels: int = 12
    speed_m_s: float = 1.3
    crf: int = 23
    #: the simulated detector of the view videos (None: the default noise, its pixel thresholds scaled to
    #: ``min_pixels``: ``min_pixels`` and ``10 · min_pixels`` for a full detection chance)
    detections: DetectionModel | None = None

    def __post_init__(self) -> None:
        if (
            self.minutes <= 0
            or self.fps <= 0
            or self.pano_width < 32
            or self.pano_width % 4
            or self.view_size % 2
        ):
            raise ValueError(
                f"need minutes and fps > 0, a panorama width ≥ 32 divisible by 4, an even view size; got {self}"
            )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def detection_model(self) -> DetectionModel:
        if self.detections is not None:
            return self.detections
        return DetectionModel(min_pixels=self.min_pixels, full_pixels=10 * self.min_pixels)


class WalkWorld:
    """The walk's places and instances, and what the panoramic camera sees at any time."""

    def __init__(self, episode_id: str, seed: int, cfg: WalkConfig) -> None:
        self.cfg = cfg
        duration = cfg.minutes * 60.0
        speed = cfg.speed_m_s * seeded_rng(seed, episode_id, "speed").uniform(0.9, 1.1)
        self.places: list[Place] = make_route(
            seeded_rng(seed, episode_id, "route"), speed * duration * 0.8 + 120.0
        )
        inst = 1
        for i, p in enumerate(self.places):
            prev = self.places[i - 1].width / 2 if i else 0.0
            nxt = self.places[i + 1].width / 2 if i + 1 < len(self.places) else 0.0
            build_place(p, seeded_rng(seed, episode_id, "place", i), inst, prev, nxt)
            inst += len(p.instances)
        self.instances: list[Instance] = [x for p in self.places for x in p.instances]
        self.plan: WalkPlan = plan_walk(
            self.places,
            seeded_rng(seed, episode_id, "walk"),
            duration,
            speed,
            aside=seeded_rng(seed, episode_id, "aside"),
        )
        self.background = SkyBackground(Look((120, 120, 115), (105, 105, 100), "speckle", 1.0))
        self._bounds = np.array([np.concatenate(p.bounds(25.0)) for p in self.places])
        self._static: dict[int, PrimitiveSet] = {}

    def poses(self, times: NDArray) -> tuple[NDArray, NDArray]:
        """world_from_camera ``(N, 4, 4)`` of the panoramic camera and route distances at ``times``."""
        eye, yaw, s, _ = self.plan.sample(times)
        return head_poses(eye, yaw, np.zeros(len(yaw))), s

    def primitives(self, t: float, eye: NDArray) -> PrimitiveSet:
        """Structure and instances of the places near ``eye`` at time ``t``."""
        lo, hi = self._bounds[:, :2], self._bounds[:, 2:]
        gap = np.maximum(np.maximum(lo - eye[:2], eye[:2] - hi), 0.0)
        near = np.flatnonzero(np.hypot(gap[:, 0], gap[:, 1]) < NEAR_RADIUS)
        sets = []
        for i in near:
            p = self.places[int(i)]
            if int(i) not in self._static:  # structure and standing instances never move
                still = [x.world(0.0) for x in p.instances if x.walker is None]
                self._static[int(i)] = PrimitiveSet.concat([p.structure, *still])
            sets.append(self._static[int(i)])
            sets.extend(x.world(t) for x in p.instances if x.walker is not None)
        return PrimitiveSet.concat(sets)


def _intervals(frames: NDArray, times: NDArray) -> list[list[float]]:
    """[[start_s, end_s], …] of runs of consecutive frame indices."""
    out: list[list[float]] = []
    if len(frames) == 0:
        return out
    breaks = np.flatnonzero(np.diff(frames) > 1)
    starts = np.r_[frames[0], frames[breaks + 1]]
    ends = np.r_[frames[breaks], frames[-1]]
    return [[round(float(times[a]), 6), round(float(times[b]), 6)] for a, b in zip(starts, ends, strict=True)]


def synth_walk(
    folder: str | Path, episode_id: str, seed: int, cfg: WalkConfig, progress: Progress | None = None
) -> Path:
    """Build, render and save one walk episode into ``folder`` (see the module docstring)."""
    folder = Path(folder)
    begin_write(folder, "world synth")
    world = WalkWorld(episode_id, seed, cfg)
    duration = round(cfg.minutes * 60.0, 6)
    n_frames = int(round(duration * cfg.fps))
    times = np.arange(n_frames) / cfg.fps
    poses, s = world.poses(times)
    place_idx = world.plan.place_index(s)
    cam = equirect(cfg.pano_width)
    renderer = Renderer(cam, far=NEAR_RADIUS)
    out_hw = (cfg.view_size, cfg.view_size)
    view_renderer = Renderer(view_camera(out_hw, cfg.view_fov_deg), far=NEAR_RADIUS)
    pano_from_view = {v: make_transform(view_rotation(FOUR_VIEWS[v]), np.zeros(3)) for v in VIEW_ORDER}
    views = ("pano", *VIEW_ORDER)
    n_ids = len(world.instances) + 1
    recs: list[NDArray] = []
    det_model = cfg.detection_model()
    inst_objects = [x.id for x in world.instances]
    inst_cats = [x.category for x in world.instances]
    vocab = sorted(set(inst_cats))
    det_rows: dict[str, list[dict]] = {v: [] for v in VIEW_ORDER}
    writers = {"pano": VideoWriter(folder / "pano.mp4", cfg.fps, (cam.width, cam.height), crf=cfg.crf)}
    writers.update(
        {
            v: VideoWriter(folder / f"{v}.mp4", cfg.fps, (cfg.view_size, cfg.view_size), crf=cfg.crf)
            for v in VIEW_ORDER
        }
    )
    try:
        for i, t in enumerate(times):
            prims = world.primitives(float(t), poses[i, :3, 3])
            frame = renderer.render(prims, poses[i], world.background)
            writers["pano"].write(frame.rgb)
            counts_of = {"pano": np.bincount(frame.ids.ravel(), minlength=n_ids)}
            for v in VIEW_ORDER:
                view = view_renderer.render(prims, poses[i] @ pano_from_view[v], world.background)
                writers[v].write(view.rgb)
                pixels, boxes = id_boxes(view.ids, n_ids - 1)
                counts_of[v] = np.r_[0, pixels]
                seen = np.flatnonzero(pixels)
                rng = seeded_rng(seed, episode_id, v, "detections", i)
                size = (cfg.view_size, cfg.view_size)
                dets = frame_detections(
                    rng, [inst_objects[j] for j in seen], [inst_cats[j] for j in seen], pixels[seen],
                    boxes[seen], size, det_model, vocab,
                )  # fmt: skip
                det_rows[v].append({"frame": i, "t": round(float(t), 6), "detections": dets})
            for k, v in enumerate(views):
                counts = counts_of[v]
                seen = np.flatnonzero(counts[1:]) + 1
                recs.append(np.stack([np.full(len(seen), i), np.full(len(seen), k), seen, counts[seen]], -1))
            if progress is not None:
                progress(i + 1, n_frames)
        for w in writers.values():
            w.close()
    except BaseException:
        for w in writers.values():
            w.abort()
        raise
    rec = np.concatenate(recs).astype(np.int64) if recs else np.zeros((0, 4), np.int64)
    for v in VIEW_ORDER:
        write_jsonl(folder / f"detections_{v}.jsonl", det_rows[v])
    velocity = np.gradient(poses[:, :3, 3], times, axis=0) if n_frames > 1 else np.zeros((n_frames, 3))
    save_npz(
        folder / "visibility.npz",
        times=times,
        place_index=place_idx.astype(np.int32),
        velocity=velocity,
        views=np.array(views),
        rec_frame=rec[:, 0].astype(np.int32),
        rec_view=rec[:, 1].astype(np.int8),
        rec_inst=rec[:, 2].astype(np.int32),
        rec_pixels=rec[:, 3].astype(np.int32),
        inst_ids=np.array([x.inst for x in world.instances], np.int32),
        inst_objects=np.array(inst_objects),
        inst_categories=np.array(inst_cats),
    )
    appearances, counts = _appearances(rec, views, world.instances, times, cfg.min_pixels)
    write_jsonl(folder / "appearances.jsonl", appearances)
    write_jsonl(folder / "places.jsonl", [p.to_json() for p in world.places])
    write_jsonl(folder / "place_visits.jsonl", _visits(world, cfg))
    view_meta = {
        v: {
            "yaw_deg": FOUR_VIEWS[v],
            "pitch_deg": 0.0,
            "fov_deg": cfg.view_fov_deg,
            "video": f"{v}.mp4",
            "width": cfg.view_size,
            "height": cfg.view_size,
            "frames": n_frames,
            "duration_s": duration,
            "camera": view_camera(out_hw, cfg.view_fov_deg).model_dump(mode="json"),
        }
        for v in VIEW_ORDER
    }
    objects = tuple(
        EpisodeObject(
            id=x.id,
            category=x.category,
            name=f"{x.category} {x.id}",
            initial_position=(x.position[0], x.position[1], 0.0),
            meta={"inst": x.inst, "place": x.place} | ({"walker": asdict(x.walker)} if x.walker else {}),
        )
        for x in world.instances
    )
    episode = Episode(
        id=episode_id,
        duration_s=duration,
        fps=cfg.fps,
        camera=cam,
        poses=PoseTrack(times, poses),
        objects=objects,
        actions=tuple(world.plan.actions),
        media=EpisodeMedia(
            video="pano.mp4",
            extra={v: f"{v}.mp4" for v in VIEW_ORDER}
            | {
                "appearances": "appearances.jsonl",
                "places": "places.jsonl",
                "place_visits": "place_visits.jsonl",
                "visibility": "visibility.npz",
            }
            | {f"detections_{v}": f"detections_{v}.jsonl" for v in VIEW_ORDER},
        ),
        source={"loader": GENERATOR, "kind": "walk"},
        meta={
            "generator": GENERATOR,
            "seed": seed,
            "config": cfg.to_json(),
            "views": view_meta,
            "counts": counts,
            "depth_kind": "range",
        },
    )
    save_episode(episode, folder)
    return folder


def _appearances(
    rec: NDArray, views: tuple[str, ...], instances: list[Instance], times: NDArray, min_pixels: int
) -> tuple[list[dict], dict[str, dict[str, int]]]:
    rows: list[dict] = []
    counts: dict[str, dict[str, int]] = {v: {} for v in views}
    keep = rec[rec[:, 3] >= min_pixels]
    order = np.lexsort((keep[:, 0], keep[:, 2], keep[:, 1]))
    keep = keep[order]
    if len(keep):
        key = keep[:, 1] * (len(instances) + 1) + keep[:, 2]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ends = np.r_[starts[1:], len(keep)]
        for a, b in zip(starts, ends, strict=True):
            v, inst = views[int(keep[a, 1])], instances[int(keep[a, 2]) - 1]
            frames = keep[a:b, 0]
            rows.append(
                {
                    "view": v,
                    "object": inst.id,
                    "category": inst.category,
                    "first_s": round(float(times[frames[0]]), 6),
                    "last_s": round(float(times[frames[-1]]), 6),
                    "intervals": _intervals(frames, times),
                    "frames": int(len(frames)),
                    "max_pixels": int(keep[a:b, 3].max()),
                }
            )
            counts[v][inst.category] = counts[v].get(inst.category, 0) + 1
    counts = {v: dict(sorted(c.items())) for v, c in counts.items()}
    return rows, counts


def _visits(world: WalkWorld, cfg: WalkConfig) -> list[dict]:
    duration = cfg.minutes * 60.0
    grid = np.arange(0.0, duration, 0.1)
    _, _, s, _ = world.plan.sample(grid)
    idx = world.plan.place_index(s)
    change = np.flatnonzero(np.diff(idx)) + 1
    starts = np.r_[0, change]
    ends = np.r_[change, len(grid)]
    rows = []
    for a, b in zip(starts, ends, strict=True):
        rows.append(
            {
                "place": world.places[int(idx[a])].id,
                "start_s": round(float(grid[a]), 3),
                "end_s": round(float(grid[b]) if b < len(grid) else duration, 3),
            }
        )
    return rows


def load_walk_world(folder: str | Path) -> tuple[Episode, WalkWorld]:
    """The episode and its `WalkWorld` (rebuilt from the seed and configuration it was made with) of a
    synthesised walk folder, to render any time again; refuses a folder whose places differ (made by
    another version of the generator)."""
    from egoworld.core.folders.files import InputFileError, read_jsonl
    from egoworld.world.episode_folder import load_episode

    folder = Path(folder)
    episode = load_episode(folder)
    if episode.meta.get("generator") != GENERATOR:
        raise InputFileError(
            f"{folder}: not a synthetic walk (meta.generator is {episode.meta.get('generator')!r})"
        )
    config = dict(episode.meta["config"])
    if isinstance(config.get("detections"), dict):
        config["detections"] = DetectionModel(**config["detections"])
    cfg = WalkConfig(**config)
    world = WalkWorld(episode.id, int(episode.meta["seed"]), cfg)
    stored = read_jsonl(folder / episode.media.extra["places"])
    rebuilt = [p.to_json() for p in world.places]
    if stored != json_roundtrip(rebuilt):
        raise InputFileError(
            f"{folder / 'places.jsonl'}: the places differ from what this generator makes; re-synthesise the walk"
        )
    return episode, world


def json_roundtrip(obj: Any) -> Any:
    import json

    return json.loads(json.dumps(obj))


def view_motion(episode: Episode, view_yaw_deg: float, t: float) -> tuple[float, float]:
    """Horizontal motion direction of a view at ``t``: (x right, z forward) components of the camera's
    unit velocity in that view's frame (0, 0 when standing still)."""
    poses = episode.poses
    assert poses is not None
    dt = 0.5 / episode.fps
    p0, p1 = poses.interpolate(max(t - dt, 0.0)), poses.interpolate(min(t + dt, episode.duration_s))
    v = p1[:3, 3] - p0[:3, 3]
    r = poses.interpolate(t)[:3, :3]
    c, s = math.cos(math.radians(view_yaw_deg)), math.sin(math.radians(view_yaw_deg))
    r_view = r @ np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    local = r_view.T @ v
    n = math.hypot(local[0], local[2])
    return (0.0, 0.0) if n < 1e-6 else (float(local[0] / n), float(local[2] / n))
