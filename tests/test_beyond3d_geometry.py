"""Beyond3D building blocks: ray–box entry, cross-view projection, the vectorised location rule, balance
primitives, timestamp choices and counter-area labels."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from egoworld.benchmarks.beyond3d.build.answer_balance import CapacitatedAssignment, split_even
from egoworld.benchmarks.beyond3d.build.fixture_labels import counter_area_labels, fixture_options, type_label
from egoworld.benchmarks.beyond3d.build.locations import display_name, timeline, unique_names
from egoworld.benchmarks.beyond3d.build.projection import (
    back_project,
    depth_of,
    footprint_from_bbox,
    footprint_uv,
    reproject,
    square_footprint,
    transfer,
)
from egoworld.benchmarks.beyond3d.build.time_choices import (
    BANDS,
    choice_text,
    feasible_ranks,
    make_choices,
    round_time,
    time_token,
)
from egoworld.geometry.boxes import Box3D, ray_box_entry
from egoworld.geometry.cameras import FisheyeCamera, PinholeCamera
from egoworld.geometry.transforms import look_at, rotation_about
from egoworld.world.episode import EpisodeObject, Fixture, Movement
from egoworld.world.location import location_at


def _brute_entry(o: np.ndarray, d: np.ndarray, box: Box3D, steps: int = 20001) -> float:
    s = np.linspace(0, 3, steps)
    inside = box.contains(o + s[:, None] * d)
    return float(s[np.argmax(inside)]) if inside.any() else np.inf


def test_ray_box_entry_matches_dense_sampling_for_rotated_boxes() -> None:
    rng = np.random.default_rng(0)
    box = Box3D(
        center=(0.5, 0.2, 0.3),
        size=(0.8, 0.4, 0.6),
        rotation=tuple(map(tuple, rotation_about("z", 35).tolist())),
    )
    origins = rng.uniform(-1.5, 1.5, size=(300, 3))
    dirs = rng.uniform(-1, 1, size=(300, 3))
    got = ray_box_entry(origins, dirs, box)
    for o, d, g in zip(origins, dirs, got, strict=True):
        want = _brute_entry(o, d, box)
        if np.isinf(want):
            assert np.isinf(g) or g > 2.99
        else:
            assert g == pytest.approx(want, abs=3 / 20000 + 1e-9)
    inside = box.contains(origins)
    assert np.all(got[inside] == 0.0)  # a ray starting inside enters at once


@pytest.mark.parametrize(
    "camera",
    [PinholeCamera.from_fov(320, 240, 90.0), FisheyeCamera.equidistant(400, 150.0)],
    ids=["pinhole", "fisheye"],
)
def test_cross_view_transfer_matches_direct_projection(camera) -> None:
    pose_a = look_at([0.0, -2.0, 1.6], [0.2, 0.0, 0.9])
    pose_b = look_at([1.2, -1.5, 1.5], [0.1, 0.1, 0.9])
    centre = np.array([0.15, 0.05, 0.92])
    uv_c, ok = reproject(camera, pose_a, centre[None])
    assert ok.all()
    bbox = [uv_c[0, 0] - 12, uv_c[0, 1] - 9, uv_c[0, 0] + 12, uv_c[0, 1] + 9]
    world = footprint_from_bbox(camera, pose_a, bbox, centre)
    # all nine points lie on the plane through the centre parallel to view A's image plane
    assert np.allclose(depth_of(pose_a, world, "z"), depth_of(pose_a, centre, "z"))
    assert np.allclose(world[0], centre, atol=1e-9)  # the box centre back-projects onto the object centre
    uv_b, ok_b = transfer(
        camera, pose_a, footprint_uv(bbox), np.full(9, float(depth_of(pose_a, centre))), pose_b
    )
    direct, ok_d = reproject(camera, pose_b, world)
    assert np.allclose(uv_b, direct) and (ok_b == ok_d).all()
    # back-projecting at range depth puts points at that distance from the camera
    pts = back_project(camera, pose_b, uv_b[:3], np.array([1.0, 2.0, 3.0]), kind="range")
    assert np.allclose(np.linalg.norm(pts - pose_b[:3, 3], axis=1), [1.0, 2.0, 3.0])


def test_square_footprint_is_parallel_to_the_view() -> None:
    pose = look_at([0, 0, 1.6], [1, 1, 0.8])
    pts = square_footprint([1, 1, 0.8], 0.1, pose)
    assert pts.shape == (9, 3)
    assert np.allclose(depth_of(pose, pts, "z"), depth_of(pose, np.array([1, 1, 0.8]), "z"))
    dist = np.linalg.norm(pts - [1, 1, 0.8], axis=1)
    assert np.allclose(dist, [0] + [0.1 * np.sqrt(2)] * 4 + [0.1] * 4)


def _random_object(rng: random.Random) -> EpisodeObject:
    moves, t = [], 0.0
    for j in range(rng.randint(0, 5)):
        start = t + rng.uniform(0, 5)
        end = start + rng.uniform(0, 4)
        if rng.random() < 0.3 and moves:  # overlapping annotation
            start = moves[-1].start_s + 0.5
            end = max(end, start)
        moves.append(
            Movement(
                start_s=round(start, 2),
                end_s=round(end, 2),
                start_position=(j, 0, 0) if rng.random() < 0.5 else None,
                end_position=(j, 1, 0),
            )
        )
        t = end
    moves.sort(key=lambda m: (m.start_s, m.end_s))
    return EpisodeObject(
        id="o", category="cup", name="cup2", initial_position=(9, 9, 9), movements=tuple(moves)
    )


def test_vectorised_timeline_agrees_with_location_at() -> None:
    rng = random.Random(3)
    for _ in range(40):
        obj = _random_object(rng)
        times = np.round(np.arange(0, 30, 0.25), 6)
        line = timeline(obj, times)
        for k, t in enumerate(times):
            loc = location_at(obj, float(t))
            assert line.in_motion[k] == loc.in_motion
            if loc.in_motion:
                continue
            want = loc.position
            got = line.position[k]
            assert (want is None and np.isnan(got).all()) or np.allclose(got, want)
            assert line.moves_done[k] == sum(m.end_s <= t for m in obj.movements)


def test_display_names_and_uniqueness() -> None:
    objs = [
        EpisodeObject(id=str(i), category=c, name=n)
        for i, (c, n) in enumerate(
            [("plate", "plate2"), ("plate", "plate3"), ("cup", "cup"), ("pan", "frying pan")]
        )
    ]
    assert [display_name(o) for o in objs] == ["plate", "plate", "cup", "frying pan"]
    assert unique_names(objs) == {"2", "3"}


def test_capacitated_assignment_reroutes_to_make_room() -> None:
    a = CapacitatedAssignment({"x": 1, "y": 1})
    assert a.add(1, ["x", "y"]) and a.assigned[1] == "x"
    assert a.add(2, ["x"])  # item 1 moves to y to make room
    assert a.assigned == {1: "y", 2: "x"}
    assert not a.add(3, ["x", "y"])
    assert a.assigned == {1: "y", 2: "x"}  # a failed add changes nothing
    a.remove(1)
    assert a.add(3, ["x", "y"]) and a.assigned[3] == "y"
    assert split_even(1000, ["a", "b", "c"]) == {"a": 334, "b": 333, "c": 333}


def _brute_ranks(gold: int, query: int) -> set[int]:
    out = set()
    for signs in itertools.product((-1, 1), repeat=4):
        ok = True
        for (lo, hi), s in zip(BANDS.values(), signs, strict=True):
            if not any(0 <= gold + s * o <= query for o in range(lo, hi + 1)):
                ok = False
        if ok:
            out.add(1 + sum(s < 0 for s in signs))
    return out


def test_timestamp_choices_bands_ranks_and_text() -> None:
    rng = random.Random(0)
    for gold, query in [(0, 40), (3, 5), (10, 12), (50, 52), (100, 140), (7, 7), (35, 70)]:
        ranks = feasible_ranks(gold, query)
        assert set(ranks) == _brute_ranks(gold, query)
        for r in ranks:
            ch = make_choices(gold, query, r, rng, events={gold - 1, gold + 4})
            times = [c.time_s for c in ch]
            assert times == sorted(times) and len(set(times)) == 5
            assert [c.band for c in ch].index("correct") + 1 == r
            assert all(0 <= t <= query for t in times)
            for c in ch:
                if c.band != "correct":
                    lo, hi = BANDS[c.band]
                    assert lo <= abs(c.time_s - gold) <= hi
    assert round_time(43.5) == 44 and round_time(43.49) == 43
    assert choice_text(98, 109) == "00:01:38 — 11 seconds before the end"
    assert choice_text(108, 109) == "00:01:48 — 1 second before the end"
    assert (
        time_token(109.0) == "<TIME 00:01:49.0 video 1>"
        and time_token(3723.46) == "<TIME 01:02:03.5 video 1>"
    )


def test_counter_area_labels_are_unique_and_readable() -> None:
    from egoworld.sim.kitchen.synth import KitchenConfig, build_kitchen_episode

    for k in range(6):
        fixtures = list(build_kitchen_episode(f"K{k}", k, KitchenConfig(minutes=1.0))[0].fixtures)
        labels = counter_area_labels(fixtures)
        counters = [f for f in fixtures if f.type == "counter"]
        assert set(labels) == {f.id for f in counters}
        assert len(set(labels.values())) == len(labels)
        assert all(v.startswith("counter area") for v in labels.values())
        gold = counters[0]
        variant, texts, keys, gi = fixture_options(fixtures, gold, random.Random(1), labels)
        assert variant == "counter" and keys[gi] == gold.id and 2 <= len(texts) <= 6
        other = next(f for f in fixtures if f.type == "sink")
        variant, texts, keys, gi = fixture_options(fixtures, other, random.Random(1), labels)
        assert variant == "type" and texts[gi] == "sink" and len(texts) == 5 and len(set(texts)) == 5
    assert type_label("top_microwave") == "top of the microwave"
    fx = Fixture(
        id="K_counter.001",
        label="counter.001",
        type="counter",
        box=Box3D.from_min_max([0, 0, 0], [1, 1, 1]),
        meta={"area_label": "counter by the window"},
    )
    assert counter_area_labels([fx]) == {"K_counter.001": "counter by the window"}
