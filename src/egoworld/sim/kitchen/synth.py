"""Synthesise a kitchen episode: layout, objects, the wearer's story, video and exact ground truth.

`synth_kitchen(folder, episode_id, seed, config)` writes an episode folder (`egoworld.world.episode_folder`
layout) holding:

* ``episode.json`` … ``actions.jsonl`` — the `Episode`: Aria-like fisheye (or pinhole) camera, one pose per
  video frame, fixtures with ``open_intervals``, objects with movements (start/end positions and
  fixtures), atomic actions ("open drawer.002", "take mug from drawer.002", "put mug on table.001" …);
* ``video.mp4`` — H.264 at ``config.fps`` (``media.video``);
* ``visibility.npz`` — exact per-frame visibility from the instance buffer (``media.extra["visibility"]``):

  ====================  ===========  ==========================================================
  ``times``             (F,)         frame times, s
  ``object_ids``        (O,)         object ids (same order in every (F, O) array)
  ``object_inst``       (O,)         instance id of each object in the id buffer
  ``pixels``            (F, O) i32   visible pixels of the object (the exact visibility)
  ``bbox``              (F, O, 4)    box of those pixels ``x0, y0, x1, y1`` (-1 when none)
  ``center_code``       (F, O) i8    geometric test of the object's centre (`geometry.visibility`): 0 out
                                     of view, 1 occluded (inside a closed fixture, or the depth buffer
                                     holds a surface nearer than the centre minus the object's bounding
                                     radius + 1 cm), 2 visible
  ``in_motion``         (F, O) bool  carried at that time
  ``enclosed``          (F, O) bool  inside a closed fixture
  ``fixture_ids``       (X,)         fixture ids; ``fixture_pixels`` (F, X) their visible pixels
  ``image_pixels``      ()           pixels inside the image (the fisheye circle)
  ====================  ===========  ==========================================================

* ``detections.jsonl`` — simulated detections (`egoworld.sim.simulated_detections`, ``media.extra["detections"]``);
* ``sim.json`` — the static scene (`KitchenSim`) to re-render any time: `load_kitchen_world`.

With ``render=False`` (``egoworld world synth kitchen --no-render``) nothing is rendered: the folder holds
the same ground truth (episode files and ``sim.json``, identical to a rendered one's but for
``media``) without ``video.mp4``, ``visibility.npz`` and ``detections.jsonl``. That is all a text-only
Beyond3D build with ``--detections none`` reads (its visibility comes from the poses, the camera model
and the fixture boxes), at a small fraction of the time; `load_kitchen_world` renders it later if needed.

Depth is range (metres along each pixel's ray), as `egoworld.geometry.visibility` uses by default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from egoworld.core.folders.files import InputFileError, read_json, write_json, write_jsonl
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.folders.loader import begin_write
from egoworld.geometry.cameras import FisheyeCamera, PinholeCamera
from egoworld.geometry.transforms import world_to_camera
from egoworld.geometry.visibility import OCCLUDED, OUT_OF_VIEW, VISIBLE, point_depth, sample_depth
from egoworld.media.writer import VideoWriter
from egoworld.sim.arrays import save_npz
from egoworld.sim.head import head_poses
from egoworld.sim.kitchen.catalog import CATEGORIES, build_shape
from egoworld.sim.kitchen.layout import make_kitchen
from egoworld.sim.kitchen.story import plan_story
from egoworld.sim.kitchen.world import OBJECT_ID_BASE, KitchenSim, KitchenWorld, SimObject
from egoworld.sim.placement import Placements
from egoworld.sim.render.instance_stats import bounding_boxes, pixel_counts
from egoworld.sim.render.primitives import primitives_to_json
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.simulated_detections import DetectionModel, simulate_detections
from egoworld.sim.world_cameras import aria_fisheye, pinhole
from egoworld.world.episode import Episode, EpisodeMedia, EpisodeObject, Fixture, Interval
from egoworld.world.episode_folder import load_episode, save_episode
from egoworld.world.poses import PoseTrack

GENERATOR = "egoworld.sim.kitchen"  # a recorded name in every episode.json: kept across module moves
MIN_SECONDS = 40.0
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class KitchenConfig:
    """Parameters of a synthetic kitchen episode (all stored in the episode's ``meta``)."""

    minutes: float = 3.0
    fps: float = 2.0
    camera: Literal["fisheye", "pinhole"] = "fisheye"
    size: int = 448
    """fisheye: image side; pinhole: image width (height = 3/4 of it)"""
    objects: int = 40
    speed_m_s: float = 1.0
    crf: int = 20
    pace: Literal["hd-epic", "classic"] = "hd-epic"
    """the story's pace: HD-EPIC-like work sessions (`egoworld.sim.kitchen.tempo`), or the older story of
    room-crossing moves only"""
    detections: DetectionModel = field(default_factory=DetectionModel)
    render: bool = True
    """render the video, the exact visibility and the simulated detections (False: ground truth only)"""

    def __post_init__(self) -> None:
        if self.pace not in ("hd-epic", "classic"):
            raise ValueError(f"pace must be 'hd-epic' or 'classic', got {self.pace!r}")
        if self.camera not in ("fisheye", "pinhole"):
            raise ValueError(f"camera must be 'fisheye' or 'pinhole', got {self.camera!r}")
        if self.fps <= 0 or self.size < 32 or self.size % 4 or self.objects < 1:
            raise ValueError(f"need fps > 0, an image size ≥ 32 divisible by 4 and ≥ 1 object, got {self}")

    def to_json(self) -> dict[str, Any]:
        """The parameters (``render`` only when False, so rendered sets made before it resume)."""
        out = asdict(self)
        if self.render:
            del out["render"]
        return out


def _camera(cfg: KitchenConfig) -> FisheyeCamera | PinholeCamera:
    if cfg.camera == "fisheye":
        return aria_fisheye(cfg.size)
    h = (cfg.size * 3 // 4) // 2 * 2
    return pinhole(cfg.size, h, 90.0)


def _make_objects(seed: int, episode_id: str, n: int, spec: Any) -> tuple[list[SimObject], Placements]:
    rng = seeded_rng(seed, episode_id, "objects")
    names = [c.name for c in CATEGORIES]
    rng.shuffle(names)
    cats = (names * (n // len(names) + 1))[:n] if n >= len(names) else names[:n]
    per_cat: dict[str, int] = {}
    objects: list[SimObject] = []
    pl = Placements({}, {})
    for j, cat in enumerate(cats):
        shape, _ = build_shape(cat, seeded_rng(seed, episode_id, "object", j))
        per_cat[cat] = per_cat.get(cat, 0) + 1
        k = per_cat[cat]
        oid = f"obj_{j:03d}"
        objects.append(
            SimObject(
                id=oid,
                category=cat,
                name=cat.replace(" ", "_") + (str(k) if k > 1 else ""),
                inst=OBJECT_ID_BASE + j,
                yaw_deg=round(rng.uniform(0, 360), 2),
                half_height=round(shape.half_height, 5),
                radius=round(shape.radius, 5),
                parts=primitives_to_json(shape.parts),
            )
        )
        pl.radius[oid] = shape.radius
        pl.height[oid] = 2 * shape.half_height
    from egoworld.sim.kitchen.catalog import BY_NAME

    for o in objects:
        allowed = BY_NAME[o.category].rests_on
        sups = [s for s in spec.supports if spec.fixture(s.fixture).type in allowed]
        rng.shuffle(sups)
        for s in sups:
            spot = pl.free_spot(s, o.id, rng)
            if spot is not None:
                pl.where[o.id] = (s.id, spot[0], spot[1])
                break
        else:
            raise ValueError(f"no room for {o.category} {o.id} in kitchen {episode_id}")
    return objects, pl


def center_codes(
    camera: Any, points_cam: np.ndarray, depth: np.ndarray, tolerance_m: np.ndarray, enclosed: np.ndarray
) -> np.ndarray:
    """The geometric visibility test of object centres (per-object depth tolerance; enclosed → occluded)."""
    uv, ok = camera.project(points_cam)
    view = ok & camera.in_image(uv)
    surface = sample_depth(depth, uv)
    with np.errstate(invalid="ignore"):
        blocked = np.isfinite(surface) & (surface > 0) & (surface < point_depth(points_cam) - tolerance_m)
    codes = np.where(view, VISIBLE, OUT_OF_VIEW).astype(np.int8)
    codes[view & (blocked | enclosed)] = OCCLUDED
    return codes


def _drawer_meta(f: Any) -> dict[str, Any]:
    """A drawer's ``open_offset_m``: how far its content moves (world metres) when it stands fully open."""
    if f.mechanism is None or f.mechanism.kind != "drawer":
        return {}
    offset = f.motion_world(1.0)[:3, 3]
    return {"open_offset_m": [round(float(v), 6) for v in offset]}


def build_kitchen_episode(episode_id: str, seed: int, cfg: KitchenConfig) -> tuple[Episode, KitchenSim]:
    """The episode's ground truth and static scene, before any rendering."""
    duration = round(cfg.minutes * 60.0, 6)
    if duration < MIN_SECONDS:
        raise ValueError(f"a kitchen episode needs at least {MIN_SECONDS:g} s, got {cfg.minutes} min")
    spec = make_kitchen(seeded_rng(seed, episode_id, "layout"))
    objects, pl = _make_objects(seed, episode_id, cfg.objects, spec)
    supports = {s.id: s for s in spec.supports}
    initial = dict(pl.where)
    story = plan_story(
        spec,
        pl,
        {o.id: o.category for o in objects},
        {o.id: o.name for o in objects},
        seeded_rng(seed, episode_id, "story"),
        duration,
        cfg.speed_m_s * seeded_rng(seed, episode_id, "speed").uniform(0.9, 1.15),
        cfg.pace,
    )
    n_frames = int(round(duration * cfg.fps))
    times = np.arange(n_frames) / cfg.fps
    eye, yaw, pitch = story.trajectory(times)
    poses = head_poses(eye, yaw, pitch)
    fixtures = tuple(
        Fixture(
            id=f.id,
            label=f.label,
            type=f.type,
            box=f.box(),
            openable=f.openable,
            open_intervals=tuple(Interval(start_s=a, end_s=b) for a, b in story.open_intervals.get(f.id, [])),
            meta=_drawer_meta(f),
        )
        for f in spec.fixtures
    )
    ep_objects = []
    for o in objects:
        sup_id, x, y = initial[o.id]
        sup = supports[sup_id]
        ep_objects.append(
            EpisodeObject(
                id=o.id,
                category=o.category,
                name=o.name,
                initial_position=(x, y, round(sup.z + o.half_height, 6)),
                initial_fixture=sup.fixture,
                movements=tuple(story.movements.get(o.id, [])),
                meta={
                    "inst": o.inst,
                    "initial_support": sup_id,
                    "size_m": 2 * o.radius,
                },
            )
        )
    camera = _camera(cfg)
    sim = KitchenSim(spec=spec, objects=tuple(objects))
    episode = Episode(
        id=episode_id,
        duration_s=duration,
        fps=cfg.fps,
        camera=camera,
        poses=PoseTrack(times, poses),
        fixtures=fixtures,
        objects=tuple(ep_objects),
        actions=tuple(story.actions),
        media=EpisodeMedia(
            video="video.mp4",
            extra={"visibility": "visibility.npz", "detections": "detections.jsonl", "sim": "sim.json"},
        )
        if cfg.render
        else EpisodeMedia(extra={"sim": "sim.json"}),
        source={"loader": GENERATOR, "kind": "kitchen"},
        meta={"generator": GENERATOR, "seed": seed, "config": cfg.to_json(), "depth_kind": "range"},
    )
    return episode, sim


def synth_kitchen(
    folder: str | Path, episode_id: str, seed: int, cfg: KitchenConfig, progress: Progress | None = None
) -> Path:
    """Build, render (unless ``cfg.render`` is False) and save one kitchen episode into ``folder`` (see the
    module docstring)."""
    folder = Path(folder)
    begin_write(folder, "world synth")
    episode, sim = build_kitchen_episode(episode_id, seed, cfg)
    if not cfg.render:
        write_json(folder / "sim.json", sim.model_dump(mode="json"))
        save_episode(episode, folder)
        return folder
    world = KitchenWorld(sim, episode)
    camera = episode.camera
    assert camera is not None and episode.poses is not None
    renderer = Renderer(camera)
    times = episode.poses.times_s
    obj_ids = world.object_ids()
    obj_inst = np.array([o.inst for o in sim.objects], np.int64)
    radius = np.hypot([o.radius for o in sim.objects], [o.half_height for o in sim.objects]) + 0.01
    fx_ids = [f.id for f in sim.spec.fixtures]
    n_f, n_o, n_x = len(times), len(obj_ids), len(fx_ids)
    n_ids = int(obj_inst.max()) + 1
    pixels = np.zeros((n_f, n_o), np.int32)
    bbox = np.full((n_f, n_o, 4), -1, np.int16)
    code = np.zeros((n_f, n_o), np.int8)
    moving = np.zeros((n_f, n_o), bool)
    enclosed = np.zeros((n_f, n_o), bool)
    fx_pixels = np.zeros((n_f, n_x), np.int32)
    with VideoWriter(folder / "video.mp4", cfg.fps, (camera.width, camera.height), crf=cfg.crf) as vw:
        for i, t in enumerate(times):
            frame = world.render(renderer, float(t))
            vw.write(frame.rgb)
            counts = pixel_counts(frame.ids, n_ids)
            pixels[i] = counts[obj_inst]
            fx_pixels[i] = counts[1 : n_x + 1]
            seen = np.flatnonzero(pixels[i] > 0)
            bbox[i, seen] = bounding_boxes(frame.ids, obj_inst[seen])
            states = world.object_states(float(t))
            centres = np.array([s[0] for s in states])
            moving[i] = [s[1] for s in states]
            enclosed[i] = [s[2] for s in states]
            pts = world_to_camera(centres, world.camera_pose(float(t)))
            code[i] = center_codes(camera, pts, frame.depth, radius, enclosed[i])
            if progress is not None:
                progress(i + 1, n_f)
    save_npz(
        folder / "visibility.npz",
        times=times,
        object_ids=np.array(obj_ids),
        object_inst=obj_inst.astype(np.int32),
        pixels=pixels,
        bbox=bbox,
        center_code=code,
        in_motion=moving,
        enclosed=enclosed,
        fixture_ids=np.array(fx_ids),
        fixture_pixels=fx_pixels,
        image_pixels=np.int64(renderer.valid_mask.sum()),
    )
    write_jsonl(
        folder / "detections.jsonl",
        simulate_detections(
            seed=seed,
            episode_id=episode_id,
            times=times,
            object_ids=obj_ids,
            categories=[o.category for o in sim.objects],
            pixels=pixels,
            boxes=bbox,
            size=(camera.width, camera.height),
            model=cfg.detections,
        ),
    )
    write_json(folder / "sim.json", sim.model_dump(mode="json"))
    save_episode(episode, folder)
    return folder


def load_kitchen_world(folder: str | Path) -> KitchenWorld:
    """The `KitchenWorld` of a synthesised kitchen episode folder (to render any time again)."""
    folder = Path(folder)
    episode = load_episode(folder)
    path = folder / episode.media.extra.get("sim", "sim.json")
    try:
        sim = KitchenSim.model_validate(read_json(path))
    except ValueError as exc:
        raise InputFileError(f"{path}: not a synthetic kitchen description ({exc})") from exc
    return KitchenWorld(sim, episode)
