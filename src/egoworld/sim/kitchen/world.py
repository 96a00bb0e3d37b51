"""A synthetic kitchen at any time: the static description (`KitchenSim`, saved as ``sim.json``) plus the
episode's ground truth (poses, open intervals, movements) give every primitive's pose at time t.

* Fixtures open along their `open_fraction` ramps (`egoworld.sim.kitchen.fixture_geometry`).
* An object rests at its `location_at` position; in a drawer it rides along while the drawer is open
  (the ground-truth position is the closed-drawer one). Inside a *closed* fixture it is enclosed and not
  drawn (it could not be seen anyway).
* While in motion it is reached for (first 0.5 s of the movement), held at `HAND_OFFSET` in the camera
  frame, and put down (last 0.5 s); the wearer's hand and forearm (`egoworld.sim.kitchen.hand`) hold it.
* Static dressing (`egoworld.sim.kitchen.dressing`: splashbacks, rails, a window, a lamp) makes the room
  less bare; it carries instance id 0 like the room.

Instance ids: fixture ``i`` (in `KitchenSpec.fixtures` order) has id ``i + 1``; object ``j`` has id
``OBJECT_ID_BASE + j``; the hand ``HAND_INST`` (999); 0 is the room (walls, floor, ceiling, dressing).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict

from egoworld.geometry.transforms import make_transform, rotation_about
from egoworld.sim.kitchen.dressing import dressing
from egoworld.sim.kitchen.fixture_geometry import open_fraction
from egoworld.sim.kitchen.hand import hand_parts
from egoworld.sim.kitchen.layout import KitchenSpec
from egoworld.sim.render.backgrounds import RoomBackground
from egoworld.sim.render.primitives import PrimitiveSet, primitives_from_json
from egoworld.sim.render.renderer import Frame, Renderer
from egoworld.world.episode import Episode, EpisodeObject
from egoworld.world.location import location_at

FORMAT = "egoworld.sim.kitchen/1"  # the file format of sim.json, not a module path
OBJECT_ID_BASE = 1000
HAND_OFFSET = (0.06, 0.30, 0.42)
REACH_S = 0.5


class SimObject(BaseModel):
    """One object's look and size (its parts in its own frame, as `primitives_to_json`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    category: str
    name: str
    inst: int
    yaw_deg: float
    half_height: float
    radius: float
    parts: dict[str, list[Any]]


class KitchenSim(BaseModel):
    """Contents of ``sim.json`` for a kitchen episode."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str = FORMAT
    spec: KitchenSpec
    objects: tuple[SimObject, ...]
    hand_offset: tuple[float, float, float] = HAND_OFFSET

    def fixture_inst(self) -> dict[str, int]:
        return {f.id: i + 1 for i, f in enumerate(self.spec.fixtures)}


def _smooth(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return x * x * (3 - 2 * x)


class KitchenWorld:
    """State of a synthetic kitchen episode at any time, and its renderer input."""

    def __init__(self, sim: KitchenSim, episode: Episode) -> None:
        if episode.poses is None:
            raise ValueError(f"episode {episode.id} has no poses")
        self.sim = sim
        self.episode = episode
        self.background = RoomBackground(
            sim.spec.room_lo, sim.spec.room_hi, sim.spec.floor, sim.spec.walls, sim.spec.ceiling
        )
        self._fx = {f.id: f for f in sim.spec.fixtures}
        self._intervals = {
            f.id: [(iv.start_s, iv.end_s) for iv in f.open_intervals] for f in episode.fixtures
        }
        self._inst = sim.fixture_inst()
        self._ep_objects: dict[str, EpisodeObject] = {o.id: o for o in episode.objects}
        self._parts = {o.id: primitives_from_json(o.parts).with_inst(o.inst) for o in sim.objects}
        self._rot = {o.id: rotation_about("z", o.yaw_deg) for o in sim.objects}
        self._closed = {f.id: f.primitives(0.0, self._inst[f.id]) for f in sim.spec.fixtures}
        self._size = {o.id: (o.radius, o.half_height) for o in sim.objects}
        self._dressing = dressing(sim.spec, episode.id)
        self._states_at: tuple[float, list[tuple[NDArray, bool, bool]]] | None = None

    def camera_pose(self, t: float) -> NDArray[np.float64]:
        return self.episode.poses.interpolate(t)  # type: ignore[union-attr]

    def open_fraction(self, fixture_id: str, t: float) -> float:
        return open_fraction(self._intervals.get(fixture_id, []), t)

    def _rest(
        self, position: tuple[float, float, float], fixture: str | None, t: float
    ) -> tuple[NDArray, bool]:
        """World centre of a resting object (moved with an open drawer) and whether it is enclosed."""
        p = np.asarray(position, float)
        if fixture is None or fixture not in self._fx:
            return p, False
        fx = self._fx[fixture]
        if fx.mechanism is None:
            return p, False
        f = self.open_fraction(fixture, t)
        if f <= 0:
            return p, True
        if fx.mechanism.kind == "drawer":
            p = (fx.motion_world(f) @ np.append(p, 1.0))[:3]
        return p, False

    def object_state(self, object_id: str, t: float) -> tuple[NDArray, bool, bool]:
        """``(centre (3,), in_motion, enclosed)`` of an object at ``t`` (the rendered centre)."""
        obj = self._ep_objects[object_id]
        loc = location_at(obj, t)
        if not loc.in_motion and loc.position is None:  # after a movement that never ended (held at the end)
            loc = location_at(obj, max(t - 1e-6, 0.0)) if obj.movements else loc
        if not loc.in_motion:
            if loc.position is None:  # outside the kitchen (not brought in yet, or carried out)
                return np.zeros(3), False, True
            p, hidden = self._rest(loc.position, loc.fixture, t)
            return p, False, hidden
        m = obj.movements[loc.movement]  # type: ignore[index]
        pose = self.camera_pose(t)
        hand = pose[:3, :3] @ np.asarray(self.sim.hand_offset) + pose[:3, 3]
        reach = min(REACH_S, (m.end_s - m.start_s) / 3)
        if t < m.start_s + reach and m.start_position is not None:
            a, _ = self._rest(m.start_position, m.start_fixture, m.start_s)  # type: ignore[arg-type]
            w = _smooth((t - m.start_s) / reach)
            return a + w * (hand - a), True, False
        if t > m.end_s - reach and m.end_position is not None:
            b, _ = self._rest(m.end_position, m.end_fixture, m.end_s)  # type: ignore[arg-type]
            w = _smooth((m.end_s - t) / reach)
            return b + w * (hand - b), True, False
        return hand, True, False

    def object_states(self, t: float) -> list[tuple[NDArray, bool, bool]]:
        """`object_state` of every object (`object_ids` order) at ``t``; the last time's are kept, as a
        rendered frame asks twice (its primitives, then its ground truth)."""
        if self._states_at is None or self._states_at[0] != t:
            self._states_at = (t, [self.object_state(o.id, t) for o in self.sim.objects])
        return self._states_at[1]

    def object_ids(self) -> list[str]:
        return [o.id for o in self.sim.objects]

    def primitives(self, t: float) -> PrimitiveSet:
        """Every primitive that can be seen at ``t`` (enclosed objects left out)."""
        sets = []
        for o, (c, moving, hidden) in zip(self.sim.objects, self.object_states(t), strict=True):
            if not hidden:
                sets.append(self._parts[o.id].transformed(make_transform(self._rot[o.id], c)))
            if moving:
                sets.append(hand_parts(c, *self._size[o.id], self.camera_pose(t)))
        for f in self.sim.spec.fixtures:
            frac = self.open_fraction(f.id, t)
            sets.append(self._closed[f.id] if frac <= 0 else f.primitives(frac, self._inst[f.id]))
        sets.append(self._dressing)
        return PrimitiveSet.concat(sets)

    def render(self, renderer: Renderer, t: float) -> Frame:
        return renderer.render(self.primitives(t), self.camera_pose(t), self.background)
