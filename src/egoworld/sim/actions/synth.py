"""Synthesise EXPLORE-style action scenes: a kitchen corner with ≥ 15 objects, a seeded sequence of 11–700
atomic actions from the grammar of `egoworld.sim.actions.grammar`, the exact initial and final scene graphs,
and a rendered initial image.

`synth_action_scene(folder, episode_id, seed, config)` writes an episode folder with:

* the `Episode`: pinhole camera and its one pose (the initial image's viewpoint), the kitchen fixtures
  (with ``open_intervals`` from the open / close actions), the objects (movements from pick-ups to
  put-downs, with positions), the actions (EXPLORE-style text, one every few seconds, ``verb`` set), and
  the scene graphs: ``label="initial"`` (``time_s=0``, ``image="initial.png"``) and ``label="final"``
  (``time_s=duration_s``), optionally ``label="after_<k>"`` every ``middle_every`` actions. A graph's
  objects carry ``id``, ``category``, ``description``, ``relations``, ``attributes`` (colour, material,
  size, state) and ``key_state`` for the abnormal cases;
* ``initial.png`` (``media.images["initial"]``) and ``sim.json`` (a `KitchenSim`, so
  `egoworld.sim.kitchen.synth.load_kitchen_world` re-renders the scene at any time);
* objects that start outside the kitchen (``initial_position`` None) or leave it (a movement of kind
  ``left``: carried out, eaten, thrown away) are in the episode's objects but in no graph while away;
* graphs mark ``attributes["touched"] == "no"`` what no action named or what looks and lies as at the start
  (`SceneState.track_changes`): end-frame annotations describe what the actions changed, so
  `egoworld.benchmarks.explore.build.from_world` leaves those out of the final and middle scenes (the initial scene
  keeps everything the image shows);
* ``meta``: ``abnormal`` (``None``, ``stack_fell``, ``tap_running``, ``door_open`` or ``stove_on``),
  ``n_actions``, ``partition`` (short 11–99, medium 100–199, long ≥ 200), ``seed``, ``config``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from random import Random
from typing import Any

from egoworld.core.folders.files import atomic_open
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.folders.loader import begin_write
from egoworld.geometry.transforms import look_at
from egoworld.sim.actions.corner import EXTRA, FLOOR_SUPPORT, ROLES, UNDER_TABLE, make_action_kitchen
from egoworld.sim.actions.grammar import ActionSimulator, Step
from egoworld.sim.actions.state import OPENABLE, SceneState, Thing
from egoworld.sim.actions.vocab import COLOURS, FIXED_COLOUR, KINDS
from egoworld.sim.kitchen.catalog import build_shape
from egoworld.sim.kitchen.layout import KitchenSpec, SupportSpec
from egoworld.sim.kitchen.world import OBJECT_ID_BASE, KitchenSim, KitchenWorld, SimObject
from egoworld.sim.placement import Placements
from egoworld.sim.render.primitives import primitives_to_json
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.world_cameras import pinhole
from egoworld.world.episode import Action, Episode, EpisodeMedia, EpisodeObject, Fixture, Interval, Movement
from egoworld.world.episode_folder import save_episode
from egoworld.world.poses import PoseTrack

GENERATOR = "egoworld.sim.actions"  # a recorded name in every episode.json: kept across module moves
ABNORMAL = ("stack_fell", "tap_running", "door_open", "stove_on")
ACTIONS_PER_ARRIVAL = 25
"""one more object is brought in per this many actions (long sequences keep meeting new things)"""
AWAY_SHARE = 0.4
"""share of the categories whose objects start outside the kitchen"""
PARTITIONS = {"short": (11, 99), "medium": (100, 199), "long": (200, 700)}


@dataclass(frozen=True)
class ActionConfig:
    """Parameters of an action scene. ``n_actions`` None: drawn from ``partition`` (or a random one)."""

    n_actions: int | None = None
    partition: str | None = None
    objects: tuple[int, int] = (15, 22)
    abnormal_rate: float = 0.2
    abnormal: str | None = None
    """force this abnormal kind (or 'none')"""
    middle_every: int = 0
    image_width: int = 640

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def partition_of(n: int) -> str:
    return "short" if n < 100 else "medium" if n < 200 else "long"


class GeoPlacer:
    """Where symbolic objects rest in the kitchen (free spots on the role fixtures' supports)."""

    def __init__(
        self,
        spec: KitchenSpec,
        state: SceneState,
        heights: dict[str, float],
        radius: dict[str, float],
        rng: Random,
    ) -> None:
        self.state = state
        self.rng = rng
        self.half = {k: v / 2 for k, v in heights.items()}
        self.pl = Placements(radius, heights)
        self.supports: dict[str, list[SupportSpec]] = {}
        for s in spec.supports:
            self.supports.setdefault(s.id, [s])
        for role, fid in ROLES.items():
            fids = (fid, *EXTRA.get(role, ()))
            self.supports[role] = [
                s for s in spec.supports if s.fixture in fids and s.id not in (FLOOR_SUPPORT, UNDER_TABLE)
            ]
        self.supports["floor"] = [s for s in spec.supports if s.id == FLOOR_SUPPORT]
        self.supports["under:table"] = [s for s in spec.supports if s.id == UNDER_TABLE]
        self.support_of: dict[str, SupportSpec] = {}

    def place(self, obj: str, rel: str, target: str) -> tuple[float, float, float] | None:
        t = self.state.things.get(target)
        if t is not None and not t.fixture:
            base = t.pos
            if base is None:
                return None
            return (base[0], base[1], round(base[2] + self.half[target] + self.half[obj], 5))
        key = "under:table" if rel == "under" else target
        options = list(self.supports.get(key, []))
        self.rng.shuffle(options)
        for s in options:
            spot = self.pl.free_spot(s, obj, self.rng)
            if spot is not None:
                self.pl.where[obj] = (s.id, spot[0], spot[1])
                self.support_of[obj] = s
                return (spot[0], spot[1], round(s.z + self.half[obj], 5))
        return None

    def remove(self, obj: str) -> None:
        self.pl.where.pop(obj, None)
        self.support_of.pop(obj, None)

    def fixture_of(self, obj: str) -> str | None:
        """The fixture an object rests in / on (following stacks down); None on the floor."""
        t = self.state[obj]
        seen = 0
        while t.target is not None and not self.state[t.target].fixture and seen < 20:
            t = self.state[t.target]
            seen += 1
        if t.target is None or t.target == "floor":
            return None
        support = self.support_of.get(t.id)
        return support.fixture if support is not None and support.fixture != "floor" else ROLES.get(t.target)


def _scene_things(spec: KitchenSpec, rng: Random, n_objects: int, abnormal: str | None) -> list[Thing]:
    def colour_name(rgb: tuple[int, int, int]) -> str:
        return min(COLOURS, key=lambda c: sum((a - b) ** 2 for a, b in zip(COLOURS[c], rgb, strict=True)))

    fixtures = []
    for role, fid in ROLES.items():
        fx = spec.fixture(fid)
        colour = colour_name(fx.parts[0].look.color) if fx.parts else None
        state: dict[str, str] = {}
        if role in OPENABLE:
            state["door"] = "closed"
        if role in ("stove", "microwave"):
            state["power"] = "off"
        if role in ("table", "counter", "stove"):
            state["clean"] = rng.choice(["clean", "dirty"])
        fixtures.append(Thing(role, role, fixture=True, colour=colour, state=state))
    fixtures.append(
        Thing("tap", "tap", fixture=True, colour="silver", material="metal", state={"water": "off"})
    )
    fixtures.append(Thing("floor", "floor", fixture=True))
    cats = [
        "knife",
        "cutting board",
        "sponge",
        "towel",
        "kettle",
        "tomato",
        "mug",
        "plate",
        "bowl",
        "egg box",
    ]
    cats.append(rng.choice(["apple", "onion", "potato", "carrot", "lemon", "banana", "orange"]))
    if abnormal == "stack_fell":
        cats += ["plate", "plate", "plate"]
    pool = sorted(KINDS)
    while len(cats) < n_objects:
        c = pool[rng.randrange(len(pool))]
        same = cats.count(c)
        if same < (1 if c in FIXED_COLOUR else len(KINDS[c].colours)):
            cats.append(c)
    things = []
    used: dict[str, list[str]] = {}
    for c in cats:
        kind = KINDS[c]
        free = [col for col in kind.colours if col not in used.get(c, [])]
        colour = free[rng.randrange(len(free))]
        used.setdefault(c, []).append(colour)
        state: dict[str, str] = {}
        if kind.washable:
            state["clean"] = "clean" if rng.random() < 0.6 else "dirty"
        if kind.cuttable:
            state["shape"] = "whole"
        if kind.liquid:
            if c == "bottle":
                state["fill"] = f"full of {rng.choice(['water', 'juice'])}"
            elif c == "milk carton":
                state["fill"] = "full of milk"
            elif c == "kettle":
                state["fill"] = rng.choice(["empty", "full of water"])
            else:
                state["fill"] = "empty"
        if c == "egg box":
            state["fill"] = "full of eggs"
        if c == "towel":
            state["folded"] = rng.choice(["folded", "unfolded"])
        if c in ("kettle",):
            state["power"] = "off"
        k = len(used[c])
        things.append(
            Thing(
                f"{c.replace(' ', '_')}_{k}",
                c,
                colour=colour,
                material=kind.materials[rng.randrange(len(kind.materials))],
                size=kind.sizes[rng.randrange(len(kind.sizes))],
                state=state,
            )
        )
    return fixtures + things


def _initial_placement(
    sim: ActionSimulator,
    placer: GeoPlacer,
    rng: Random,
    keep_open: set[str],
    away_extra: int = 0,
    away_share: float = AWAY_SHARE,
) -> None:
    # about half the objects start stored away (fridge, cupboards, drawers) and come out during the actions,
    # as in real kitchen recordings, so the final scene shows things the initial image does not
    weights = {
        "counter": 3.0,
        "table": 3.0,
        "shelf": 1.0,
        "sink": 1.0,
        "fridge": 4.0,
        "cupboard": 4.0,
        "drawer": 4.0,
    }
    away = {c for c in sorted({t.category for t in sim.s.objects()}) if rng.random() < away_share}
    late = {t.id for t in sim.s.objects()[len(sim.s.objects()) - away_extra :]} if away_extra else set()
    for t in sim.s.objects():
        if t.id not in keep_open and (t.category in away or t.id in late):
            t.rel, t.target, t.pos = "away", None, None  # brought into the kitchen during the actions
            continue
        options = list(KINDS[t.category].storage)
        if t.id in keep_open:
            options = [o for o in options if o in ("counter", "table", "shelf")]
        order = sorted(options, key=lambda o: -rng.random() * weights.get(o, 0.7))
        order += [
            o for o in ("counter", "table", "shelf", "floor") if o not in order
        ]  # when all else is full
        for target in order:
            rel = "in" if target in ("sink", "fridge", "cupboard", "drawer", "microwave", "oven") else "on"
            pos = placer.place(t.id, rel, target)
            if pos is not None:
                t.rel, t.target, t.pos = rel, target, pos
                break
        else:
            raise ValueError(f"no room for {t.id}")


class _Steps(list):
    """The steps so far; calls ``hook(k)`` after each of them."""

    def __init__(self, hook: Callable[[int], None]) -> None:
        super().__init__()
        self.hook = hook

    def append(self, step: Step) -> None:  # type: ignore[override]
        super().append(step)
        self.hook(len(self))

    def __iadd__(self, steps: list[Step]) -> _Steps:  # type: ignore[override]
        for st in steps:
            self.append(st)
        return self


def _run(
    sim: ActionSimulator, rng: Random, n: int, abnormal: str | None, hook: Callable[[int], None]
) -> list[Step]:
    steps = _Steps(hook)
    if abnormal is None:
        while len(steps) + len(sim.tidy_work()) < n:
            allow = len(steps) + len(sim.tidy_work()) + 1 < n
            steps.append(sim.random_step(allow_tidy_work=allow))
        for verb, tid in sim.tidy_work():
            steps.append(sim.do(verb, tid))
        return list(steps)
    script_max = 8 if abnormal == "stack_fell" else 1
    after = min(rng.randint(0, 4), max(0, n - script_max - 1))
    reserve = script_max + after
    while len(steps) + len(sim.tidy_work()) + reserve < n:
        allow = len(steps) + len(sim.tidy_work()) + 1 + reserve < n
        steps.append(sim.random_step(allow_tidy_work=allow))
    for verb, tid in sim.tidy_work():
        steps.append(sim.do(verb, tid))
    steps += _abnormal_script(sim, abnormal)
    while len(steps) < n:
        steps.append(sim.random_step(allow_tidy_work=False))
    return list(steps)


def _abnormal_script(sim: ActionSimulator, kind: str) -> list[Step]:
    s = sim.s
    if kind == "tap_running":
        out = [sim.do("turn_on", "tap")] if s["tap"].state["water"] == "off" else []
        sim.frozen.add(("turn_off", "tap"))
        s["tap"].key_state = "the tap is left running"
        return out
    if kind == "stove_on":
        out = [sim.do("turn_on", "stove")] if s["stove"].state["power"] == "off" else []
        sim.frozen.add(("turn_off", "stove"))
        s["stove"].key_state = "the stove is left on"
        return out
    if kind == "door_open":
        fid = "fridge"
        out = [sim.do("open", fid)] if s.is_closed(fid) else []
        sim.frozen.add(("close", fid))
        s[fid].key_state = f"the {fid} door is left open"
        return out
    # stack_fell: put down what is held, then stack the four plates until the stack topples
    out = []
    for oid in s.held():
        for target in ("counter", "table", "shelf", "floor"):
            step = sim.put(oid, "on", target)
            if step is not None:
                s.step += 1
                out.append(step)
                break
    plates = [t.id for t in s.objects() if ("pick", t.id) in sim.frozen]
    base = plates[0]
    for p in plates[1:]:
        out.append(sim.do("pick", p))
        out.append(sim.do("put", p, "on", base))
        base = p
    fallen = []
    for p in plates:
        t = s[p]
        before = (t.pos, sim.placer.fixture_of(p))
        sim.placer.remove(p)
        pos = sim.placer.place(p, "on", "floor")
        t.rel, t.target, t.pos = "on", "floor", pos
        t.state["fallen"] = "fallen"
        broken = t.material in ("ceramic", "glass")
        if broken:
            t.state["condition"] = "broken"
        t.key_state = "fell onto the floor when the stack toppled" + (" and broke" if broken else "")
        fallen.append((p, before, (pos, None)))
    out[-1].fell = tuple(fallen)
    return out


@dataclass
class Scene:
    """A freshly laid-out action scene: its symbolic state, simulator, placer and drawable objects."""

    state: SceneState
    sim: ActionSimulator
    placer: GeoPlacer
    objects: list[SimObject]
    stack: list[str]
    """the plates reserved for a toppling stack (abnormal ``stack_fell``)"""


def new_scene(
    spec: KitchenSpec,
    seed: int,
    episode_id: str,
    rng: Random,
    n_objects: int,
    abnormal: str | None,
    away_extra: int = 0,
    away_share: float = AWAY_SHARE,
) -> Scene:
    """Objects with attributes and states, placed in the kitchen (see `synth_action_scene`); ``away_extra``
    more objects start outside the kitchen (brought in during long sequences)."""
    things = _scene_things(spec, rng, n_objects + away_extra, abnormal)
    state = SceneState(things)
    sim_objects: list[SimObject] = []
    for j, t in enumerate(state.objects()):
        color = None if t.category in FIXED_COLOUR else COLOURS[t.colour or "white"]
        shape, _ = build_shape(t.category, seeded_rng(seed, episode_id, "object", t.id), color)
        sim_objects.append(
            SimObject(
                id=t.id,
                category=t.category,
                name=state.name(t.id).removeprefix("the "),
                inst=OBJECT_ID_BASE + j,
                yaw_deg=round(rng.uniform(0, 360), 2),
                half_height=round(shape.half_height, 5),
                radius=round(shape.radius, 5),
                parts=primitives_to_json(shape.parts),
            )
        )
    placer = GeoPlacer(
        spec,
        state,
        {o.id: 2 * o.half_height for o in sim_objects},
        {o.id: o.radius for o in sim_objects},
        rng,
    )
    sim = ActionSimulator(state, rng, placer)
    stack = [t.id for t in state.objects() if t.category == "plate"][:4] if abnormal == "stack_fell" else []
    for p in stack:
        sim.frozen |= {("pick", p), ("target", p)}
    _initial_placement(sim, placer, rng, set(stack), away_extra, away_share)
    state.shown = {t.id for t in state.present() if state.container_chain_open(t)}
    state.track_changes()
    return Scene(state, sim, placer, sim_objects, stack)


def synth_action_scene(folder: str | Path, episode_id: str, seed: int, cfg: ActionConfig) -> Path:
    """Build, simulate, render and save one action scene (see the module docstring)."""
    folder = begin_write(folder, "world synth actions")
    rng = seeded_rng(seed, episode_id, "actions")
    spec = make_action_kitchen(seeded_rng(seed, episode_id, "layout"))
    if cfg.abnormal is not None:
        abnormal = None if cfg.abnormal == "none" else cfg.abnormal
    else:
        abnormal = ABNORMAL[rng.randrange(len(ABNORMAL))] if rng.random() < cfg.abnormal_rate else None
    if abnormal is not None and abnormal not in ABNORMAL:
        raise ValueError(f"unknown abnormal case {abnormal!r}; choose one of {', '.join(ABNORMAL)}")
    if cfg.n_actions is not None:
        n = cfg.n_actions
    else:
        part = cfg.partition or rng.choices(list(PARTITIONS), [0.52, 0.37, 0.11])[0]
        lo, hi = PARTITIONS[part]
        n = rng.randint(lo, hi)
    if not 11 <= n <= 700:
        raise ValueError(f"an action scene has 11 to 700 actions, got {n}")
    scene = new_scene(
        spec, seed, episode_id, rng, rng.randint(*cfg.objects), abnormal, n // ACTIONS_PER_ARRIVAL
    )
    state, sim, placer, sim_objects = scene.state, scene.sim, scene.placer, scene.objects
    initial_graph = state.scene_graph("initial", 0.0, "initial.png")
    initial = {t.id: (t.pos, placer.fixture_of(t.id)) for t in state.objects()}
    # timing: every action lasts 1.5–4 s
    times = []
    t = 0.0
    for _ in range(n):
        d = round(rng.uniform(1.5, 4.0), 2)
        times.append((round(t, 4), round(t + d, 4)))
        t += d
    duration = round(t + 1.0, 4)
    middle = []

    def hook(k: int) -> None:
        if cfg.middle_every > 0 and k < n and k % cfg.middle_every == 0:
            middle.append(state.scene_graph(f"after_{k}", times[k - 1][1]))

    steps = _run(sim, rng, n, abnormal, hook)
    movements, intervals = _timeline(steps, times, duration)
    graphs = [initial_graph, *middle, state.scene_graph("final", duration)]
    camera = pinhole(cfg.image_width, cfg.image_width * 3 // 4 // 2 * 2, 90.0)
    table = spec.fixture(ROLES["table"])
    w, d, _ = spec.room_hi
    eye_y = max(0.3, table.center[1] - table.size[1] / 2 - 0.55)
    pose = look_at((table.center[0], eye_y, 1.7), (table.center[0], d - 0.45, 0.7))
    fixtures = tuple(
        Fixture(
            id=f.id,
            label=f.label,
            type=f.type,
            box=f.box(),
            openable=f.openable,
            open_intervals=tuple(Interval(start_s=a, end_s=b) for a, b in intervals.get(f.id, [])),
        )
        for f in spec.fixtures
    )
    objects = tuple(
        EpisodeObject(
            id=o.id,
            category=o.category,
            name=o.name,
            initial_position=initial[o.id][0],
            initial_fixture=initial[o.id][1],
            movements=tuple(movements.get(o.id, [])),
            meta={"inst": o.inst},
        )
        for o in sim_objects
    )
    actions = tuple(
        Action(start_s=a, end_s=b, text=s.text, verb=s.verb, meta={"index": i})
        for i, (s, (a, b)) in enumerate(zip(steps, times, strict=True))
    )
    sim_doc = KitchenSim(spec=spec, objects=tuple(sim_objects))
    episode = Episode(
        id=episode_id,
        duration_s=duration,
        fps=1.0,
        camera=camera,
        poses=PoseTrack([0.0], [pose]),
        fixtures=fixtures,
        objects=objects,
        actions=actions,
        scene_graphs=tuple(graphs),
        media=EpisodeMedia(images={"initial": "initial.png"}, extra={"sim": "sim.json"}),
        source={"loader": GENERATOR, "kind": "actions"},
        meta={
            "generator": GENERATOR,
            "seed": seed,
            "config": cfg.to_json(),
            "abnormal": abnormal,
            "n_actions": n,
            "partition": partition_of(n),
        },
    )
    world = KitchenWorld(sim_doc, episode)
    frame = world.render(Renderer(camera), 0.0)
    from PIL import Image

    with atomic_open(folder / "initial.png", "wb") as fh:
        Image.fromarray(frame.rgb).save(fh, format="PNG", compress_level=6)
    from egoworld.core.folders.files import write_json

    write_json(folder / "sim.json", sim_doc.model_dump(mode="json"))
    save_episode(episode, folder)
    return folder


def _timeline(
    steps: list[Step], times: list[tuple[float, float]], duration: float
) -> tuple[dict[str, list[Movement]], dict[str, list[tuple[float, float]]]]:
    """Movements (pick-up → put-down, and falls) and fixture open intervals from the steps."""
    movements: dict[str, list[Movement]] = {}
    open_since: dict[str, float] = {}
    intervals: dict[str, list[tuple[float, float]]] = {}
    picked: dict[str, tuple[float, Any]] = {}

    def add(obj: str, a: float, b: float, start: Any, end: Any, kind: str) -> None:
        lst = movements.setdefault(obj, [])
        lst.append(
            Movement(
                id=f"{obj}/m{len(lst)}",
                start_s=a,
                end_s=b,
                start_position=start[0],
                end_position=end[0],
                start_fixture=start[1],
                end_fixture=end[1],
                meta={"kind": kind},
            )
        )

    for step, (a, b) in zip(steps, times, strict=True):
        if step.picked is not None:
            picked[step.picked] = (a, step.start)
        if step.placed is not None:
            t0, start = picked.pop(step.placed)
            add(
                step.placed,
                t0,
                b,
                start,
                step.end,
                "carried" if step.end and step.end[0] is not None else "left",
            )
        for obj, start, end in step.fell:
            add(obj, b, round(b + 0.5, 4), start, end, "fell")
        if step.verb == "open" and step.fixture is not None:
            open_since[ROLES[step.fixture]] = a
        if step.verb == "close" and step.fixture is not None:
            fid = ROLES[step.fixture]
            intervals.setdefault(fid, []).append((open_since.pop(fid), b))
    for obj, (t0, start) in picked.items():  # still in hand when the video ends
        add(obj, t0, duration, start, (None, None), "held at the end")
    for fid, a in open_since.items():
        intervals.setdefault(fid, []).append((a, duration))
    for lst in movements.values():
        lst.sort(key=lambda m: (m.start_s, m.end_s))
    return movements, intervals
