"""How the walker moves along the route: forward legs at walking speed, stops to look around, head turns
while walking, and turnarounds that walk back through places already seen (so instances reappear).

The walker follows the route's centreline; the body faces the walking direction, and the head (the
panoramic camera) adds a smoothed yaw offset. Besides short glances, the walker sometimes walks on while
looking aside (``aside``: a held offset of 38–52° for 25–80 s), so each view video also sees diagonal
motion (forward-left, backward-right, …), as VSI-Super-Wild's walks do (21 % of its VMR questions). `WalkPlan.sample` gives positions, camera yaw, route
distance and the place index at any times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from random import Random

import numpy as np
from numpy.typing import NDArray

from egoworld.sim.head import smooth_angles
from egoworld.sim.navigation import distance_at, walk_timing
from egoworld.sim.walk.places import Place
from egoworld.world.episode import Action

EYE_HEIGHT = 1.7
TURN_S = 2.5
ASIDE_CHANCE = 0.3  # a walking leg starts a look aside with this chance (when none is held)
ASIDE_S = (25.0, 80.0)
ASIDE_DEG = (38.0, 52.0)


@dataclass
class WalkPlan:
    places: list[Place]
    duration_s: float
    speed: float
    legs: list[tuple[float, float, float, float]] = field(default_factory=list)
    """(t0, t1, s0, s1): walking from route distance s0 to s1 (s1 < s0 walks back)"""
    flips: list[tuple[float, int]] = field(default_factory=list)
    """(time, ±1): a turnaround to the left (+1) or right (−1) starting then"""
    offsets: list[tuple[float, float, float]] = field(default_factory=list)
    """(t0, t1, yaw offset of the head, degrees)"""
    actions: list[Action] = field(default_factory=list)

    def __post_init__(self) -> None:
        pts = [self.places[0].origin] + [p.end for p in self.places]
        self.vertices = np.asarray(pts, float)
        self.place_start = np.concatenate([[0.0], np.cumsum([p.length for p in self.places])])

    @property
    def length(self) -> float:
        return float(self.place_start[-1])

    def point(self, s: NDArray) -> NDArray:
        s = np.clip(s, 0.0, self.length)
        return np.stack([np.interp(s, self.place_start, self.vertices[:, k]) for k in range(2)], -1)

    def heading(self, s: NDArray) -> NDArray:
        """Route direction (degrees) at distance ``s``."""
        idx = np.clip(np.searchsorted(self.place_start, s, side="right") - 1, 0, len(self.places) - 1)
        return np.array([p.heading_deg for p in self.places])[idx]

    def place_index(self, s: NDArray) -> NDArray[np.int64]:
        return np.clip(np.searchsorted(self.place_start, s, side="right") - 1, 0, len(self.places) - 1)

    def distance(self, t: NDArray) -> tuple[NDArray, NDArray]:
        """Route distance and whether walking, at times ``t``."""
        t = np.asarray(t, float)
        s = np.zeros(len(t))
        walking = np.zeros(len(t), bool)
        last_s = 0.0
        ends = sorted(self.legs)
        # piecewise: before a leg starts the walker stands where the previous leg ended
        cur = np.zeros(len(t))
        for t0, t1, s0, s1 in ends:
            cur[t >= t0] = s1
            sel = (t >= t0) & (t < t1)
            if sel.any():
                total = abs(s1 - s0)
                d = distance_at(t[sel] - t0, total, t1 - t0, self.speed)
                s[sel] = s0 + math.copysign(1.0, s1 - s0) * d
                walking[sel] = True
            last_s = s1
        del last_s
        return np.where(walking, s, cur), walking

    def sample(self, t: NDArray, grid_dt: float = 0.1) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        """Eye positions ``(N, 3)``, camera yaw (deg), route distance and walking flags at times ``t``."""
        grid = np.arange(0.0, self.duration_s + grid_dt, grid_dt)
        s, walking = self.distance(grid)
        flip = np.zeros(len(grid))
        for t0, sign in self.flips:
            flip[grid >= t0] += 180.0 * sign
        offset = np.zeros(len(grid))
        for t0, t1, off in self.offsets:
            offset[(grid >= t0) & (grid < t1)] = off
        # the body faces the route direction, turned around after an odd number of flips
        desired = self.heading(s) + flip + offset
        yaw = smooth_angles(grid, desired, 90.0, 0.3)
        bob = np.where(walking, 0.015 * np.sin(2 * math.pi * 1.9 * grid), 0.0)
        q = np.asarray(t, float)
        s_q = np.interp(q, grid, s)
        xy = self.point(s_q)
        eye = np.column_stack([xy, EYE_HEIGHT + np.interp(q, grid, bob)])
        return eye, np.interp(q, grid, yaw), s_q, np.interp(q, grid, walking.astype(float)) > 0.5


def plan_walk(
    places: list[Place], rng: Random, duration_s: float, speed: float, aside: Random | None = None
) -> WalkPlan:
    """A seeded sequence of legs, stops, head turns and turnarounds filling ``duration_s``; with ``aside``
    (its own seeded stream, so the legs stay those of ``rng``) also looks aside while walking."""
    plan = WalkPlan(places, duration_s, speed)
    t, s, direction = 0.0, 0.0, 1
    last_back = -1e9
    aside_until = -1.0

    def act(t0: float, t1: float, text: str, verb: str) -> None:
        if t0 < duration_s:
            a, b = round(float(t0), 3), round(float(min(t1, duration_s)), 3)
            plan.actions.append(Action(start_s=a, end_s=max(a, b), text=text, verb=verb))

    def walk(distance: float) -> None:
        nonlocal t, s, aside_until
        s1 = min(max(s + direction * distance, 0.0), plan.length - 1.0)
        if abs(s1 - s) < 1.0:
            return
        if aside is not None and t >= aside_until and aside.random() < ASIDE_CHANCE:
            dur = aside.uniform(*ASIDE_S)
            side = aside.choice([-1, 1])
            plan.offsets.append((t + 1.0, t + 1.0 + dur, side * aside.uniform(*ASIDE_DEG)))
            act(
                t + 1.0,
                t + 1.0 + dur,
                f"C looks to the {'left' if side > 0 else 'right'} while walking",
                "look",
            )
            aside_until = t + 1.0 + dur
        _, seconds = walk_timing([(0.0, 0.0), (abs(s1 - s), 0.0)], speed)
        plan.legs.append((round(t, 4), round(t + seconds, 4), s, s1))
        act(t, t + seconds, "C walks forward", "walk")
        # turns at the corners passed on the way
        for k in range(1, len(places)):
            c = plan.place_start[k]
            if min(s, s1) < c < max(s, s1):
                frac = abs(c - s) / abs(s1 - s)
                tc = t + frac * seconds
                turn = (places[k].heading_deg - places[k - 1].heading_deg) * direction
                if turn:
                    act(tc - 1.0, tc + 1.0, "C turns left" if turn > 0 else "C turns right", "turn")
        if rng.random() < 0.35 and seconds > 6:
            a = t + rng.uniform(0.5, seconds / 2)
            b = min(t + seconds, a + rng.uniform(3.0, 8.0))
            plan.offsets.append((a, b, rng.choice([-1, 1]) * rng.uniform(30.0, 70.0)))
        t += seconds
        s = s1

    def stop(seconds: float, look_around: bool) -> None:
        nonlocal t
        if look_around:
            act(t, t + seconds, "C stops and looks around", "look")
            k = t
            while k < t + seconds - 1.0:
                dur = rng.uniform(1.5, 3.0)
                plan.offsets.append(
                    (k, min(k + dur, t + seconds), rng.choice([-1, 1]) * rng.uniform(45.0, 150.0))
                )
                k += dur
        t += seconds

    def turn_around() -> None:
        nonlocal t, direction
        sign = rng.choice([-1, 1])
        plan.flips.append((t, sign))
        act(t, t + TURN_S, "C turns around", "turn")
        direction = -direction
        t += TURN_S

    stop(1.0, False)
    while t < duration_s:
        r = rng.random()
        if r < 0.12 and s > 30 and t - last_back > 60 and direction > 0:
            turn_around()
            walk(rng.uniform(10.0, min(45.0, s - 5.0)))
            stop(rng.uniform(0.5, 2.0), False)
            turn_around()
            last_back = t
        elif r < 0.3:
            stop(rng.uniform(3.0, 9.0), look_around=True)
        else:
            if s >= plan.length - 5.0:
                turn_around()
                walk(rng.uniform(20.0, 60.0))
                turn_around()
                continue
            walk(rng.uniform(15.0, 60.0))
    plan.actions = [a for a in plan.actions if a.start_s < duration_s]
    plan.actions.sort(key=lambda a: (a.start_s, a.end_s))
    return plan
