"""Vocabulary of the action scenes: object categories with their attributes and abilities, and colours.

Categories are the kitchen catalogue's (`egoworld.sim.kitchen.catalog`), so every symbolic object can be drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (200, 35, 35),
    "blue": (40, 80, 190),
    "green": (50, 150, 60),
    "white": (240, 240, 236),
    "black": (35, 35, 38),
    "yellow": (240, 210, 40),
    "orange": (240, 130, 20),
    "purple": (130, 60, 150),
    "grey": (140, 140, 145),
    "brown": (130, 90, 50),
    "pink": (235, 140, 170),
    "silver": (195, 198, 205),
}


@dataclass(frozen=True)
class Kind:
    """A movable category: its materials, colours, sizes and what can be done with it."""

    materials: tuple[str, ...]
    colours: tuple[str, ...]
    sizes: tuple[str, ...] = ("small", "medium", "large")
    cuttable: bool = False
    liquid: bool = False
    """holds a liquid (can be filled, poured from / into)"""
    stackable: bool = False
    washable: bool = True
    wiper: bool = False
    """can wipe surfaces"""
    cutter: bool = False
    storage: tuple[str, ...] = ("counter", "table", "shelf")
    """symbolic fixtures it may be put on / in"""
    heats: bool = False
    """goes on the stove / in the oven"""


_DISH = ("counter", "table", "shelf", "sink", "cupboard", "microwave")
_FOOD = ("counter", "table", "fridge", "shelf")
_TOOL = ("counter", "table", "sink", "drawer")

KINDS: dict[str, Kind] = {
    "plate": Kind(
        ("ceramic", "plastic"), ("white", "blue", "green", "yellow"), stackable=True, storage=_DISH
    ),
    "bowl": Kind(
        ("ceramic", "glass", "plastic"),
        ("white", "red", "blue", "yellow"),
        liquid=True,
        stackable=True,
        storage=_DISH,
    ),
    "mug": Kind(
        ("ceramic",), ("red", "white", "blue", "black"), ("small", "medium"), liquid=True, storage=_DISH
    ),
    "glass": Kind(("glass",), ("silver", "blue", "green"), ("small", "medium"), liquid=True, storage=_DISH),
    "knife": Kind(("metal",), ("silver", "black"), ("small", "medium"), cutter=True, storage=_TOOL),
    "fork": Kind(("metal",), ("silver",), ("small", "medium"), storage=_TOOL),
    "spoon": Kind(("metal", "wood"), ("silver", "brown"), ("small", "medium"), storage=_TOOL),
    "spatula": Kind(("plastic", "wood"), ("orange", "black", "brown"), ("medium",), storage=_TOOL),
    "frying pan": Kind(
        ("metal",),
        ("black", "grey"),
        ("medium", "large"),
        heats=True,
        storage=("counter", "sink", "cupboard", "stove", "oven"),
    ),
    "pot": Kind(
        ("metal",),
        ("silver", "red"),
        ("medium", "large"),
        liquid=True,
        heats=True,
        storage=("counter", "sink", "cupboard", "stove"),
    ),
    "kettle": Kind(
        ("metal", "plastic"),
        ("red", "white", "silver"),
        ("medium",),
        liquid=True,
        heats=True,
        storage=("counter", "table", "stove"),
    ),
    "bottle": Kind(
        ("glass", "plastic"),
        ("green", "blue", "silver"),
        ("medium", "large"),
        liquid=True,
        washable=False,
        storage=_FOOD,
    ),
    "jar": Kind(
        ("glass",),
        ("yellow", "orange", "red"),
        ("small", "medium"),
        washable=False,
        storage=_FOOD + ("cupboard",),
    ),
    "tomato": Kind(("organic",), ("red",), ("small", "medium"), cuttable=True, storage=_FOOD + ("sink",)),
    "apple": Kind(
        ("organic",), ("green", "red"), ("small", "medium"), cuttable=True, storage=_FOOD + ("sink",)
    ),
    "orange": Kind(("organic",), ("orange",), ("medium",), cuttable=True, storage=_FOOD),
    "lemon": Kind(("organic",), ("yellow",), ("small",), cuttable=True, storage=_FOOD),
    "onion": Kind(("organic",), ("purple", "brown"), ("small", "medium"), cuttable=True, storage=_FOOD),
    "potato": Kind(("organic",), ("brown",), ("medium", "large"), cuttable=True, storage=_FOOD + ("sink",)),
    "carrot": Kind(("organic",), ("orange",), ("medium",), cuttable=True, storage=_FOOD + ("sink",)),
    "banana": Kind(("organic",), ("yellow",), ("medium",), cuttable=True, storage=_FOOD),
    "milk carton": Kind(
        ("paper",), ("white",), ("medium", "large"), liquid=True, washable=False, storage=_FOOD
    ),
    "egg box": Kind(("paper",), ("grey",), ("medium",), washable=False, storage=_FOOD),
    "cereal box": Kind(
        ("paper",),
        ("yellow", "red", "blue"),
        ("large",),
        washable=False,
        storage=("counter", "table", "shelf", "cupboard"),
    ),
    "sponge": Kind(
        ("foam",), ("yellow", "green", "pink"), ("small",), wiper=True, storage=("counter", "sink", "drawer")
    ),
    "towel": Kind(
        ("fabric",),
        ("white", "blue", "red", "green"),
        ("medium",),
        wiper=True,
        washable=False,
        storage=("counter", "table", "drawer", "shelf"),
    ),
    "cutting board": Kind(
        ("wood", "plastic"),
        ("brown", "white", "green"),
        ("medium", "large"),
        storage=("counter", "table", "sink", "cupboard"),
    ),
    "salt shaker": Kind(
        ("glass", "ceramic"),
        ("white", "silver"),
        ("small",),
        washable=False,
        storage=("counter", "table", "shelf", "cupboard"),
    ),
    "teapot": Kind(
        ("ceramic",),
        ("blue", "white", "red"),
        ("medium",),
        liquid=True,
        storage=("counter", "table", "shelf", "cupboard"),
    ),
    "tray": Kind(
        ("plastic", "metal"),
        ("purple", "silver", "black"),
        ("large",),
        storage=("counter", "table", "shelf", "cupboard", "oven"),
    ),
}
FIXED_COLOUR = {"tomato", "orange", "lemon", "carrot", "banana", "milk carton", "egg box", "potato"}
"""categories drawn with the catalogue's own colours"""
