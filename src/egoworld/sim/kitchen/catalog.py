"""Kitchen object categories: shape (parts in the object's frame), look and where each may rest.

Every category gets its own silhouette and colour scheme so categories can be told apart in a frame.
An object's frame has its origin at the object's centre, z up; `ObjectShape.half_height` says how far the
base lies below the centre (an object at rest has centre = support height + half_height).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from random import Random

import numpy as np

from egoworld.geometry.transforms import rotation_about
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder, PrimitiveSet

DISHES = ("cupboard", "counter", "table", "sink", "dishwasher", "shelf")
CUTLERY = ("drawer", "counter", "table", "sink", "dishwasher")
FOOD = ("fridge", "counter", "table", "shelf")
PANS = ("hob", "oven", "cupboard", "counter", "sink")
PACKS = ("cupboard", "shelf", "counter", "table", "fridge")
CLEANING = ("sink", "counter", "drawer", "cupboard")


@dataclass(frozen=True)
class Category:
    """One object category: its name, allowed resting fixture types and how to build it."""

    name: str
    rests_on: tuple[str, ...]
    build: Callable[[PartsBuilder, Look], float]
    """adds the parts (object frame) and returns the half height"""
    look: Look


def _cyl(r: float, hh: float) -> Callable[[PartsBuilder, Look], float]:
    def build(b: PartsBuilder, lk: Look) -> float:
        b.add("cylinder", (0, 0, 0), (r, r, hh), lk)
        return hh

    return build


def _box(x: float, y: float, z: float) -> Callable[[PartsBuilder, Look], float]:
    def build(b: PartsBuilder, lk: Look) -> float:
        b.add("box", (0, 0, 0), (x / 2, y / 2, z / 2), lk)
        return z / 2

    return build


def _ell(x: float, y: float, z: float) -> Callable[[PartsBuilder, Look], float]:
    def build(b: PartsBuilder, lk: Look) -> float:
        b.add("ellipsoid", (0, 0, 0), (x, y, z), lk)
        return z

    return build


def _mug(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, 0), (0.042, 0.042, 0.05), lk)
    b.add("box", (0.052, 0, 0.005), (0.012, 0.006, 0.028), Look(lk.color))
    return 0.05


def _knife(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (0.05, 0, 0), (0.08, 0.013, 0.004), Look((200, 205, 210)))
    b.add("box", (-0.07, 0, 0), (0.05, 0.011, 0.008), lk)
    return 0.008


def _fork(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (-0.03, 0, 0), (0.07, 0.007, 0.004), lk)
    b.add("box", (0.065, 0, 0), (0.03, 0.014, 0.004), lk)
    return 0.004


def _spoon(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (-0.03, 0, 0), (0.07, 0.007, 0.004), lk)
    b.add("ellipsoid", (0.065, 0, 0), (0.028, 0.018, 0.008), lk)
    return 0.008


def _spatula(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (-0.06, 0, 0), (0.09, 0.01, 0.008), Look((40, 40, 40)))
    b.add("box", (0.075, 0, 0), (0.045, 0.04, 0.004), lk)
    return 0.008


def _pan(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, 0), (0.12, 0.12, 0.025), lk)
    b.add("box", (0.2, 0, 0.01), (0.08, 0.015, 0.008), Look((30, 30, 30)))
    return 0.025


def _pot(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, 0), (0.1, 0.1, 0.075), lk)
    b.add("cylinder", (0, 0, 0.078), (0.102, 0.102, 0.004), Look((60, 60, 60)))
    b.add("box", (0.115, 0, 0.05), (0.018, 0.03, 0.008), Look((30, 30, 30)))
    b.add("box", (-0.115, 0, 0.05), (0.018, 0.03, 0.008), Look((30, 30, 30)))
    return 0.082


def _kettle(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, -0.01), (0.075, 0.075, 0.09), lk)
    b.add("box", (0.09, 0, 0.03), (0.03, 0.012, 0.012), lk, rot=rotation_about("y", -35))
    b.add("box", (-0.08, 0, 0.02), (0.012, 0.012, 0.06), Look((30, 30, 30)))
    b.add("cylinder", (0, 0, 0.085), (0.03, 0.03, 0.008), Look((30, 30, 30)))
    return 0.1


def _bottle(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, -0.02), (0.035, 0.035, 0.11), lk)
    b.add("cylinder", (0, 0, 0.115), (0.014, 0.014, 0.025), Look(lk.color))
    return 0.14


def _jar(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, -0.008), (0.045, 0.045, 0.055), lk)
    b.add("cylinder", (0, 0, 0.055), (0.047, 0.047, 0.01), Look(lk.color2))
    return 0.065


def _shaker(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, -0.008), (0.02, 0.02, 0.04), lk)
    b.add("ellipsoid", (0, 0, 0.035), (0.02, 0.02, 0.012), Look((190, 190, 195)))
    return 0.048


def _teapot(b: PartsBuilder, lk: Look) -> float:
    b.add("ellipsoid", (0, 0, 0), (0.085, 0.085, 0.07), lk)
    b.add("box", (0.1, 0, 0.02), (0.035, 0.01, 0.01), lk, rot=rotation_about("y", -30))
    b.add("cylinder", (0, 0, 0.07), (0.025, 0.025, 0.012), Look(lk.color2))
    return 0.075


def _toaster(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (0, 0, 0), (0.14, 0.08, 0.1), lk)
    b.add("box", (0, 0, 0.101), (0.1, 0.05, 0.002), Look((20, 20, 20), (20, 20, 20)))
    return 0.1


def _board(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (0, 0, 0), (0.18, 0.12, 0.01), lk)
    return 0.01


def _carrot(b: PartsBuilder, lk: Look) -> float:
    b.add("cylinder", (0, 0, 0), (0.016, 0.016, 0.08), lk, rot=rotation_about("y", 90))
    b.add("ellipsoid", (-0.095, 0, 0), (0.025, 0.012, 0.01), Look((60, 140, 50)))
    return 0.016


def _tray(b: PartsBuilder, lk: Look) -> float:
    b.add("box", (0, 0, 0), (0.2, 0.14, 0.012), lk)
    return 0.012


CATEGORIES: tuple[Category, ...] = (
    Category("plate", DISHES, _cyl(0.11, 0.01), Look((245, 245, 240), (70, 110, 190), "rings", 0.05)),
    Category("bowl", DISHES, _cyl(0.075, 0.035), Look((240, 200, 90), (190, 120, 40), "hbands", 0.025)),
    Category("mug", DISHES, _mug, Look((200, 40, 60), (250, 250, 250), "dots", 0.03)),
    Category("glass", DISHES, _cyl(0.033, 0.055), Look((170, 215, 235), (220, 240, 250), "hbands", 0.04)),
    Category("knife", CUTLERY, _knife, Look((25, 25, 25))),
    Category("fork", CUTLERY, _fork, Look((185, 190, 200))),
    Category("spoon", CUTLERY, _spoon, Look((210, 210, 220))),
    Category("spatula", CUTLERY + ("hob",), _spatula, Look((230, 120, 30))),
    Category("frying pan", PANS, _pan, Look((45, 45, 50), (80, 80, 85), "rings", 0.04)),
    Category("pot", PANS, _pot, Look((175, 180, 190), (140, 145, 155), "hbands", 0.03)),
    Category("kettle", ("counter", "hob", "table"), _kettle, Look((210, 30, 30))),
    Category("bottle", FOOD, _bottle, Look((30, 140, 60), (240, 230, 200), "label", 0.035)),
    Category("jar", FOOD + ("cupboard",), _jar, Look((220, 160, 60), (180, 20, 20), "solid")),
    Category(
        "can", FOOD + ("cupboard",), _cyl(0.033, 0.06), Look((200, 200, 210), (30, 80, 200), "label", 0.03)
    ),
    Category("tomato", FOOD, _ell(0.038, 0.038, 0.033), Look((220, 30, 20))),
    Category("apple", FOOD, _ell(0.04, 0.04, 0.038), Look((120, 190, 40), (200, 60, 40), "dots", 0.03)),
    Category("orange", FOOD, _ell(0.042, 0.042, 0.04), Look((250, 140, 0))),
    Category("lemon", FOOD, _ell(0.045, 0.03, 0.03), Look((250, 230, 40))),
    Category("onion", FOOD, _ell(0.04, 0.04, 0.045), Look((150, 70, 100), (200, 150, 160), "hbands", 0.015)),
    Category("potato", FOOD, _ell(0.05, 0.035, 0.03), Look((160, 120, 70), (120, 85, 45), "speckle", 0.012)),
    Category("carrot", FOOD, _carrot, Look((245, 110, 20))),
    Category("banana", FOOD, _ell(0.1, 0.022, 0.02), Look((245, 220, 60), (120, 100, 30), "vstripes", 0.08)),
    Category("egg box", FOOD, _box(0.15, 0.1, 0.07), Look((150, 150, 140), (210, 205, 190), "checker", 0.05)),
    Category("milk carton", FOOD, _box(0.07, 0.07, 0.2), Look((250, 250, 250), (40, 90, 200), "label", 0.04)),
    Category(
        "cereal box", PACKS, _box(0.19, 0.07, 0.27), Look((230, 200, 30), (200, 40, 40), "hbands", 0.06)
    ),
    Category("sponge", CLEANING, _box(0.1, 0.066, 0.03), Look((245, 230, 60), (40, 160, 60), "hbands", 0.03)),
    Category(
        "towel",
        CLEANING + ("table",),
        _box(0.26, 0.18, 0.02),
        Look((240, 240, 240), (40, 120, 200), "vstripes", 0.04),
    ),
    Category(
        "cutting board",
        ("counter", "table", "cupboard", "sink"),
        _board,
        Look((190, 140, 80), (160, 110, 60), "vstripes", 0.02),
    ),
    Category("salt shaker", ("counter", "table", "cupboard", "shelf"), _shaker, Look((250, 250, 250))),
    Category(
        "teapot",
        ("counter", "table", "shelf", "cupboard"),
        _teapot,
        Look((60, 130, 170), (230, 230, 230), "dots", 0.04),
    ),
    Category("toaster", ("counter",), _toaster, Look((200, 200, 205), (150, 150, 155), "vstripes", 0.03)),
    Category(
        "tray",
        ("counter", "table", "cupboard", "shelf"),
        _tray,
        Look((120, 60, 140), (200, 170, 220), "frame", 0.02),
    ),
)
BY_NAME = {c.name: c for c in CATEGORIES}


@dataclass(frozen=True)
class ObjectShape:
    """An object's parts in its own frame (instance id still 0) and its half height."""

    parts: PrimitiveSet
    half_height: float
    radius: float
    """largest horizontal extent from the centre (footprint), metres"""


def build_shape(
    category: str, rng: Random, color: tuple[int, int, int] | None = None
) -> tuple[ObjectShape, Look]:
    """A randomly scaled (±10 %) and recoloured instance of ``category`` (main colour ``color`` if given)."""
    cat = BY_NAME[category]
    base = cat.look if color is None else replace(cat.look, color=color)
    look = base.jittered(rng, 14 if color is None else 6)
    b = PartsBuilder()
    hh = cat.build(b, look)
    parts = b.build()
    s = rng.uniform(0.9, 1.1)
    parts = PrimitiveSet(
        parts.kind,
        parts.center * s,
        parts.rot,
        parts.half * s,
        parts.inst,
        parts.color,
        parts.color2,
        parts.pattern,
        parts.scale,
    )
    corners = np.abs(parts.center[:, None, :2]) + np.linalg.norm(parts.half[:, None, :2], axis=-1)[..., None]
    radius = float(np.max(corners))
    return ObjectShape(parts, hh * s, radius), look
