"""What the camera wearer does in a kitchen: walk between fixtures, open them, move objects, close them.

`plan_story` runs a seeded activity loop until the episode's end:

* **move an object** (most often): walk to where it rests, open the fixture if it is closed, pick it up,
  close the fixture, carry it (the object is *in motion* from pick-up to put-down) to another fixture whose
  type suits the category — about a third of the time into a closed one (cupboard, drawer, fridge …) —
  open it, put the object down on a free spot, close it;
* **work session** (most of the time, as HD-EPIC wearers work: `egoworld.sim.kitchen.tempo`): step right up
  to a work place (a worktop or the hob; the least used first), bring a few things over, make several moves
  to fixtures within arm's reach, most of them into closed ones, with quick shifts of things on the worktop,
  dwelling on the work between moves and glancing beside or up (so just-moved objects sit out of sight close
  to the camera), then put a thing or two away across the room;
* **browse**: open a fixture, look in, close it;
* **look around**: stand and glance at other fixtures.

Walking follows collision-free paths at ~1 m/s with smooth starts and stops; the head looks along the
path while walking and at the hands' target while working, turning smoothly (`egoworld.sim.head`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from random import Random

import numpy as np
from numpy.typing import NDArray

from egoworld.sim.head import gaze_to_yaw_pitch, smooth_angles
from egoworld.sim.kitchen.catalog import BY_NAME
from egoworld.sim.kitchen.fixture_geometry import OPEN_TIME_S
from egoworld.sim.kitchen.layout import KitchenSpec, SupportSpec
from egoworld.sim.kitchen.tempo import (
    CLOSED_SHARE,
    DWELL_GLANCES,
    GATHER_MOVES,
    PUT_AWAY_MOVES,
    REACH_M,
    SESSION_MOVES,
    SHIFT_SHARE,
    dwell_s,
)
from egoworld.sim.navigation import NavGrid, distance_at, find_path, point_at, walk_timing
from egoworld.sim.placement import Placements
from egoworld.world.episode import Action, Movement

BODY_RADIUS = 0.25
GRID_DT = 0.05
PICK_S = 1.0
"""seconds from the start of a pick-up (the movement starts) until the hand is back"""
EYE_LEVEL_M = 0.6
WORK_TYPES = ("counter", "hob")
"""fixtures a work session is done at (their open surfaces hold the work)"""
ARM_REACH_M = 1.0
"""at the work place, work put down on open surfaces lands within this floor distance of where the wearer
stands, and fixtures with an object within it are used without stepping away"""
AWAY_S = (1.5, 5.0)
"""how long a glance beside or up lasts (the work then stays out of sight)"""
SETTLE_S = (0.6, 1.4)
"""after putting something into a fixture that closes, the wearer looks at it this long before closing"""
STEP_UP_M = 0.2
"""at a work place the wearer steps this much closer to the worktop than its standing place"""
CLOSE_M = 0.7
"""half the work is put down this close (the front of the worktop right before the wearer)"""
SIDE_M = 2.5
"""fixtures to the wearer's side within this floor distance draw glances during the work"""
CLOSED_TYPES = ("cupboard", "drawer", "fridge", "dishwasher", "oven", "microwave")


@dataclass
class _Segment:
    t0: float
    t1: float
    path: list[tuple[float, float]]
    dist: NDArray
    total: float
    speed: float


@dataclass
class Story:
    """The plan of one episode; `trajectory` samples the camera path."""

    duration_s: float
    eye_height: float
    segments: list[_Segment]
    gaze: list[tuple[float, float, tuple[float, float, float] | None]]
    """(t0, t1, target point or None = along the walking direction)"""
    initial: dict[str, tuple[str, float, float]]
    movements: dict[str, list[Movement]] = field(default_factory=dict)
    open_intervals: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)

    def _positions(self, t: NDArray) -> tuple[NDArray, NDArray]:
        """Floor positions ``(N, 2)`` and whether walking, at times ``t``."""
        pos = np.zeros((len(t), 2))
        walking = np.zeros(len(t), bool)
        for seg in self.segments:
            sel = (t >= seg.t0) & (t <= seg.t1)
            if not sel.any():
                continue
            d = distance_at(t[sel] - seg.t0, seg.total, seg.t1 - seg.t0, seg.speed)
            pos[sel] = point_at(seg.path, seg.dist, d)
            walking[sel] = seg.total > 0.05
        return pos, walking

    def trajectory(self, times: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        """Eye positions ``(N, 3)``, yaw and pitch (degrees) at ``times`` (smoothed head motion)."""
        grid = np.arange(0.0, self.duration_s + GRID_DT, GRID_DT)
        pos, walking = self._positions(grid)
        phase = 2 * math.pi * 1.8 * grid
        eye = np.column_stack([pos, self.eye_height + np.where(walking, 0.012 * np.sin(phase), 0.0)])
        ahead, _ = self._positions(np.minimum(grid + 0.6, self.duration_s))
        yaw = np.zeros(len(grid))
        pitch = np.full(len(grid), -15.0)
        along = np.hypot(*(ahead - pos).T) > 0.05
        y_path = np.degrees(np.arctan2(ahead[:, 1] - pos[:, 1], ahead[:, 0] - pos[:, 0]))
        have = np.zeros(len(grid), bool)
        for t0, t1, target in self.gaze:
            sel = (grid >= t0) & (grid < t1)
            if target is None:
                sel &= along
                yaw[sel], pitch[sel] = y_path[sel], -15.0
            else:
                yaw[sel], pitch[sel] = gaze_to_yaw_pitch(eye[sel], np.asarray(target)[None, :])
            have |= sel
        # where nothing was asked, keep the previous direction
        for i in range(1, len(grid)):
            if not have[i]:
                yaw[i], pitch[i] = yaw[i - 1], pitch[i - 1]
        yaw = np.degrees(np.unwrap(np.radians(yaw)))
        yaw_s = smooth_angles(grid, yaw, 200.0, 0.15)
        pitch_s = smooth_angles(grid, pitch, 120.0, 0.15)
        q = np.asarray(times, float)
        out = np.column_stack([np.interp(q, grid, eye[:, k]) for k in range(3)])
        return out, np.interp(q, grid, yaw_s), np.interp(q, grid, pitch_s)


class _Planner:
    def __init__(
        self,
        spec: KitchenSpec,
        placements: Placements,
        categories: dict[str, str],
        names: dict[str, str],
        rng: Random,
        duration: float,
        speed: float,
        pace: str = "hd-epic",
    ) -> None:
        self.spec = spec
        self.pace = pace
        self.pl = placements
        self.categories = categories
        self.names = names
        self.rng = rng
        self.duration = duration
        self.speed = speed
        self.t = 0.0
        self.pos = spec.start
        self.grid = NavGrid((spec.room_lo[0], spec.room_lo[1]), (spec.room_hi[0], spec.room_hi[1]))
        self.grid.block_border(BODY_RADIUS)
        for lo, hi in spec.obstacles:
            self.grid.block_rect(lo, hi, BODY_RADIUS)
        self.supports = {s.id: s for s in spec.supports}
        self.fixture_supports: dict[str, list[SupportSpec]] = {}
        for s in spec.supports:
            self.fixture_supports.setdefault(s.fixture, []).append(s)
        self.story = Story(duration, round(rng.uniform(1.55, 1.68), 3), [], [], dict(placements.where))
        self.eye = self.story.eye_height
        self.place: tuple[float, float] | None = None
        """the floor point of the current work session's place (None outside a session)"""
        self.last_put: tuple[float, float, float] | None = None
        self.worked: dict[str, int] = {}
        """work sessions held at each work place so far"""

    # ---- primitives of behaviour ---------------------------------------------------------------
    def stay(self, seconds: float, target: tuple[float, float, float] | None) -> None:
        t1 = self.t + seconds
        self.story.segments.append(_Segment(self.t, t1, [self.pos], np.zeros(1), 0.0, self.speed))
        self.story.gaze.append((self.t, t1, target))
        self.t = t1

    def walk_to(self, fixture_id: str) -> None:
        stands = self.spec.stands[fixture_id]
        self.step_to(min(stands, key=lambda p: math.hypot(p[0] - self.pos[0], p[1] - self.pos[1])))

    def step_to(self, goal: tuple[float, float], exact: bool = False) -> None:
        """Walk to the floor point ``goal`` (nothing when already there); ``exact``: to the point itself even
        where the walking grid keeps a body's width from the fixtures (stepping right up to a worktop)."""
        path = find_path(self.grid, self.pos, goal)
        off_path = math.hypot(path[0][0] - self.pos[0], path[0][1] - self.pos[1]) > 1e-9
        if off_path and self.pace == "hd-epic":  # (the classic story stays as it was: it jumped)
            path = [self.pos, *path]  # from right at a worktop back onto the walking grid
        if exact and math.hypot(path[-1][0] - goal[0], path[-1][1] - goal[1]) > 1e-9:
            path = [*path, goal]
        dist, seconds = walk_timing(path, self.speed)
        if dist[-1] < 0.05:
            return
        self.story.segments.append(
            _Segment(self.t, self.t + seconds, path, dist, float(dist[-1]), self.speed)
        )
        self.story.gaze.append((self.t, self.t + seconds - 0.5, None))
        self.t += seconds
        self.pos = path[-1]

    def fixture_point(self, fixture_id: str, top: bool = False) -> tuple[float, float, float]:
        """The middle of the fixture's front (``top``: of its front top edge when that is below the eye)."""
        fx = self.spec.fixture(fixture_id)
        wl = fx.world_from_local()
        up = fx.size[2] / 2 if top and fx.center[2] + fx.size[2] / 2 < self.eye else 0.0
        p = wl @ np.array([0.0, fx.size[1] / 2, up, 1.0])
        return (float(p[0]), float(p[1]), float(p[2]))

    def object_point(self, obj: str) -> tuple[float, float, float]:
        sup, x, y = self.pl.where[obj]
        return (x, y, self.supports[sup].z + self.pl.height[obj] / 2)

    def act(self, text: str, seconds: float, verb: str, noun: str, **meta: str) -> None:
        self.story.actions.append(
            Action(
                start_s=round(self.t, 4),
                end_s=round(self.t + seconds, 4),
                text=text,
                verb=verb,
                noun=noun,
                meta=meta,
            )
        )

    def open(self, fixture_id: str, look: tuple[float, float, float]) -> float:
        fx = self.spec.fixture(fixture_id)
        t0 = self.t
        self.act(f"open {fx.label}", OPEN_TIME_S, "open", fx.type, fixture=fixture_id)
        self.stay(OPEN_TIME_S + 0.2, look)
        return t0

    def close(self, fixture_id: str, opened_at: float, look: tuple[float, float, float]) -> None:
        fx = self.spec.fixture(fixture_id)
        self.act(f"close {fx.label}", OPEN_TIME_S, "close", fx.type, fixture=fixture_id)
        self.story.open_intervals.setdefault(fixture_id, []).append(
            (round(opened_at, 4), round(self.t + OPEN_TIME_S, 4))
        )
        self.stay(OPEN_TIME_S + 0.1, look)

    # ---- activities ----------------------------------------------------------------------------
    def choose_destination(
        self, obj: str, src_fixture: str, near: set[str] | None = None, closed_share: float = 0.35
    ) -> tuple[SupportSpec, tuple[float, float]] | None:
        allowed = BY_NAME[self.categories[obj]].rests_on
        options = [
            s
            for s in self.spec.supports
            if s.fixture != src_fixture
            and self.spec.fixture(s.fixture).type in allowed
            and (near is None or s.fixture in near)
        ]
        closed = [s for s in options if s.inside]
        high = [s for s in closed if abs(s.z - self.eye) < EYE_LEVEL_M]
        if near is not None and high and self.rng.random() < 0.5:
            closed = high  # wall cupboards within reach: the stowed object stays within a metre of the eye
        pool = (
            closed
            if closed and self.rng.random() < closed_share
            else [s for s in options if not s.inside] or options
        )
        self.rng.shuffle(pool)
        for s in pool:
            spot = self.pl.free_spot(s, obj, self.rng)
            if spot is not None:
                return s, spot
        return None

    def move_object(
        self,
        obj: str | None = None,
        near: set[str] | None = None,
        dest: tuple[SupportSpec, tuple[float, float]] | None = None,
    ) -> bool:
        """Move ``obj`` (default: a random object) to ``dest`` or else a fixture that suits it (among
        ``near`` if given). At a work place (`place`) the wearer stays put for what lies within reach."""
        if obj is None:
            objs = sorted(self.pl.where)
            obj = objs[self.rng.randrange(len(objs))]
        src = self.supports[self.pl.where[obj][0]]
        if dest is None:
            dest = (
                self.choose_destination(obj, src.fixture)
                if near is None
                else self.choose_destination(obj, src.fixture, near, CLOSED_SHARE)
            )
        if dest is None:
            return False
        dst, spot = dest
        cat = self.categories[obj]
        start_pos = self.object_point(obj)
        self.go_to(src.fixture, start_pos)
        src_fx = self.spec.fixture(src.fixture)
        opened = self.open(src.fixture, start_pos) if src_fx.openable else None
        t_pick = self.t
        self.act(f"take {cat} from {src_fx.label}", PICK_S, "take", cat, object=obj, fixture=src.fixture)
        self.stay(PICK_S, start_pos)
        if opened is not None:
            self.close(src.fixture, opened, self.fixture_point(src.fixture))
        del self.pl.where[obj]
        self.go_to(dst.fixture, spot)
        dst_fx = self.spec.fixture(dst.fixture)
        end_pos = (spot[0], spot[1], dst.z + self.pl.height[obj] / 2)
        opened = self.open(dst.fixture, end_pos) if dst_fx.openable else None
        self.act(
            f"put {cat} {dst.relation} {dst_fx.label}", PICK_S, "put", cat, object=obj, fixture=dst.fixture
        )
        self.stay(PICK_S, end_pos)
        t_put = self.t
        self.pl.where[obj] = (dst.id, spot[0], spot[1])
        k = len(self.story.movements.get(obj, []))
        self.story.movements.setdefault(obj, []).append(
            Movement(
                id=f"{obj}/m{k}",
                start_s=round(t_pick, 4),
                end_s=round(t_put, 4),
                start_position=start_pos,
                end_position=end_pos,
                start_fixture=src.fixture,
                end_fixture=dst.fixture,
                meta={"start_support": src.id, "end_support": dst.id},
            )
        )
        self.last_put = end_pos
        if opened is not None:
            if self.pace == "hd-epic":  # the hands leave it in place before closing
                self.stay(self.rng.uniform(*SETTLE_S), end_pos)
            self.close(dst.fixture, opened, self.fixture_point(dst.fixture))
        if near is None:
            self.stay(self.rng.uniform(0.3, 1.5), None)
        return True

    def go_to(self, fixture_id: str, point: tuple[float, ...]) -> None:
        """To the work place when ``point`` lies within arm's reach of it, else to the fixture."""
        if (
            self.place is not None
            and math.hypot(point[0] - self.place[0], point[1] - self.place[1]) <= ARM_REACH_M
        ):
            self.step_to(self.place, exact=True)
        else:
            self.walk_to(fixture_id)

    def work_session(self) -> None:
        """At one work place (a worktop, hob, sink or table): bring a few things over to the worktop within
        arm's reach, then several moves within reach (onto the worktop, into closed fixtures nearby),
        dwelling on the work after each — looking at it, to the fixtures beside, up, around."""
        ids = sorted(f for f in self.spec.stands if self.spec.fixture(f).type in WORK_TYPES)
        least = min(self.worked.get(f, 0) for f in ids)
        ids = [f for f in ids if self.worked.get(f, 0) == least]  # the work moves round the kitchen
        fid = ids[self.rng.randrange(len(ids))]
        self.worked[fid] = self.worked.get(fid, 0) + 1
        self.walk_to(fid)
        # step up to the worktop (the stands leave room to walk past)
        fx, fy, _ = self.fixture_point(fid)
        dx, dy = fx - self.pos[0], fy - self.pos[1]
        d = max(math.hypot(dx, dy), 1e-6)
        self.step_to((self.pos[0] + STEP_UP_M * dx / d, self.pos[1] + STEP_UP_M * dy / d), exact=True)
        self.place = self.pos
        near = self.near_fixtures()
        try:
            for _ in range(self.rng.randint(*GATHER_MOVES)):
                if self.t > self.duration - 35.0:
                    return
                objs = sorted(
                    o for o, (sup, _, _) in self.pl.where.items() if self.supports[sup].fixture not in near
                )
                if not objs:
                    break
                obj = objs[self.rng.randrange(len(objs))]
                dest = self.area_spot(obj)
                if dest is not None and self.move_object(obj, near, dest):
                    self.step_to(self.place, exact=True)
                    self.dwell(sorted(near))
            for _ in range(self.rng.randint(*SESSION_MOVES)):
                objs = sorted(
                    o for o, (sup, _, _) in self.pl.where.items() if self.supports[sup].fixture in near
                )
                if not objs or self.t > self.duration - 20.0:
                    break
                obj = objs[self.rng.randrange(len(objs))]
                src = self.supports[self.pl.where[obj][0]]
                dest = self.reach_spot(obj, src.id)
                if self.move_object(obj, near, dest):
                    self.step_to(self.place, exact=True)
                    self.dwell(sorted(near))
                    for _ in range(3):
                        if self.rng.random() >= SHIFT_SHARE:
                            break
                        self.shift_work(near)
            self.put_away(near)
        finally:
            self.place = None

    def put_away(self, near: set[str]) -> None:
        """At the end of a session, take a few things from within reach back to fixtures across the room
        (the kind of fixture drawn uniformly among those that suit the thing)."""
        assert self.place is not None
        px, py = self.place
        for _ in range(self.rng.randint(*PUT_AWAY_MOVES)):
            objs = sorted(
                o
                for o, (sup, x, y) in self.pl.where.items()
                if math.hypot(x - px, y - py) <= ARM_REACH_M and self.supports[sup].fixture in near
            )
            if not objs or self.t > self.duration - 35.0:
                return
            obj = objs[self.rng.randrange(len(objs))]
            src = self.supports[self.pl.where[obj][0]]
            allowed = BY_NAME[self.categories[obj]].rests_on
            by_type: dict[str, list[list[SupportSpec]]] = {}  # one group per kind: fixtures not told apart
            for s in self.spec.supports:
                if s.fixture not in near and self.spec.fixture(s.fixture).type in allowed:
                    by_type.setdefault(self.spec.fixture(s.fixture).type, [[]])[0].append(s)
            dest = self.spot_by_kind(obj, by_type)
            if dest is None or src.id == dest[0].id:
                continue
            self.move_object(obj, None, dest)

    def shift_work(self, near: set[str]) -> None:
        """Now and then (`SHIFT_SHARE`) pick up a thing lying on the worktop within reach and put it down
        elsewhere within reach (HD-EPIC wearers move the same things again within seconds)."""
        if self.place is None or self.t > self.duration - 20.0:
            return
        px, py = self.place
        objs = sorted(
            o
            for o, (sup, x, y) in self.pl.where.items()
            if not self.supports[sup].inside and math.hypot(x - px, y - py) <= ARM_REACH_M
        )
        if not objs:
            return
        obj = objs[self.rng.randrange(len(objs))]
        dest = self.reach_spot(obj, self.pl.where[obj][0])
        if dest is not None:
            self.move_object(obj, near, dest)

    def reach_spot(self, obj: str, exclude: str = "") -> tuple[SupportSpec, tuple[float, float]] | None:
        """A free spot for ``obj`` within arm's reach of the work place, in a fixture drawn uniformly among
        those that offer one (worktop, hob, sink, the cupboards and drawers under and over it …)."""
        assert self.place is not None
        allowed = BY_NAME[self.categories[obj]].rests_on
        by_fixture: dict[str, dict[str, list[SupportSpec]]] = {}
        for s in self.spec.supports:
            kind = self.spec.fixture(s.fixture).type
            if s.id != exclude and kind in allowed:
                by_fixture.setdefault(kind, {}).setdefault(s.fixture, []).append(s)
        by_type = {kind: [fixtures[f] for f in sorted(fixtures)] for kind, fixtures in by_fixture.items()}
        return self.spot_by_kind(obj, by_type, self.place, ARM_REACH_M)

    def spot_by_kind(
        self,
        obj: str,
        by_type: dict[str, list[list[SupportSpec]]],
        near: tuple[float, float] | None = None,
        reach_m: float = 0.0,
    ) -> tuple[SupportSpec, tuple[float, float]] | None:
        """The first free spot for ``obj`` (within ``reach_m`` of ``near`` when given) trying the fixture
        kinds of ``by_type`` in a random order, so each kind is drawn uniformly whatever its count, then
        its groups of supports (one per fixture) and their supports in random orders."""
        kinds = sorted(by_type)
        self.rng.shuffle(kinds)
        for kind in kinds:
            groups = by_type[kind]
            self.rng.shuffle(groups)
            for sups in groups:
                self.rng.shuffle(sups)
                for s in sups:
                    spot = self.pl.free_spot(s, obj, self.rng, near, reach_m)
                    if spot is not None:
                        return s, spot
        return None

    def area_spot(self, obj: str, exclude: str = "") -> tuple[SupportSpec, tuple[float, float]] | None:
        """A free spot for ``obj`` on an open surface within arm's reach of the work place."""
        assert self.place is not None
        allowed = BY_NAME[self.categories[obj]].rests_on
        pool = [
            s
            for s in self.spec.supports
            if not s.inside and s.id != exclude and self.spec.fixture(s.fixture).type in allowed
        ]
        self.rng.shuffle(pool)
        reach = CLOSE_M if self.rng.random() < 0.5 else ARM_REACH_M
        for r in dict.fromkeys((reach, ARM_REACH_M)):
            for s in pool:
                spot = self.pl.free_spot(s, obj, self.rng, self.place, r)
                if spot is not None:
                    return s, spot
        return None

    def near_fixtures(self) -> set[str]:
        """Fixtures with a standing place within `REACH_M` of the wearer."""
        return {
            fid
            for fid, stands in self.spec.stands.items()
            if any(math.hypot(p[0] - self.pos[0], p[1] - self.pos[1]) <= REACH_M for p in stands)
        }

    def dwell(self, near: list[str]) -> None:
        """Stay at the work place for `dwell_s`, glancing (`DWELL_GLANCES`) at the work on the worktop, at
        fixtures beside (part of the worktop then lies behind the head), up at wall cupboards within
        reach, at fixtures within reach or across the room."""
        end = self.t + dwell_s(self.rng)
        ids = sorted(self.spec.stands)
        work = self.work_points()
        side = self.beside(ids, work)
        high = [f for f in ids if self.fixture_point(f)[2] > self.eye - 0.3 and self.floor_dist(f) < REACH_M]
        at_work, to_side, up, within = DWELL_GLANCES
        while self.t < end - 0.3:
            r = self.rng.random()
            hold = min(end - self.t, self.rng.uniform(0.8, 2.0))
            if work and r < at_work:
                target = work[self.rng.randrange(len(work))]
            elif side and r < to_side:
                # away from one of the things on the worktop: it lies behind the head, others ahead
                w = work[self.rng.randrange(len(work))]
                away = [f for f in side if self.across(f, w)] or side
                target = self.fixture_point(away[self.rng.randrange(len(away))])
                hold = self.rng.uniform(*AWAY_S)
            elif high and r < up:
                target = self.fixture_point(high[self.rng.randrange(len(high))])
                hold = self.rng.uniform(*AWAY_S)
            else:
                pool = near if r < within else ids
                target = self.fixture_point(pool[self.rng.randrange(len(pool))])
            self.stay(hold, target)

    def across(self, fid: str, point: tuple[float, float, float]) -> bool:
        """Whether the fixture and ``point`` lie on either side of the wearer (more than 90° apart)."""
        p = self.fixture_point(fid)
        ax, ay = p[0] - self.pos[0], p[1] - self.pos[1]
        bx, by = point[0] - self.pos[0], point[1] - self.pos[1]
        return ax * bx + ay * by < 0

    def work_points(self) -> list[tuple[float, float, float]]:
        """Where the objects on open surfaces within arm's reach of the work place are."""
        if self.place is None:
            return []
        px, py = self.place
        return [
            self.object_point(o)
            for o, (sup, x, y) in sorted(self.pl.where.items())
            if not self.supports[sup].inside and math.hypot(x - px, y - py) <= ARM_REACH_M
        ]

    def floor_dist(self, fid: str) -> float:
        p = self.fixture_point(fid)
        return math.hypot(p[0] - self.pos[0], p[1] - self.pos[1])

    def beside(self, ids: list[str], work: list[tuple[float, float, float]]) -> list[str]:
        """Fixtures to the wearer's side: 60–120° from the direction of the work, within `SIDE_M`."""
        if not work:
            return []
        wx = sum(p[0] for p in work) / len(work) - self.pos[0]
        wy = sum(p[1] for p in work) / len(work) - self.pos[1]
        wn = math.hypot(wx, wy)
        if wn < 0.05:
            return []
        out = []
        for f in ids:
            p = self.fixture_point(f)
            dx, dy = p[0] - self.pos[0], p[1] - self.pos[1]
            d = math.hypot(dx, dy)
            if 0.8 < d <= SIDE_M and p[2] >= 0.9 and abs(dx * wx + dy * wy) / (d * wn) < 0.5:
                out.append(f)
        return out

    def browse(self) -> None:
        openable = sorted(f.id for f in self.spec.fixtures if f.openable and f.id in self.spec.stands)
        fid = openable[self.rng.randrange(len(openable))]
        self.walk_to(fid)
        look = self.fixture_point(fid)
        opened = self.open(fid, look)
        self.stay(self.rng.uniform(1.0, 3.0), look)
        self.close(fid, opened, look)

    def look_around(self, seconds: float) -> None:
        ids = sorted(self.spec.stands)
        end = self.t + seconds
        while self.t < end - 0.3:
            target = self.fixture_point(ids[self.rng.randrange(len(ids))])
            self.stay(min(end - self.t, self.rng.uniform(0.8, 2.0)), target)


def plan_story(
    spec: KitchenSpec,
    placements: Placements,
    categories: dict[str, str],
    names: dict[str, str],
    rng: Random,
    duration_s: float,
    speed: float = 1.0,
    pace: str = "hd-epic",
) -> Story:
    """Plan a whole episode (see the module docstring); ``placements`` is updated to the final state.
    ``pace="classic"`` is the story before work sessions (room-crossing moves only)."""
    p = _Planner(spec, placements, categories, names, rng, duration_s, speed, pace)
    p.look_around(2.0)
    reserve = 35.0  # the longest activity: two walks across the room, two fixtures, pick and put
    while p.t < duration_s - reserve:
        r = rng.random()
        session, move, browse = (0.5, 0.78, 0.88) if pace == "hd-epic" else (0.0, 0.72, 0.85)
        if r < session:
            p.work_session()
        elif r < move:
            if not p.move_object():
                p.look_around(2.0)
        elif r < browse:
            p.browse()
        else:
            p.look_around(rng.uniform(2.0, 5.0))
    p.look_around(max(duration_s - p.t, 0.0) + 0.5)
    p.story.actions.sort(key=lambda a: (a.start_s, a.end_s))
    return p.story
