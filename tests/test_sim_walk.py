"""Synthetic panoramic walks: four consistent view videos, places over time, appearance intervals."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from egoworld.core.folders.hashing import sha256_file
from egoworld.geometry.equirect import FOUR_VIEWS, perspective_sampler
from egoworld.geometry.transforms import make_transform, rotation_about
from egoworld.media.writer import read_video
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.walk.places import STYLES
from egoworld.sim.walk.synth import NEAR_RADIUS, WalkConfig, WalkWorld, synth_walk, view_motion
from egoworld.world.episode_folder import load_episode

TINY = WalkConfig(minutes=2.0, fps=0.5, pano_width=256, view_size=64, min_pixels=4)
VIEWS = ("front", "right", "back", "left")


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synth_walk(tmp_path_factory.mktemp("walk") / "w", "walk_000", 4, TINY)


def _view_counts(world: WalkWorld, pose: np.ndarray, inst: int, width: int = 512) -> dict[str, int]:
    from egoworld.sim.world_cameras import equirect

    cam = equirect(width)
    frame = Renderer(cam, far=NEAR_RADIUS).render(world.primitives(0.0, pose[:3, 3]), pose, world.background)
    out = {}
    for v in VIEWS:
        s = perspective_sampler((cam.height, cam.width), (128, 128), yaw_deg=FOUR_VIEWS[v], mode="nearest")
        out[v] = int((s(frame.ids) == inst).sum())
    return out


def test_turning_right_moves_instances_between_views() -> None:
    """Seen ahead at yaw 0 → in the left view after a 90° right turn; seen on the right → now ahead."""
    world = WalkWorld("walk_geo", 2, WalkConfig(minutes=1.0))
    eye = np.array([*world.places[0].point(2.0, 0.0), 1.7])
    static = [x for x in world.instances if x.walker is None and x.place == world.places[0].id]
    target = min(static, key=lambda x: abs(np.hypot(*(np.asarray(x.position) - eye[:2])) - 6.0))
    d = np.asarray(target.position) - eye[:2]
    yaw = math.degrees(math.atan2(d[1], d[0]))
    from egoworld.sim.head import head_poses

    pose = head_poses(eye[None], np.array([yaw]), np.zeros(1))[0]
    turn_right = make_transform(rotation_about("y", 90.0), np.zeros(3))  # camera frame: +yaw turns right
    before = _view_counts(world, pose, target.inst)
    after = _view_counts(world, pose @ turn_right, target.inst)
    after_left = _view_counts(world, pose @ turn_right.T, target.inst)
    print(f"{target.category} before {before} after turning right {after}")
    assert before["front"] > 20 and before["right"] == before["left"] == before["back"] == 0
    assert after["left"] > 20 and after["front"] == after["right"] == after["back"] == 0
    assert after_left["right"] > 20 and after_left["left"] == 0
    # and what was on the right comes to the front
    side = _view_counts(world, pose @ turn_right.T, target.inst)  # instance now on the right …
    assert side["right"] > 20
    front_again = _view_counts(world, pose @ turn_right.T @ turn_right, target.inst)  # … turn right: ahead
    assert front_again["front"] == before["front"]


def test_episode_and_view_videos(walk: Path) -> None:
    ep = load_episode(walk)
    assert ep.camera.kind == "equirect" and len(ep.poses) == 60
    pano = read_video(walk / "pano.mp4")
    assert pano.shape == (60, 128, 256, 3)
    for v in VIEWS:
        meta = ep.meta["views"][v]
        assert meta["yaw_deg"] == FOUR_VIEWS[v] and meta["frames"] == 60 and meta["duration_s"] == 120.0
        video = read_video(walk / ep.media.extra[v])
        assert video.shape == (60, 64, 64, 3)
        # each view (rendered directly) is what geometry.equirect cuts from the panorama, up to resampling:
        # compared on 4×4 block means, and much worse against the neighbouring view's yaw
        s = perspective_sampler((128, 256), (64, 64), yaw_deg=FOUR_VIEWS[v], fov_deg=90.0)
        off = perspective_sampler((128, 256), (64, 64), yaw_deg=FOUR_VIEWS[v] + 90, fov_deg=90.0)

        def blocks(a: np.ndarray) -> np.ndarray:
            return a.astype(float).reshape(16, 4, 16, 4, 3).mean(axis=(1, 3))

        for i in (3, 31, 58):
            psnr = _psnr(blocks(s(pano[i])), blocks(video[i]))
            assert psnr > 22 and psnr > _psnr(blocks(off(pano[i])), blocks(video[i])) + 3, (v, i, psnr)


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    return float(10 * np.log10(255**2 / max(np.mean((a - b) ** 2), 1e-9)))


def test_appearances_match_the_geometry_of_each_view(walk: Path) -> None:
    ep = load_episode(walk)
    vis = np.load(walk / "visibility.npz")
    objects = {o.id: o for o in ep.objects}
    inst_obj = dict(zip(vis["inst_ids"].tolist(), vis["inst_objects"].tolist(), strict=True))
    views = vis["views"].tolist()
    keep = vis["rec_pixels"] >= TINY.min_pixels
    strict = total = 0
    for f, k, inst in zip(vis["rec_frame"][keep], vis["rec_view"][keep], vis["rec_inst"][keep], strict=True):
        if views[k] == "pano":
            continue
        pose = ep.poses.matrices[f]
        o = objects[inst_obj[int(inst)]]
        if "walker" in o.meta:
            continue
        p = np.linalg.inv(pose) @ np.array([*o.initial_position[:2], 0.8, 1.0])
        bearing = math.degrees(math.atan2(p[0], p[2]))  # + right of the panorama's forward
        off = (bearing - FOUR_VIEWS[views[k]] + 180) % 360 - 180
        dist = math.hypot(p[0], p[2])
        margin = math.degrees(math.atan2(2.6, dist))  # the largest instances reach ±2.6 m from their centre
        total += 1
        strict += abs(off) <= 45
        assert abs(off) <= 45 + margin, (views[k], o.category, off, dist)
    print(f"{strict}/{total} view appearances have the instance centre inside the view's 90° field")
    assert total > 50 and strict / total > 0.9


def test_places_and_motion_over_time(walk: Path) -> None:
    ep = load_episode(walk)
    visits = [json.loads(x) for x in (walk / "place_visits.jsonl").read_text().splitlines()]
    places = {p["id"]: p for p in map(json.loads, (walk / "places.jsonl").read_text().splitlines())}
    assert visits[0]["start_s"] == 0 and visits[-1]["end_s"] == ep.duration_s
    assert all(a["end_s"] == b["start_s"] for a, b in zip(visits[:-1], visits[1:], strict=True))
    seen = {v["place"] for v in visits}
    assert len(seen) >= 2 and all(places[p]["kind"] in STYLES for p in seen)
    vis = np.load(walk / "visibility.npz")
    times = vis["times"]
    for i in range(0, 60, 7):
        v = next(v for v in visits if v["start_s"] <= times[i] < v["end_s"])
        assert list(places)[int(vis["place_index"][i])] == v["place"]
    speeds = np.linalg.norm(vis["velocity"][:, :2], axis=1)
    assert speeds.max() < 2.0 and np.median(speeds[speeds > 0.2]) > 0.8
    # while walking straight ahead the front view moves forward and the back view backward
    moving = [t for t in times if np.linalg.norm(vis["velocity"][int(t * TINY.fps)][:2]) > 1.0]
    fwd = [view_motion(ep, 0.0, t)[1] for t in moving]
    back = [view_motion(ep, 180.0, t)[1] for t in moving]
    assert np.median(fwd) > 0.7 and np.median(back) < -0.7


def test_instances_leave_and_reappear_and_counts_are_consistent(walk: Path) -> None:
    ep = load_episode(walk)
    rows = [json.loads(x) for x in (walk / "appearances.jsonl").read_text().splitlines()]
    assert {r["view"] for r in rows} == {"pano", *VIEWS}
    assert any(len(r["intervals"]) >= 2 for r in rows if r["view"] != "pano")
    for r in rows:
        assert r["first_s"] == r["intervals"][0][0] and r["last_s"] == r["intervals"][-1][1]
    for v in VIEWS:
        counts: dict[str, int] = {}
        for r in rows:
            if r["view"] == v:
                counts[r["category"]] = counts.get(r["category"], 0) + 1
        assert counts == ep.meta["counts"][v]
    assert len({r["category"] for r in rows}) >= 8


def test_long_walks_can_be_planned() -> None:
    world = WalkWorld("walk_long", 1, WalkConfig(minutes=125.0, fps=0.5))
    t = np.arange(0, 125 * 60, 2.0)
    eye, yaw, s, walking = world.plan.sample(t)
    assert len(world.places) > 80 and s.max() <= world.plan.length
    assert 0.4 < walking.mean() < 0.95
    assert len({world.places[i].kind for i in world.plan.place_index(s)}) == len(STYLES)


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    cfg = WalkConfig(minutes=0.4, fps=0.5, pano_width=128, view_size=32)
    a = synth_walk(tmp_path / "a", "walk_000", 9, cfg)
    b = synth_walk(tmp_path / "b", "walk_000", 9, cfg)
    c = synth_walk(tmp_path / "c", "walk_000", 10, cfg)
    ha = {p.name: sha256_file(p) for p in sorted(a.iterdir())}
    hb = {p.name: sha256_file(p) for p in sorted(b.iterdir())}
    hc = {p.name: sha256_file(p) for p in sorted(c.iterdir())}
    assert ha == hb and ha["pano.mp4"] != hc["pano.mp4"] and ha["places.jsonl"] != hc["places.jsonl"]


def test_walk_can_be_rendered_again_from_its_folder(walk: Path) -> None:
    from egoworld.sim.walk.synth import load_walk_world
    from egoworld.sim.world_cameras import equirect

    ep, world = load_walk_world(walk)
    vis = np.load(walk / "visibility.npz")
    cam = equirect(TINY.pano_width)
    r = Renderer(cam, far=NEAR_RADIUS)
    i = 17
    pose = ep.poses.matrices[i]
    frame = r.render(world.primitives(float(vis["times"][i]), pose[:3, 3]), pose, world.background)
    counts = np.bincount(frame.ids.ravel())
    rec = (vis["rec_frame"] == i) & (vis["rec_view"] == 0)
    np.testing.assert_array_equal(counts[vis["rec_inst"][rec]], vis["rec_pixels"][rec])
