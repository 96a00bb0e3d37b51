"""Synthetic action scenes: the symbolic simulator's final graph is the exact, consistent annotation."""

from __future__ import annotations

from pathlib import Path
from random import Random

import numpy as np
import pytest
from PIL import Image

from egoworld.core.folders.hashing import seeded_rng, sha256_file
from egoworld.sim.actions.corner import ROLES, make_action_kitchen
from egoworld.sim.actions.synth import ABNORMAL, ActionConfig, new_scene, synth_action_scene
from egoworld.sim.actions.vocab import KINDS
from egoworld.world.episode_folder import load_episode

LOCATION_PREFIXES = ("on the ", "in the ", "inside the closed ", "under the ", "held by C")


def _scene(seed: int = 1, abnormal: str | None = None):  # type: ignore[no-untyped-def]
    spec = make_action_kitchen(seeded_rng(seed, "t", "layout"))
    scene = new_scene(spec, seed, "t", Random(seed), 18, abnormal, away_share=0.0)
    scene.state.shown = None  # short names throughout (first mentions in full are tested in test_sim_replay)
    return scene


def _first(state, category: str) -> str:  # type: ignore[no-untyped-def]
    return next(t.id for t in state.objects() if t.category == category)


def _put_somewhere(scene, oid: str) -> None:  # type: ignore[no-untyped-def]
    for rel, target in (("on", "table"), ("on", "counter"), ("on", "shelf"), ("on", "floor")):
        if scene.sim.put(oid, rel, target) is not None:
            return
    raise AssertionError(f"no room anywhere for {oid}")


def _free_hands(scene) -> None:  # type: ignore[no-untyped-def]
    for oid in scene.state.held():
        _put_somewhere(scene, oid)


def _graph(state):  # type: ignore[no-untyped-def]
    return {o.id: o for o in state.scene_graph("now", 0.0).objects}


def test_pick_and_put_update_relations() -> None:
    scene = _scene(3)  # a scene whose sink has room for the mug
    s, sim = scene.state, scene.sim
    cup = _first(s, "mug")
    if not s.accessible(cup):
        container = s[cup].target
        sim.do("open", container)
    step = sim.do("pick", cup)
    assert step.text.startswith("C ") and s.name(cup) in step.text
    assert _graph(s)[cup].relations == ("held by C",)
    sim.do("put", cup, "in", "sink")
    rel = _graph(s)[cup].relations
    assert rel[0] == "in the sink"
    assert scene.placer.fixture_of(cup) == ROLES["sink"]
    assert s[cup].pos is not None and s[cup].pos[2] < 0.9  # down in the basin


def test_inside_closed_fridge_is_said_so_and_unreachable() -> None:
    scene = _scene(2)
    s, sim = scene.state, scene.sim
    milk = next(t.id for t in s.objects() if "fridge" in KINDS[t.category].storage)
    if s[milk].rel == "in" and s.is_closed(s[milk].target):
        sim.do("open", s[milk].target)
    _free_hands(scene)
    sim.do("pick", milk)
    sim.do("open", "fridge")
    sim.do("put", milk, "in", "fridge")
    assert _graph(s)[milk].relations[0] == "in the fridge"
    sim.do("close", "fridge")
    assert _graph(s)[milk].relations[0] == "inside the closed fridge"
    assert not s.accessible(milk)
    assert "closed" in _graph(s)["fridge"].description


def test_cut_pour_wash_change_states() -> None:
    scene = _scene(3)
    s, sim = scene.state, scene.sim
    for t in list(s.objects()):
        if t.rel == "in" and s.is_closed(t.target or ""):
            sim.do("open", t.target)
    _free_hands(scene)
    knife, tomato, board = _first(s, "knife"), _first(s, "tomato"), _first(s, "cutting board")
    sim.do("pick", tomato)
    sim.do("put", tomato, "on", board)
    sim.do("pick", knife)
    text = sim.do("cut", tomato, knife).text
    assert "tomato" in text and "knife" in text
    g = _graph(s)
    assert "sliced" in g[tomato].description and g[tomato].relations[0] == f"on {s.name(board)}"
    assert "dirty" in g[knife].description and g[knife].relations == ("held by C",)
    kettle, mug = _first(s, "kettle"), _first(s, "mug")
    _put_somewhere(scene, knife)
    if s[kettle].rel == "held":
        _put_somewhere(scene, kettle)
    sim.do("pick", kettle)
    sim.do("turn_on", "tap")
    sim.do("fill", kettle)
    sim.do("turn_off", "tap")
    if s[mug].rel == "held":
        _put_somewhere(scene, mug)
    sim.do("pour", kettle, mug)
    g = _graph(s)
    assert "full of water" in g[mug].description and "half full of water" in g[kettle].description
    assert "off" in g["tap"].description


@pytest.mark.parametrize("abnormal", ABNORMAL)
def test_abnormal_cases_carry_a_key_state(tmp_path: Path, abnormal: str) -> None:
    folder = synth_action_scene(
        tmp_path / abnormal, "ab", 7, ActionConfig(n_actions=25, abnormal=abnormal, image_width=160)
    )
    ep = load_episode(folder)
    final = next(g for g in ep.scene_graphs if g.label == "final")
    keyed = [o for o in final.objects if o.key_state]
    assert keyed and ep.meta["abnormal"] == abnormal and len(ep.actions) == 25
    if abnormal == "stack_fell":
        assert len(keyed) == 4 and all(o.relations[0] == "on the floor" for o in keyed)
        assert any(a.text.startswith("C stacks") for a in ep.actions)
    elif abnormal == "tap_running":
        assert keyed[0].category == "tap" and "running" in keyed[0].description
    elif abnormal == "door_open":
        assert keyed[0].category == "fridge" and "open" in keyed[0].description
    else:
        assert keyed[0].category == "stove" and keyed[0].description.endswith("on")


@pytest.mark.parametrize(("n", "seed"), [(11, 1), (150, 2), (700, 3)])
def test_long_random_sequences_stay_consistent(tmp_path: Path, n: int, seed: int) -> None:
    folder = synth_action_scene(
        tmp_path / "s",
        f"seq{n}",
        seed,
        ActionConfig(n_actions=n, abnormal="none", image_width=160, middle_every=50),
    )
    ep = load_episode(folder)
    assert len(ep.actions) == n and ep.meta["partition"] == (
        "short" if n < 100 else "medium" if n < 200 else "long"
    )
    graphs = {g.label: g for g in ep.scene_graphs}
    assert {"initial", "final"} <= set(graphs) and graphs["initial"].image == "initial.png"
    final = graphs["final"]
    movable = [o for o in final.objects if o.id not in {*ROLES, "tap"}]
    assert len(movable) >= 8
    held = 0
    for o in movable:
        assert o.relations and o.relations[0].startswith(LOCATION_PREFIXES), o
        held += o.relations[0] == "held by C"
        assert all(
            not r.endswith(f" {o.category}") or "next to" in r or r.startswith("on the") for r in o.relations
        )
    assert held <= 2
    # a tidy (normal) ending: nothing left open or running
    fixtures = {o.id: o for o in final.objects if o.id in {*ROLES, "tap"}}
    assert "open" not in fixtures["fridge"].description.split(", ")
    assert "running" not in fixtures["tap"].description and "on" not in fixtures["stove"].description.split(
        ", "
    )
    # the object tracks agree with the final graph
    objects = {o.id: o for o in ep.objects}
    for o in movable:
        track = objects[o.id]
        last_fixture = track.movements[-1].end_fixture if track.movements else track.initial_fixture
        rel = o.relations[0]
        if rel in (
            "in the sink",
            "inside the closed fridge",
            "in the fridge",
            "in the drawer",
            "inside the closed drawer",
        ):
            role = rel.split()[-1]
            assert last_fixture == ROLES[role], (o.id, rel, last_fixture)
        if rel == "held by C":
            assert track.movements and track.movements[-1].end_s <= ep.duration_s
    for m in (m for t in ep.objects for m in t.movements):
        assert m.start_s < m.end_s and (
            m.end_position is not None or m.meta["kind"] in ("held at the end", "left")
        )
    assert ep.scene_graphs[1].label.startswith("after_") if n > 50 else True
    img = np.asarray(Image.open(folder / ep.media.images["initial"]))
    assert img.shape == (120, 160, 3) and img.std() > 10


def test_same_seed_same_folder(tmp_path: Path) -> None:
    cfg = ActionConfig(n_actions=40, image_width=128)
    a = synth_action_scene(tmp_path / "a", "x", 5, cfg)
    b = synth_action_scene(tmp_path / "b", "x", 5, cfg)
    c = synth_action_scene(tmp_path / "c", "x", 6, cfg)
    ha = {p.name: sha256_file(p) for p in sorted(a.iterdir())}
    assert ha == {p.name: sha256_file(p) for p in sorted(b.iterdir())}
    hc = {p.name: sha256_file(p) for p in sorted(c.iterdir())}
    assert ha["actions.jsonl"] != hc["actions.jsonl"] and ha["initial.png"] != hc["initial.png"]
