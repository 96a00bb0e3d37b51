"""Cheap synthetic kitchens with exact ground truth, for Beyond3D tests and benches (not `egoworld.sim`).

A kitchen is a room of fixture boxes (base units along three walls — counters, sink, hob, oven,
dishwasher, drawers, fridge —, wall cupboards, a shelf, a microwave, an island and a bin). An episode is
a camera wearer who walks between stations, works at them, looks around and moves objects from one
fixture to another (openable fixtures stand open while used). Everything is drawn from
``seeded_rng(seed, …)`` so the same arguments give the same episode.

Exact visibility (`exact_visibility`): an object is visible when at least half of 27 points on its box
(corners, edge midpoints, face centres, centre) lie in the valid image and the segment to the camera
enters no other box (fixtures — except ones that contain the object and are not closed openables —
and the other objects). It also gives each visible object's pixel box, from which `write_world` writes a
detection file (perfect, or with a miss / false-positive rate) and ``visibility.jsonl``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from egoworld.benchmarks.beyond3d.detections import synthesize_detections
from egoworld.benchmarks.beyond3d.locations import display_name, timeline
from egoworld.benchmarks.beyond3d.raycast import ray_box_entry
from egoworld.benchmarks.beyond3d.tracks import sample_times
from egoworld.common.files import write_jsonl
from egoworld.common.hashing import seeded_rng
from egoworld.geometry.boxes import Box3D
from egoworld.geometry.cameras import FisheyeCamera
from egoworld.geometry.transforms import look_at
from egoworld.world.episode import Episode, EpisodeMedia, EpisodeObject, Fixture, Interval, Movement
from egoworld.world.folder import save_episode
from egoworld.world.poses import PoseTrack

OBJECT_NAMES = (
    "red mug", "blue bowl", "chopping board", "bread knife", "wooden spatula", "frying pan", "saucepan",
    "glass lid", "jar of honey", "salt shaker", "pepper grinder", "olive oil bottle", "milk carton",
    "egg box", "butter dish", "tea towel", "sponge", "dinner plate", "water glass", "fork", "soup spoon",
    "colander", "cheese grater", "whisk", "kettle", "cereal box", "bag of rice", "tin of tomatoes",
    "yoghurt pot", "block of cheese", "loaf of bread", "green apple", "lemon", "onion", "bulb of garlic",
    "tomato", "carrot", "potato", "ladle", "measuring jug",
)  # fmt: skip
INSIDE_TYPES = ("cupboard", "drawer", "fridge", "oven", "dishwasher", "microwave")
TOP_TYPES = ("counter", "sink", "hob", "shelf")
EYE_HEIGHT = 1.6


@dataclass(frozen=True)
class SynthConfig:
    """Episode parameters."""

    duration_s: float = 540.0
    moving_objects: int = 11
    static_objects: int = 6
    camera_size: int = 1408
    camera_fov_deg: float = 110.0
    pose_rate_hz: float = 5.0
    fps: float = 30.0
    duplicate_name: bool = True


@dataclass(frozen=True)
class Station:
    fixture: int
    eye: tuple[float, float, float]


def _unit(fid: str, kind: str, lo: list[float], hi: list[float], openable: bool = False) -> Fixture:
    return Fixture(
        id=fid, label=fid.split("_", 1)[1], type=kind, box=Box3D.from_min_max(lo, hi), openable=openable
    )


def make_kitchen(kitchen: str, seed: int = 0) -> list[Fixture]:
    """The fixtures of kitchen ``kitchen`` (ids ``<kitchen>_<type>.<nnn>``)."""
    rng = seeded_rng(seed, "kitchen", kitchen)
    width, depth = rng.uniform(3.9, 4.6), rng.uniform(3.5, 4.0)
    counts: dict[str, int] = {}

    def fid(kind: str) -> str:
        counts[kind] = counts.get(kind, 0) + 1
        return f"{kitchen}_{kind}.{counts[kind]:03d}"

    base = ["fridge", "sink", "hob", "oven", "dishwasher", "drawer", "drawer"] + ["counter"] * rng.randint(
        5, 7
    )
    rng.shuffle(base)
    fixtures: list[Fixture] = []
    walls = [  # (start, direction along the wall, normal into the room, length)
        (np.array([0.0, depth]), np.array([1.0, 0.0]), np.array([0.0, -1.0]), width),
        (np.array([0.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 0.0]), depth - 0.6),
        (np.array([width, 0.6]), np.array([0.0, 1.0]), np.array([-1.0, 0.0]), depth - 1.2),
    ]
    queue = list(base)
    for w, (start, along, normal, length) in enumerate(walls):
        pos = 0.6 if w == 1 else 0.0
        while pos < length - 0.55:
            kind = queue.pop(0) if queue else "counter"
            wide = rng.uniform(0.6, 1.0) if kind != "fridge" else 0.75
            wide = min(wide, length - pos)
            a = start + along * pos
            b = start + along * (pos + wide) + normal * (0.6 if kind != "fridge" else 0.7)
            lo2, hi2 = np.minimum(a, b), np.maximum(a, b)
            height = 1.9 if kind == "fridge" else 0.9
            openable = kind in ("fridge", "oven", "dishwasher", "drawer")
            fixtures.append(_unit(fid(kind), kind, [lo2[0], lo2[1], 0.0], [hi2[0], hi2[1], height], openable))
            if kind == "counter" and w < 2 and rng.random() < 0.6:
                c = start + along * pos
                d = start + along * (pos + wide) + normal * 0.35
                lo3, hi3 = np.minimum(c, d), np.maximum(c, d)
                fixtures.append(
                    _unit(fid("cupboard"), "cupboard", [lo3[0], lo3[1], 1.45], [hi3[0], hi3[1], 2.15], True)
                )
            pos += wide
    counters = [f for f in fixtures if f.type == "counter"]
    host = counters[rng.randrange(len(counters))].box
    lo, hi = host.bounds()
    mid = (lo + hi) / 2
    fixtures.append(
        _unit(
            fid("microwave"),
            "microwave",
            [mid[0] - 0.22, mid[1] - 0.2, 0.9],
            [mid[0] + 0.22, mid[1] + 0.2, 1.2],
            True,
        )
    )
    sx = rng.uniform(1.2, width - 2.2)
    fixtures.append(_unit(fid("shelf"), "shelf", [width - 0.3, sx, 1.3], [width, sx + 0.9, 1.33]))
    cx, cy = width / 2 + rng.uniform(-0.3, 0.3), depth / 2 - 0.15
    fixtures.append(_unit(fid("counter"), "counter", [cx - 0.6, cy - 0.35, 0.0], [cx + 0.6, cy + 0.35, 0.9]))
    fixtures.append(_unit(fid("bin"), "bin", [width - 0.45, 0.05, 0.0], [width - 0.1, 0.4, 0.6]))
    return fixtures


def _front(fx: Fixture, room_centre: np.ndarray) -> np.ndarray:
    """Unit vector (x, y) from the fixture towards the room, along its shorter horizontal axis."""
    lo, hi = fx.box.bounds()
    c = (lo + hi)[:2] / 2
    d = room_centre - c
    return (
        np.array([np.sign(d[0]) or 1.0, 0.0])
        if (hi - lo)[0] < (hi - lo)[1]
        else np.array([0.0, np.sign(d[1]) or 1.0])
    )


def _station(fx: Fixture, room_centre: np.ndarray, rng: random.Random) -> np.ndarray:
    lo, hi = fx.box.bounds()
    c = (lo + hi)[:2] / 2
    n = _front(fx, room_centre)
    half = np.abs(((hi - lo)[:2] / 2) @ n)
    p = c + n * (half + rng.uniform(0.25, 0.45)) + np.array([-n[1], n[0]]) * rng.uniform(-0.25, 0.25)
    return np.array([p[0], p[1], EYE_HEIGHT + rng.uniform(-0.1, 0.05)])


def _place(fx: Fixture, size: float, rng: random.Random) -> tuple[float, float, float]:
    lo, hi = fx.box.bounds()
    if fx.type in INSIDE_TYPES:
        c = (lo + hi) / 2
        j = (hi - lo) * 0.25
        return (
            c[0] + rng.uniform(-j[0], j[0]),
            c[1] + rng.uniform(-j[1], j[1]),
            lo[2] + min(size / 2 + 0.04, (hi - lo)[2] / 2),
        )
    m = 0.1
    z = hi[2] - 0.08 if fx.type == "sink" else hi[2] + size / 2
    return (rng.uniform(lo[0] + m, hi[0] - m), rng.uniform(lo[1] + m, hi[1] - m), z)


class _Path:
    """Camera path: piecewise-linear eye and look-at target with head jitter."""

    def __init__(self, eye: np.ndarray, look: np.ndarray):
        self.t: list[float] = [0.0]
        self.eye: list[np.ndarray] = [eye]
        self.look: list[np.ndarray] = [look]

    @property
    def now(self) -> float:
        return self.t[-1]

    def go(self, duration: float, eye: np.ndarray, look: np.ndarray) -> None:
        self.t.append(self.now + duration)
        self.eye.append(eye)
        self.look.append(look)

    def poses(self, times: NDArray[np.float64], seed: int) -> NDArray[np.float64]:
        t = np.asarray(self.t)
        eye = np.stack([np.interp(times, t, np.asarray(self.eye)[:, k]) for k in range(3)], -1)
        look = np.stack([np.interp(times, t, np.asarray(self.look)[:, k]) for k in range(3)], -1)
        rng = np.random.default_rng(seed)
        ph = rng.uniform(0, 2 * math.pi, 3)
        look = look + 0.12 * np.stack(
            [np.sin(0.7 * times + ph[0]), np.sin(0.5 * times + ph[1]), 0.5 * np.sin(0.9 * times + ph[2])], -1
        )
        look[:, 2] = np.minimum(look[:, 2], eye[:, 2] - 0.05)
        return look_at(eye, look)


def make_episode(
    kitchen: str, fixtures: list[Fixture], episode_id: str, seed: int = 0, cfg: SynthConfig = SynthConfig()
) -> Episode:
    """One synthetic episode in a kitchen."""
    rng = seeded_rng(seed, "episode", episode_id)
    lo = np.min([f.box.bounds()[0] for f in fixtures], axis=0)
    hi = np.max([f.box.bounds()[1] for f in fixtures], axis=0)
    centre = ((lo + hi) / 2)[:2]
    places = [i for i, f in enumerate(fixtures) if f.type in INSIDE_TYPES + TOP_TYPES]
    work = [i for i, f in enumerate(fixtures) if f.type in ("counter", "sink", "hob")]
    stations = {i: _station(f, centre, rng) for i, f in enumerate(fixtures)}
    names = rng.sample(OBJECT_NAMES, cfg.moving_objects + cfg.static_objects)
    if cfg.duplicate_name:
        names[-1] = names[0]
    state = []
    for k, name in enumerate(names):
        size = round(rng.uniform(0.08, 0.3), 3)
        f = places[rng.randrange(len(places))]
        state.append(
            {
                "id": f"o{k:02d}",
                "name": name,
                "size": size,
                "fixture": f,
                "pos": _place(fixtures[f], size, rng),
                "moves": [],
            }
        )
    initial = [(s["pos"], s["fixture"]) for s in state]
    opens: dict[int, list[tuple[float, float]]] = {}
    cur = work[rng.randrange(len(work))]
    path = _Path(stations[cur], np.array(_place(fixtures[cur], 0.1, rng)))

    def walk(to: int, look: np.ndarray, speed: float = 1.0) -> None:
        eye = stations[to]
        d = float(np.linalg.norm(eye[:2] - path.eye[-1][:2]))
        path.go(max(1.0, d / speed + 0.5), eye, look)

    def dwell(duration: float, look: np.ndarray) -> None:
        path.go(duration, path.eye[-1], look)

    end = cfg.duration_s - 12.0
    while path.now < end:
        r = rng.random()
        if r < 0.55:
            obj = state[rng.randrange(cfg.moving_objects)]
            src = obj["fixture"]
            others = sorted(
                (p for p in places if p != src), key=lambda p: (_gap2(fixtures[p], fixtures[src]), p)
            )
            dst = rng.choice(others[:4]) if rng.random() < 0.6 else rng.choice(others)
            look_src = np.asarray(obj["pos"])
            walk(src, look_src)
            arrive = path.now
            dwell(rng.uniform(1.5, 4.0), look_src)
            pick = path.now
            new = _place(fixtures[dst], obj["size"], rng)
            walk(dst, np.asarray(new), speed=0.8)
            arrive_dst = path.now
            dwell(rng.uniform(0.8, 1.5), np.asarray(new))
            put = path.now
            if put > cfg.duration_s - 1:
                break
            if fixtures[src].openable:
                opens.setdefault(src, []).append((arrive, pick + 1.0))
            if fixtures[dst].openable:
                opens.setdefault(dst, []).append((arrive_dst - 0.5, put + 1.0))
            obj["moves"].append((round(pick, 2), round(put, 2), obj["pos"], new, src, dst))
            obj["pos"], obj["fixture"] = new, dst
            dwell(
                rng.uniform(1.0, 6.0),
                np.asarray(new) + np.array([rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), 0.0]),
            )
        elif r < 0.85:
            to = work[rng.randrange(len(work))]
            target = np.array(_place(fixtures[to], 0.1, rng))
            walk(to, target)
            along = np.array([-_front(fixtures[to], centre)[1], _front(fixtures[to], centre)[0], 0.0])
            for _ in range(rng.randint(1, 4)):
                if rng.random() < 0.35:  # turn along the counter
                    side = along * rng.choice((-1.0, 1.0)) * rng.uniform(1.2, 2.0) + np.array(
                        [0.0, 0.0, rng.uniform(-0.2, 0.1)]
                    )
                else:
                    side = np.array([rng.uniform(-0.9, 0.9), rng.uniform(-0.9, 0.9), rng.uniform(-0.3, 0.1)])
                dwell(rng.uniform(0.8, 1.5), target + side)
                dwell(rng.uniform(2.0, 8.0), target + side)
        else:
            other = fixtures[rng.randrange(len(fixtures))].box
            target = np.asarray(other.center)
            target[2] = min(target[2], 1.2)
            dwell(rng.uniform(2.0, 8.0), target)
    if path.now < cfg.duration_s:
        dwell(cfg.duration_s - path.now + 1.0, path.look[-1])
    times = np.round(np.arange(0, cfg.duration_s + 1e-9, 1.0 / cfg.pose_rate_hz), 6)
    poses = PoseTrack(times, path.poses(times, seed=rng.randrange(2**31)))
    out_fixtures = []
    for i, f in enumerate(fixtures):
        ivs = _merge(opens.get(i, []), cfg.duration_s)
        out_fixtures.append(
            f.model_copy(update={"open_intervals": tuple(Interval(start_s=a, end_s=b) for a, b in ivs)})
            if ivs
            else f
        )
    objects = []
    for s, (pos0, fix0) in zip(state, initial, strict=True):
        moves = tuple(
            Movement(
                id=f"{s['id']}-m{j}", start_s=a, end_s=b, start_position=_r(p0), end_position=_r(p1),
                start_fixture=fixtures[f0].id, end_fixture=fixtures[f1].id,
            )
            for j, (a, b, p0, p1, f0, f1) in enumerate(s["moves"])
        )  # fmt: skip
        objects.append(
            EpisodeObject(
                id=s["id"], category=s["name"].split()[-1], name=s["name"], initial_position=_r(pos0),
                initial_fixture=fixtures[fix0].id, movements=moves, meta={"size_m": s["size"]},
            )
        )  # fmt: skip
    camera = FisheyeCamera.equidistant(cfg.camera_size, cfg.camera_fov_deg)
    return Episode(
        id=episode_id, duration_s=cfg.duration_s, fps=cfg.fps, camera=camera, poses=poses,
        fixtures=tuple(out_fixtures), objects=tuple(objects),
        source={"loader": "beyond3d.synthetic", "seed": seed, "kitchen": kitchen},
        meta={"participant": kitchen, "kitchen": kitchen},
    )  # fmt: skip


def _gap2(a: Fixture, b: Fixture) -> float:
    return float(np.linalg.norm(np.asarray(a.box.center)[:2] - np.asarray(b.box.center)[:2]))


def _r(p: tuple[float, float, float]) -> tuple[float, float, float]:
    return (round(float(p[0]), 4), round(float(p[1]), 4), round(float(p[2]), 4))


def _merge(ivs: list[tuple[float, float]], duration: float) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(ivs):
        a, b = round(max(0.0, a), 2), round(min(duration, b), 2)
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _aabb_entry(origins: np.ndarray, dirs: np.ndarray, centres: np.ndarray, halves: np.ndarray) -> np.ndarray:
    """Entry parameter of rays into axis-aligned boxes given per ray (inf when missed)."""
    o = origins - centres
    parallel = dirs == 0
    safe = np.where(parallel, 1.0, dirs)
    h = halves[..., None]
    t1, t2 = (-h - o) / safe, (h - o) / safe
    lo, hi = np.minimum(t1, t2), np.maximum(t1, t2)
    inside = np.abs(o) <= h
    lo = np.where(parallel, np.where(inside, -np.inf, np.inf), lo)
    hi = np.where(parallel, np.where(inside, np.inf, -np.inf), hi)
    t_in, t_out = lo.max(-1), hi.min(-1)
    entry = np.maximum(t_in, 0.0)
    return np.where(t_out >= entry, entry, np.inf)


def exact_visibility(
    episode: Episode, times: NDArray[np.float64] | None = None, min_frac: float = 0.5
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """Times, exact visibility ``(O, T)`` and pixel boxes ``(O, T, 4)`` (NaN when not visible)."""
    times = sample_times(episode.duration_s, 1.0) if times is None else np.asarray(times, dtype=np.float64)
    objs = list(episode.objects)
    o_n, t_n = len(objs), len(times)
    cam = episode.camera
    poses = episode.pose_at(times)
    eyes = poses[:, :3, 3]
    lines = [timeline(o, times) for o in objs]
    pos = np.stack([ln.position for ln in lines]) if objs else np.zeros((0, t_n, 3))
    here = np.all(np.isfinite(pos), axis=-1) & ~np.stack([ln.in_motion for ln in lines])
    halves = np.array([float(o.meta.get("size_m", 0.1)) / 2 for o in objs])
    g = np.array([-1.0, 0.0, 1.0])
    offs = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
    pts = pos[:, :, None, :] + offs[None, None] * (0.999 * halves)[:, None, None, None]
    o_i, t_i = np.nonzero(here)
    p = pts[o_i, t_i].reshape(-1, 3)
    po, pt = np.repeat(o_i, 27), np.repeat(t_i, 27)
    eye = eyes[pt]
    seg = p - eye
    cam_pts = np.einsum("nji,nj->ni", poses[pt, :3, :3], seg)
    with np.errstate(invalid="ignore"):
        uv, ok = cam.project(cam_pts)
        seen = ok & cam.in_image(uv)
    blocked = np.zeros(len(p), dtype=bool)
    centres = pos[po, pt]
    for fx in episode.fixtures:
        own = fx.box.contains(centres)
        if fx.openable:
            closed = np.array([not fx.is_open(float(t)) for t in times])[pt]
            own &= ~closed
        blocked |= (ray_box_entry(eye, seg, fx.box) < 1.0) & ~own
    for q in range(o_n):
        other = here[q, pt] & (po != q)
        if other.any():
            s = _aabb_entry(eye[other], seg[other], pos[q, pt[other]], np.full(other.sum(), halves[q]))
            blocked[np.nonzero(other)[0][s < 1.0]] = True
    seen &= ~blocked
    frac = seen.reshape(-1, 27).mean(axis=1)
    visible = np.zeros((o_n, t_n), dtype=bool)
    visible[o_i, t_i] = frac >= min_frac
    boxes = np.full((o_n, t_n, 4), np.nan)
    uvr = np.where(seen[:, None], uv, np.nan).reshape(-1, 27, 2)
    with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanmin(uvr, axis=1), np.nanmax(uvr, axis=1)
    b = np.concatenate([lo - 2, hi + 2], axis=1)
    boxes[o_i, t_i] = np.where(visible[o_i, t_i][:, None], b, np.nan)
    return times, visible, boxes


def write_world(
    out: str | Path,
    *,
    kitchens: int = 2,
    episodes_per_kitchen: int = 2,
    seed: int = 0,
    cfg: SynthConfig = SynthConfig(),
    detector: str | None = "perfect",
    miss_rate: float = 0.0,
    false_positive_rate: float = 0.0,
) -> list[Path]:
    """Write episode folders ``out/<kitchen>-<n>/`` (+ ``detections.jsonl`` and ``visibility.jsonl``
    when ``detector`` is not None); returns the folders in order."""
    out = Path(out)
    folders = []
    for k in range(kitchens):
        kid = f"K{k + 1:02d}"
        fixtures = make_kitchen(kid, seed)
        for e in range(episodes_per_kitchen):
            ep = make_episode(kid, fixtures, f"{kid}-{e + 1:03d}", seed, cfg)
            folder = out / ep.id
            if detector is not None:
                ep = ep.model_copy(
                    update={
                        "media": EpisodeMedia(
                            extra={"detections": "detections.jsonl", "visibility": "visibility.jsonl"}
                        )
                    }
                )
                write_truth(ep, folder, miss_rate=miss_rate if detector == "noisy" else 0.0,
                            false_positive_rate=false_positive_rate if detector == "noisy" else 0.0, seed=seed)  # fmt: skip
            save_episode(ep, folder)
            folders.append(folder)
    return folders


def write_truth(
    episode: Episode, folder: Path, *, miss_rate: float = 0.0, false_positive_rate: float = 0.0, seed: int = 0
) -> None:
    """``visibility.jsonl`` (exact: one row per time with the visible object ids) and ``detections.jsonl``."""
    times, vis, boxes = exact_visibility(episode)
    ids = [o.id for o in episode.objects]
    centres = (
        np.stack([_centre_uv(episode, o, times) for o in episode.objects])
        if ids
        else np.zeros((0, len(times), 2))
    )
    rows = synthesize_detections(
        times, ids, [display_name(o) for o in episode.objects], boxes, vis, centres,
        miss_rate=miss_rate, false_positive_rate=false_positive_rate, seed=seed, episode=episode.id,
    )  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "detections.jsonl", rows)
    write_jsonl(
        folder / "visibility.jsonl",
        (
            {"time_s": float(t), "visible": [ids[o] for o in np.nonzero(vis[:, k])[0]]}
            for k, t in enumerate(times)
        ),
    )


def _centre_uv(episode: Episode, obj: EpisodeObject, times: NDArray[np.float64]) -> NDArray[np.float64]:
    line = timeline(obj, times)
    poses = episode.pose_at(times)
    cam = np.einsum("tji,tj->ti", poses[:, :3, :3], line.position - poses[:, :3, 3])
    uv, ok = episode.camera.project(cam)
    return np.where((ok & episode.camera.in_image(uv))[:, None], uv, np.nan)
