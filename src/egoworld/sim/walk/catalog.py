"""Instance categories of the panoramic walks (signs, benches, cones, kiosks, people …).

Each builder adds parts in the instance's frame (origin on the ground under its centre, z up, x along
the walking direction of its place) with randomised colours, and returns nothing; sizes are in metres.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from egoworld.geometry.transforms import rotation_about
from egoworld.sim.render.looks import Look
from egoworld.sim.render.primitives import PartsBuilder

Builder = Callable[[PartsBuilder, Random], None]
_CLOTHES = [
    (200, 40, 40),
    (40, 80, 180),
    (240, 200, 40),
    (40, 140, 70),
    (230, 230, 230),
    (30, 30, 30),
    (150, 60, 160),
    (240, 130, 30),
]


def _pick(rng: Random, colours: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    return colours[rng.randrange(len(colours))]


def person(b: PartsBuilder, rng: Random, tone: tuple[int, int, int] | None = None) -> None:
    h = rng.uniform(1.55, 1.9)
    shirt, trousers = _pick(rng, _CLOTHES), _pick(rng, _CLOTHES)
    skin = tone or _pick(rng, [(240, 200, 170), (200, 150, 110), (140, 95, 60), (90, 60, 40)])
    leg = 0.47 * h
    b.add("box", (0, 0.08, leg / 2), (0.07, 0.07, leg / 2), Look(trousers))
    b.add("box", (0, -0.08, leg / 2), (0.07, 0.07, leg / 2), Look(trousers))
    b.add(
        "cylinder",
        (0, 0, leg + 0.18 * h),
        (0.13, 0.2, 0.18 * h),
        Look(shirt, _pick(rng, _CLOTHES), rng.choice(["solid", "hbands", "vstripes"]), 0.08),
    )
    b.add("ellipsoid", (0, 0, h - 0.11), (0.1, 0.09, 0.12), Look(skin))


def mannequin(b: PartsBuilder, rng: Random) -> None:
    person(b, rng, tone=(235, 235, 235))
    b.add("cylinder", (0, 0, 0.02), (0.2, 0.2, 0.02), Look((60, 60, 60)))


def traffic_cone(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 0.015), (0.2, 0.2, 0.015), Look((30, 30, 30)))
    b.add("cylinder", (0, 0, 0.2), (0.1, 0.1, 0.18), Look((250, 100, 10), (250, 250, 250), "label", 0.04))
    b.add("cylinder", (0, 0, 0.42), (0.05, 0.05, 0.05), Look((250, 100, 10)))


def sign(b: PartsBuilder, rng: Random) -> None:
    colour = _pick(rng, [(30, 90, 200), (200, 30, 30), (30, 140, 60), (240, 200, 20)])
    b.add("cylinder", (0, 0, 1.1), (0.03, 0.03, 1.1), Look((150, 150, 155)))
    b.add("box", (0, 0, 2.2), (0.04, 0.35, 0.25), Look(colour, (250, 250, 250), "frame", 0.04))


def bench(b: PartsBuilder, rng: Random) -> None:
    wood = _pick(rng, [(140, 90, 50), (90, 60, 35), (60, 110, 60), (120, 120, 125)])
    b.add("box", (0, 0, 0.45), (0.22, 0.8, 0.03), Look(wood, (0, 0, 0), "vstripes", 0.05))
    b.add("box", (-0.2, 0, 0.75), (0.03, 0.8, 0.2), Look(wood))
    for y in (-0.7, 0.7):
        b.add("box", (0, y, 0.22), (0.2, 0.03, 0.22), Look((40, 40, 40)))


def bin_(b: PartsBuilder, rng: Random) -> None:
    b.add(
        "cylinder",
        (0, 0, 0.45),
        (0.25, 0.25, 0.45),
        Look(_pick(rng, [(30, 100, 50), (60, 60, 65), (200, 120, 20)]), (200, 200, 200), "hbands", 0.3),
    )


def lamp_post(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 2.0), (0.06, 0.06, 2.0), Look((45, 50, 55)))
    b.add("ellipsoid", (0, 0, 4.1), (0.22, 0.22, 0.15), Look((250, 245, 200)))


def tree(b: PartsBuilder, rng: Random) -> None:
    h = rng.uniform(3.0, 6.0)
    b.add("cylinder", (0, 0, h * 0.3), (0.15, 0.15, h * 0.3), Look((100, 70, 40)))
    green = _pick(rng, [(50, 130, 50), (70, 150, 40), (40, 100, 60), (120, 160, 60)])
    b.add(
        "ellipsoid",
        (0, 0, h * 0.7),
        (h * 0.28, h * 0.28, h * 0.35),
        Look(green, (30, 90, 30), "speckle", 0.3),
    )


def bicycle(b: PartsBuilder, rng: Random) -> None:
    frame = Look(_pick(rng, _CLOTHES))
    wheel = Look((25, 25, 25), (180, 180, 180), "rings", 0.1)
    for x in (-0.5, 0.5):
        b.add("cylinder", (x, 0, 0.35), (0.35, 0.35, 0.02), wheel, rot=rotation_about("x", 90))
    b.add("box", (0, 0, 0.6), (0.5, 0.02, 0.025), frame)
    b.add("box", (-0.15, 0, 0.5), (0.02, 0.02, 0.22), frame)
    b.add("box", (-0.15, 0, 0.78), (0.12, 0.06, 0.03), Look((20, 20, 20)))


def car(b: PartsBuilder, rng: Random) -> None:
    paint = _pick(
        rng, [(200, 30, 30), (30, 60, 160), (230, 230, 230), (30, 30, 30), (150, 150, 155), (240, 200, 30)]
    )
    b.add("box", (0, 0, 0.65), (2.1, 0.9, 0.35), Look(paint))
    b.add("box", (-0.2, 0, 1.2), (1.1, 0.8, 0.25), Look((60, 80, 100), paint, "frame", 0.08))
    for x in (-1.4, 1.4):
        for y in (-0.85, 0.85):
            b.add(
                "cylinder", (x, y, 0.32), (0.32, 0.32, 0.1), Look((20, 20, 20)), rot=rotation_about("x", 90)
            )


def fire_hydrant(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 0.35), (0.12, 0.12, 0.35), Look((210, 30, 20)))
    b.add("ellipsoid", (0, 0, 0.72), (0.12, 0.12, 0.08), Look((210, 30, 20)))
    b.add("cylinder", (0, 0, 0.45), (0.05, 0.05, 0.2), Look((230, 230, 230)), rot=rotation_about("x", 90))


def bollard(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 0.45), (0.1, 0.1, 0.45), Look((60, 60, 65), (240, 240, 240), "hbands", 0.25))


def mailbox(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 0.5), (0.04, 0.04, 0.5), Look((40, 40, 40)))
    b.add("box", (0, 0, 1.15), (0.25, 0.2, 0.18), Look((30, 60, 170), (240, 240, 240), "label", 0.02))


def bus_stop(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 2.5), (0.9, 2.0, 0.05), Look((150, 155, 160)))
    b.add("box", (-0.85, 0, 1.25), (0.03, 1.9, 1.2), Look((170, 200, 220), (120, 140, 160), "frame", 0.08))
    for y in (-1.9, 1.9):
        b.add("box", (-0.85, y, 1.25), (0.05, 0.05, 1.25), Look((80, 80, 85)))
    b.add("box", (0.0, 1.9, 1.6), (0.04, 0.35, 0.5), Look((250, 200, 20), (30, 30, 30), "hbands", 0.2))


def kiosk(b: PartsBuilder, rng: Random) -> None:
    colour = _pick(rng, [(200, 60, 40), (40, 120, 180), (60, 150, 80), (230, 180, 40)])
    b.add("box", (0, 0, 1.1), (1.1, 1.1, 1.1), Look(colour, (250, 250, 245), "windows", 0.7))
    b.add("box", (0, 0, 2.3), (1.4, 1.4, 0.1), Look((250, 250, 245), colour, "vstripes", 0.3))


def plant(b: PartsBuilder, rng: Random) -> None:
    b.add(
        "cylinder",
        (0, 0, 0.25),
        (0.25, 0.25, 0.25),
        Look(_pick(rng, [(180, 90, 50), (230, 230, 230), (50, 50, 55)])),
    )
    b.add("ellipsoid", (0, 0, 0.9), (0.4, 0.4, 0.5), Look((50, 140, 60), (30, 100, 40), "speckle", 0.08))


def vending_machine(b: PartsBuilder, rng: Random) -> None:
    colour = _pick(rng, [(200, 30, 30), (30, 90, 180), (240, 240, 240)])
    b.add("box", (0, 0, 0.95), (0.4, 0.5, 0.95), Look(colour, (230, 230, 60), "dots", 0.12))


def statue(b: PartsBuilder, rng: Random) -> None:
    stone = _pick(rng, [(180, 175, 165), (120, 110, 100), (70, 110, 90)])
    b.add("box", (0, 0, 0.5), (0.5, 0.5, 0.5), Look((150, 150, 150), (120, 120, 120), "speckle", 0.08))
    b.add("ellipsoid", (0, 0, 1.6), (0.3, 0.3, 0.65), Look(stone))


def umbrella(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 1.1), (0.03, 0.03, 1.1), Look((220, 220, 220)))
    b.add(
        "ellipsoid", (0, 0, 2.2), (1.2, 1.2, 0.3), Look(_pick(rng, _CLOTHES), (250, 250, 250), "rings", 0.3)
    )


def crate(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 0.2), (0.3, 0.25, 0.2), Look((170, 120, 70), (130, 90, 50), "vstripes", 0.08))
    b.add(
        "ellipsoid",
        (0, 0, 0.42),
        (0.25, 0.2, 0.08),
        Look(_pick(rng, [(220, 40, 30), (250, 160, 20), (120, 180, 40)]), (60, 120, 30), "dots", 0.06),
    )


def clothes_rack(b: PartsBuilder, rng: Random) -> None:
    for y in (-0.6, 0.6):
        b.add("cylinder", (0, y, 0.8), (0.02, 0.02, 0.8), Look((180, 180, 185)))
    b.add("cylinder", (0, 0, 1.55), (0.02, 0.02, 0.62), Look((180, 180, 185)), rot=rotation_about("x", 90))
    b.add(
        "box",
        (0, 0, 1.15),
        (0.06, 0.55, 0.38),
        Look(_pick(rng, _CLOTHES), _pick(rng, _CLOTHES), "vstripes", 0.1),
    )


def display_table(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 0.45), (0.6, 0.9, 0.45), Look((240, 235, 225), (200, 190, 170), "frame", 0.05))
    b.add("box", (0, 0, 0.95), (0.4, 0.7, 0.05), Look(_pick(rng, _CLOTHES), (250, 250, 250), "checker", 0.1))


def basket(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 0.15), (0.25, 0.18, 0.15), Look((200, 30, 30), (250, 250, 250), "checker", 0.05))


def cash_register(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 0.5), (0.5, 1.0, 0.5), Look((90, 70, 60)))
    b.add("box", (0, 0, 1.1), (0.15, 0.2, 0.1), Look((30, 30, 30), (40, 200, 120), "label", 0.03))


def flower_bed(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 0.2), (0.6, 1.4, 0.2), Look((120, 110, 100)))
    b.add(
        "box",
        (0, 0, 0.45),
        (0.55, 1.35, 0.06),
        Look((60, 140, 50), _pick(rng, [(230, 40, 90), (250, 220, 40), (160, 60, 200)]), "dots", 0.12),
    )


def fountain(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 0.3), (1.6, 1.6, 0.3), Look((190, 185, 175), (120, 170, 220), "rings", 0.4))
    b.add("cylinder", (0, 0, 1.0), (0.2, 0.2, 1.0), Look((190, 185, 175)))
    b.add("ellipsoid", (0, 0, 2.0), (0.6, 0.6, 0.15), Look((120, 170, 220)))


def column(b: PartsBuilder, rng: Random) -> None:
    b.add("cylinder", (0, 0, 2.25), (0.3, 0.3, 2.25), Look((225, 220, 210), (200, 195, 185), "hbands", 0.6))


def info_board(b: PartsBuilder, rng: Random) -> None:
    b.add("box", (0, 0, 1.3), (0.06, 0.6, 0.5), Look((30, 30, 35), (80, 170, 230), "windows", 0.25))
    for y in (-0.5, 0.5):
        b.add("box", (0, y, 0.4), (0.04, 0.04, 0.4), Look((60, 60, 60)))


CATEGORIES: dict[str, Builder] = {
    "person": person,
    "traffic cone": traffic_cone,
    "sign": sign,
    "bench": bench,
    "trash bin": bin_,
    "lamp post": lamp_post,
    "tree": tree,
    "bicycle": bicycle,
    "car": car,
    "fire hydrant": fire_hydrant,
    "bollard": bollard,
    "mailbox": mailbox,
    "bus stop": bus_stop,
    "kiosk": kiosk,
    "potted plant": plant,
    "vending machine": vending_machine,
    "statue": statue,
    "umbrella": umbrella,
    "crate": crate,
    "clothes rack": clothes_rack,
    "display table": display_table,
    "shopping basket": basket,
    "cash register": cash_register,
    "mannequin": mannequin,
    "flower bed": flower_bed,
    "fountain": fountain,
    "column": column,
    "info board": info_board,
}
