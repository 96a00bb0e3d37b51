"""Places of a panoramic walk: streets, halls, shops, parks, markets and stations, each with its own look.

A `Place` is a straight stretch of the route (``origin``, ``heading_deg``, ``length``, ``width``) of one
kind. Consecutive places join end to start and turn by 0° or ±90° so that the route never crosses itself
(headings stay within 0° … 90°). A place's structure (ground, buildings or walls and ceiling) has
instance id 0; its *instances* (people, benches, signs …) have their own ids. Walking people pace up and
down their place (`WalkingPerson`).

Besides the instances spread along a place, some places hold a *group*: a close row of one category
(`GROUPS`: roadworks cones, parked cars and bicycles, market crates, crowds, a grove). Groups give the
long tail of counts that real walks have (VSI-Super-Wild's counts run from 1 to 609, median 7): a
category that recurs in groups along a long walk reaches tens to hundreds of instances in one view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from random import Random

import numpy as np
from numpy.typing import NDArray

from egoworld.geometry.transforms import make_transform, rotation_about
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder, PrimitiveSet
from egoworld.sim.walk.catalog import CATEGORIES

JUNCTION = 4.0
"""metres kept free of walls and buildings at both ends of a place (the corners stay open)"""


@dataclass(frozen=True)
class PlaceStyle:
    kind: str
    width: tuple[float, float]
    indoor: bool
    categories: dict[str, float]
    """category → weight"""
    spacing: tuple[float, float]


STYLES: dict[str, PlaceStyle] = {
    "street": PlaceStyle(
        "street",
        (12.0, 16.0),
        False,
        {
            "traffic cone": 2,
            "sign": 2,
            "lamp post": 2,
            "tree": 1.5,
            "car": 2,
            "bicycle": 1,
            "fire hydrant": 1,
            "bollard": 1.5,
            "mailbox": 0.7,
            "bus stop": 0.5,
            "trash bin": 1,
            "person": 2.5,
            "bench": 0.7,
        },
        (2.5, 6.0),
    ),
    "hall": PlaceStyle(
        "hall",
        (10.0, 14.0),
        True,
        {
            "column": 2,
            "bench": 2,
            "potted plant": 2,
            "sign": 1,
            "kiosk": 1,
            "vending machine": 1,
            "info board": 1.5,
            "trash bin": 1,
            "person": 3,
            "statue": 0.5,
        },
        (3.0, 6.0),
    ),
    "shop": PlaceStyle(
        "shop",
        (6.0, 8.0),
        True,
        {
            "mannequin": 2,
            "clothes rack": 2.5,
            "display table": 2,
            "shopping basket": 1,
            "cash register": 0.5,
            "potted plant": 1,
            "sign": 1,
            "person": 2,
        },
        (2.0, 4.0),
    ),
    "park": PlaceStyle(
        "park",
        (14.0, 20.0),
        False,
        {
            "tree": 4,
            "bench": 2,
            "lamp post": 1.5,
            "trash bin": 1,
            "flower bed": 1.5,
            "statue": 0.6,
            "fountain": 0.4,
            "person": 2.5,
            "bicycle": 0.7,
        },
        (3.0, 7.0),
    ),
    "market": PlaceStyle(
        "market",
        (10.0, 14.0),
        False,
        {
            "kiosk": 2.5,
            "umbrella": 2.5,
            "crate": 3,
            "sign": 1,
            "person": 3,
            "trash bin": 1,
            "traffic cone": 0.5,
        },
        (2.0, 4.5),
    ),
    "station": PlaceStyle(
        "station",
        (12.0, 16.0),
        True,
        {
            "info board": 2,
            "bench": 2,
            "vending machine": 1.5,
            "sign": 2,
            "column": 1.5,
            "trash bin": 1,
            "person": 3.5,
        },
        (2.5, 5.0),
    ),
}
KINDS = tuple(STYLES)
#: place kind → (category, spacing in metres) of the groups it may hold
GROUPS: dict[str, tuple[tuple[str, float], ...]] = {
    "street": (("traffic cone", 1.2), ("car", 5.0), ("bicycle", 0.9), ("bollard", 1.5)),
    "hall": (("person", 0.9), ("bench", 2.0), ("potted plant", 1.5)),
    "shop": (("clothes rack", 1.2), ("mannequin", 1.0)),
    "park": (("tree", 3.0), ("person", 1.0), ("bench", 2.5)),
    "market": (("crate", 0.8), ("umbrella", 2.2), ("person", 0.9)),
    "station": (("person", 0.9), ("bench", 2.2), ("column", 3.0)),
}
GROUP_CHANCE = 0.45  # a place holds a group with this chance


@dataclass(frozen=True)
class WalkingPerson:
    """A person pacing between ``a`` and ``b`` (world xy) at ``speed``; at ``a`` at time ``phase_s``."""

    a: tuple[float, float]
    b: tuple[float, float]
    speed: float
    phase_s: float

    def position(self, t: float) -> tuple[NDArray, float]:
        """Floor position and heading (degrees) at ``t``."""
        a, b = np.asarray(self.a), np.asarray(self.b)
        length = float(np.linalg.norm(b - a))
        period = 2 * length / self.speed
        u = ((t - self.phase_s) % period) / period
        forward = u < 0.5
        s = (2 * u if forward else 2 - 2 * u) * length
        d = (b - a) / length
        heading = math.degrees(math.atan2(d[1], d[0])) + (0.0 if forward else 180.0)
        return a + s * d, heading


@dataclass
class Instance:
    """One instance of a place: category, ground position, heading, parts (own frame) and id."""

    id: str
    category: str
    inst: int
    place: str
    position: tuple[float, float]
    heading_deg: float
    parts: PrimitiveSet
    walker: WalkingPerson | None = None

    def world(self, t: float) -> PrimitiveSet:
        if self.walker is None:
            pos, heading = np.asarray(self.position), self.heading_deg
        else:
            pos, heading = self.walker.position(t)
        return self.parts.transformed(make_transform(rotation_about("z", heading), (pos[0], pos[1], 0.0)))

    def center(self, t: float) -> NDArray:
        pos = np.asarray(self.position) if self.walker is None else self.walker.position(t)[0]
        return np.array([pos[0], pos[1], 0.8])


@dataclass
class Place:
    """A straight stretch of the route."""

    id: str
    kind: str
    name: str
    index: int
    origin: tuple[float, float]
    heading_deg: float
    length: float
    width: float
    looks: dict[str, Look]
    structure: PrimitiveSet = field(default_factory=PrimitiveSet.empty)
    instances: list[Instance] = field(default_factory=list)

    @property
    def direction(self) -> NDArray:
        h = math.radians(self.heading_deg)
        return np.array([math.cos(h), math.sin(h)])

    @property
    def normal(self) -> NDArray:
        d = self.direction
        return np.array([-d[1], d[0]])

    def point(self, s: float, lateral: float) -> NDArray:
        return np.asarray(self.origin) + s * self.direction + lateral * self.normal

    @property
    def end(self) -> tuple[float, float]:
        p = self.point(self.length, 0.0)
        return (float(p[0]), float(p[1]))

    def bounds(self, margin: float = 20.0) -> tuple[NDArray, NDArray]:
        corners = np.array(
            [
                self.point(s, lat)
                for s in (0.0, self.length)
                for lat in (-self.width / 2 - margin, self.width / 2 + margin)
            ]
        )
        return corners.min(axis=0), corners.max(axis=0)

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "index": self.index,
            "origin": list(self.origin),
            "heading_deg": self.heading_deg,
            "length_m": self.length,
            "width_m": self.width,
            "looks": {k: v.to_json() for k, v in self.looks.items()},
            "instances": len(self.instances),
        }


def _hue(rng: Random) -> tuple[int, int, int]:
    base = [rng.randint(60, 230) for _ in range(3)]
    return (base[0], base[1], base[2])


def _looks(kind: str, rng: Random) -> dict[str, Look]:
    c1, c2 = _hue(rng), _hue(rng)
    if kind == "street":
        return {
            "ground": Look((70, 70, 75), (90, 90, 95), "speckle", 0.3),
            "side": Look((170, 165, 160), (140, 135, 130), "checker", 0.6),
            "building": Look(c1, (60, 80, 110), "windows", rng.uniform(2.2, 3.2)),
            "building2": Look(c2, (50, 60, 70), "windows", rng.uniform(2.2, 3.2)),
        }
    if kind == "park":
        return {
            "ground": Look((80, 150, 60), (60, 120, 45), "speckle", 0.5),
            "side": Look((190, 170, 130), (170, 150, 110), "speckle", 0.2),
        }
    if kind == "market":
        return {
            "ground": Look((180, 150, 120), (150, 120, 95), "checker", 0.8),
            "side": Look((160, 150, 140)),
            "building": Look(c1, (90, 60, 40), "windows", 2.5),
        }
    floor = {
        "hall": Look((225, 220, 210), c1, "checker", 1.2),
        "shop": Look((170, 125, 80), (140, 100, 65), "vstripes", 0.25),
        "station": Look((150, 150, 150), (200, 200, 60), "checker", 1.0),
    }
    return {
        "ground": floor[kind],
        "wall": Look(c2, c1, "hbands" if kind != "shop" else "frame", 1.5 if kind != "shop" else 0.3),
        "ceiling": Look((240, 240, 235), (200, 200, 195), "checker", 2.0),
    }


def make_route(rng: Random, min_length: float) -> list[Place]:
    """Places (without structure yet) joined end to start until the route is ``min_length`` long."""
    places: list[Place] = []
    counters: dict[str, int] = {}
    origin, heading, total = (0.0, 0.0), 0.0, 0.0
    while total < min_length or not places:
        kinds = [k for k in KINDS if not places or k != places[-1].kind]
        kind = kinds[rng.randrange(len(kinds))]
        counters[kind] = counters.get(kind, 0) + 1
        style = STYLES[kind]
        length = round(rng.uniform(25.0, 60.0), 1)
        width = round(rng.uniform(*style.width), 1)
        i = len(places)
        place = Place(
            f"place_{i:03d}",
            kind,
            f"{kind} {counters[kind]}",
            i,
            origin,
            heading,
            length,
            width,
            _looks(kind, rng),
        )
        places.append(place)
        total += length
        origin = place.end
        turn = rng.random()
        if turn < 0.55:  # turn towards the other allowed heading; straight on otherwise
            heading = 90.0 if heading == 0.0 else 0.0
    return places


def build_place(place: Place, rng: Random, first_inst: int, prev_half: float, next_half: float) -> None:
    """Give ``place`` its structure and instances (instance ids from ``first_inst``); the ends stay open
    for the neighbouring places (half widths ``prev_half`` / ``next_half``)."""
    style = STYLES[place.kind]
    place.structure = _structure(place, style, rng, place.index, prev_half + JUNCTION, next_half + JUNCTION)
    place.instances = _instances(place, style, rng, first_inst)


def _local_box(
    b: PartsBuilder,
    place: Place,
    s0: float,
    s1: float,
    l0: float,
    l1: float,
    z0: float,
    z1: float,
    look: Look,
) -> None:
    c = place.point((s0 + s1) / 2, (l0 + l1) / 2)
    b.add(
        "box",
        (c[0], c[1], (z0 + z1) / 2),
        ((s1 - s0) / 2, (l1 - l0) / 2, (z1 - z0) / 2),
        look,
        yaw_deg=place.heading_deg,
    )


def _structure(
    place: Place, style: PlaceStyle, rng: Random, index: int, m0: float, m1: float
) -> PrimitiveSet:
    b = PartsBuilder()
    lk = place.looks
    w, length = place.width / 2, place.length
    top = -0.002 * (index % 3)  # neighbouring grounds never tie in depth
    if style.indoor:
        _local_box(b, place, -1.0, length + 1.0, -w - 0.5, w + 0.5, top - 0.1, top, lk["ground"])
        height = round(rng.uniform(3.5, 7.0), 2)
        if length - m0 - m1 > 1.0:
            _local_box(b, place, m0, length - m1, w, w + 0.3, 0.0, height, lk["wall"])
            _local_box(b, place, m0, length - m1, -w - 0.3, -w, 0.0, height, lk["wall"])
            _local_box(b, place, m0, length - m1, -w - 0.3, w + 0.3, height, height + 0.3, lk["ceiling"])
        return b.build()
    ground = lk["ground"]
    _local_box(b, place, -1.0, length + 1.0, -w, w, top - 0.1, top, ground)
    for side in (-1, 1):
        a, c = (w, w + 8.0) if side > 0 else (-w - 8.0, -w)
        _local_box(b, place, -1.0, length + 1.0, a, c, top - 0.1, top + 0.12, lk["side"])
        if "building" not in lk:
            continue
        s = m0
        while s < length - m1 - 4:
            blen = min(rng.uniform(6.0, 16.0), length - m1 - s)
            depth = rng.uniform(6.0, 10.0)
            height = rng.uniform(6.0, 22.0)
            look = lk["building"] if rng.random() < 0.6 else lk.get("building2", lk["building"])
            off = w + 3.0
            l0, l1 = (off, off + depth) if side > 0 else (-off - depth, -off)
            _local_box(b, place, s, s + blen, l0, l1, 0.0, height, look)
            s += blen + rng.choice([0.0, 0.0, 2.0, 4.0])
    return b.build()


def _instances(place: Place, style: PlaceStyle, rng: Random, first_inst: int) -> list[Instance]:
    cats = sorted(style.categories)
    weights = [style.categories[c] for c in cats]
    out: list[Instance] = []
    w = place.width / 2
    s = 3.0 + rng.uniform(0, style.spacing[0])
    while s < place.length - 3.0:
        cat = rng.choices(cats, weights)[0]
        side = rng.choice([-1, 1])
        lateral = side * rng.uniform(1.8, max(2.0, w - 0.8))
        if cat in ("car",):
            lateral = side * max(2.0, w - 2.0)
        p = place.point(s, lateral)
        b = PartsBuilder()
        CATEGORIES[cat](b, rng)
        inst = first_inst + len(out)
        heading = place.heading_deg + rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-15, 15)
        walker = None
        if cat == "person" and rng.random() < 0.5:
            s0 = max(3.0, s - rng.uniform(5, 15))
            s1 = max(s0 + 2.0, min(place.length - 3.0, s + rng.uniform(5, 15)))
            a, bpt = place.point(s0, lateral), place.point(s1, lateral)
            walker = WalkingPerson(
                (float(a[0]), float(a[1])),
                (float(bpt[0]), float(bpt[1])),
                round(rng.uniform(0.9, 1.4), 3),
                round(rng.uniform(0, 60), 3),
            )
        out.append(
            Instance(
                id=f"{place.id}/{len(out):03d}",
                category=cat,
                inst=inst,
                place=place.id,
                position=(round(float(p[0]), 4), round(float(p[1]), 4)),
                heading_deg=round(heading, 3),
                parts=b.build().with_inst(inst),
                walker=walker,
            )
        )
        s += rng.uniform(*style.spacing)
    if rng.random() < GROUP_CHANCE:
        out += _group(place, rng, first_inst + len(out), len(out))
    return out


def _group(place: Place, rng: Random, first_inst: int, first_index: int) -> list[Instance]:
    """A close row of one category along one side of ``place`` (seeded length, side and offset)."""
    cat, gap = rng.choice(GROUPS[place.kind])
    span = rng.uniform(0.3, 0.8) * (place.length - 6.0)
    s0 = 3.0 + rng.uniform(0.0, place.length - 6.0 - span)
    side = rng.choice([-1, 1])
    w = place.width / 2
    lateral = side * (max(2.0, w - 2.0) if cat == "car" else rng.uniform(1.5, max(1.6, w - 1.0)))
    out = []
    for k in range(max(2, int(span / gap))):
        p = place.point(s0 + k * gap + rng.uniform(-0.1, 0.1) * gap, lateral + rng.uniform(-0.3, 0.3))
        b = PartsBuilder()
        CATEGORIES[cat](b, rng)
        inst = first_inst + k
        out.append(
            Instance(
                id=f"{place.id}/{first_index + k:03d}",
                category=cat,
                inst=inst,
                place=place.id,
                position=(round(float(p[0]), 4), round(float(p[1]), 4)),
                heading_deg=round(place.heading_deg + rng.choice([0.0, 180.0]) + rng.uniform(-10, 10), 3),
                parts=b.build().with_inst(inst),
            )
        )
    return out
