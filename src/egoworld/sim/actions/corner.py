"""The kitchen corner of the action scenes: one straight counter run (fridge, cupboard, drawers, sink,
stove over oven, microwave), a table in front and an open shelf — built with the kitchen's fixtures.

`ROLES` names the fixture each symbolic place refers to ("the counter", "the sink" …).
"""

from __future__ import annotations

from random import Random

from egoworld.sim.kitchen.layout import (
    FLOORS,
    RUN_DEPTH,
    STAND_GAP,
    WALLS,
    Builder,
    KitchenSpec,
    Run,
    SupportSpec,
    build_run,
)
from egoworld.sim.render.looks import Look

ROLES = {
    "counter": "counter.001",
    "sink": "sink.001",
    "stove": "hob.001",
    "oven": "oven.001",
    "fridge": "fridge.001",
    "cupboard": "cupboard.001",
    "drawer": "drawer.001",
    "microwave": "microwave.001",
    "table": "table.001",
    "shelf": "shelf.001",
}
"""symbolic fixture category → fixture id in the layout (the counter's main segment)"""
EXTRA = {"counter": ("counter.002",)}
"""further fixtures a symbolic place also covers ("the counter" is both counter segments)"""
FLOOR_SUPPORT = "floor/0"
UNDER_TABLE = "floor/under-table"


def make_action_kitchen(rng: Random) -> KitchenSpec:
    """The layout (see the module docstring); adds floor supports in front of the run and under the table."""
    width, depth = 4.8, round(rng.uniform(3.6, 4.2), 2)
    b = Builder(rng)
    run = Run((width - 0.1, depth), (-1.0, 0.0), (0.0, -1.0))
    b.fridge(run, 0.0, 0.7)
    mods = [
        ("cupboard", 0.6),
        ("drawers", 0.6),
        ("sink", 0.8),
        ("hob", 0.6),
        ("cupboard", 0.6),
        ("drawers", 0.5),
    ]
    build_run(b, run, mods, 0.72, wall_cupboards=2)
    tx, ty = round(width / 2 + rng.uniform(-0.3, 0.3), 2), round(depth - RUN_DEPTH - 1.35, 2)
    b.table((tx, ty), along_x=True)
    b.shelf_unit((0.16, round(depth / 2, 2)), -90.0, (0.32 + STAND_GAP, round(depth / 2, 2)))
    floor_y = depth - RUN_DEPTH - 0.45
    b.supports.append(
        SupportSpec(
            id=FLOOR_SUPPORT,
            fixture="floor",
            z=0.0,
            lo=(1.0, floor_y - 0.25),
            hi=(width - 1.0, floor_y + 0.05),
            clearance=1.0,
        )
    )
    b.supports.append(
        SupportSpec(
            id=UNDER_TABLE,
            fixture=ROLES["table"],
            z=0.0,
            lo=(tx - 0.5, ty - 0.3),
            hi=(tx + 0.5, ty + 0.3),
            clearance=0.65,
            relation="under",
        )
    )
    return KitchenSpec(
        room_lo=(0.0, 0.0, 0.0),
        room_hi=(width, depth, 2.6),
        floor=rng.choice(FLOORS),
        walls=Look(rng.choice(WALLS)),
        ceiling=Look((248, 248, 246)),
        fixtures=tuple(b.fixtures),
        supports=tuple(b.supports),
        stands=b.stands,
        obstacles=tuple(b.obstacles),
        start=(round(width / 2, 2), 0.5),
    )
