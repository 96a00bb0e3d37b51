"""Symbolic scene state of an action scene, and its exact annotation as a `SceneGraph`.

Every thing (movable object or fixture) has attributes (colour, material, size), a state (clean/dirty,
whole/sliced/chopped, empty/full of …, open/closed, on/off, wet, folded, broken) and — for objects — one
location ``(relation, target)`` with relation ``on``, ``in``, ``under``, ``held`` (by C), ``away`` (outside the
kitchen: not yet brought in, or taken out) or ``gone`` (eaten or thrown away). Relations in
the graph read like EXPLORE annotations: "on the counter", "in the sink", "inside the closed fridge",
"under the table", "next to the red mug", "held by C".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from egoworld.world.episode import SceneGraph, SceneObject

ABSENT = ("away", "gone")
"""relations of objects that are not in the scene"""
OPENABLE = ("fridge", "cupboard", "drawer", "microwave", "oven")
SURFACES = ("counter", "table", "shelf", "stove")
CONTAINERS = ("sink", "fridge", "cupboard", "drawer", "microwave", "oven")
FIXTURE_RELATIONS = {
    "counter": ("next to the sink",),
    "sink": ("next to the counter", "next to the stove"),
    "tap": ("on the sink",),
    "stove": ("next to the sink", "above the oven"),
    "oven": ("under the stove",),
    "fridge": ("next to the cupboard",),
    "cupboard": ("under the counter",),
    "drawer": ("under the counter",),
    "microwave": ("on the counter",),
    "table": ("in front of the counter",),
    "shelf": ("next to the table",),
}


@dataclass
class Thing:
    """One object or fixture of the symbolic scene."""

    id: str
    category: str
    fixture: bool = False
    colour: str | None = None
    material: str | None = None
    size: str | None = None
    state: dict[str, str] = field(default_factory=dict)
    rel: str | None = None
    target: str | None = None
    since: int = 0
    pos: tuple[float, float, float] | None = None
    key_state: str | None = None


class SceneState:
    """All things of a scene, by id (fixtures' ids are their categories: "sink", "fridge" …)."""

    def __init__(self, things: list[Thing]) -> None:
        self.things = {t.id: t for t in things}
        self.step = 0
        self.shown: set[str] | None = None
        """objects the image or the action text has shown (None: all); names count only these"""
        self.touched: set[str] | None = None
        """things an action has named (None: not tracked); see `track_changes`"""
        self.baseline: dict[str, tuple[str, str]] = {}

    def track_changes(self) -> None:
        """From now on graphs mark ``touched: no`` what no action named or what still looks and lies as now
        (description and first relation): an end-frame annotation describes what the actions changed."""
        self.touched = set()
        self.baseline = {
            t.id: (self.description(t.id), (self.relations(t.id) or ("",))[0])
            for t in self.things.values()
            if t.category != "floor" and t.rel not in ABSENT
        }

    def changed(self, tid: str) -> bool:
        """Whether an action named ``tid`` and it differs from when tracking began (new things differ)."""
        if self.touched is None:
            return True
        now = (self.description(tid), (self.relations(tid) or ("",))[0])
        return tid in self.touched and self.baseline.get(tid) != now

    def __getitem__(self, tid: str) -> Thing:
        return self.things[tid]

    def objects(self) -> list[Thing]:
        return [t for t in self.things.values() if not t.fixture]

    def present(self) -> list[Thing]:
        """Objects in the kitchen (not away, not gone)."""
        return [t for t in self.objects() if t.rel not in ABSENT]

    def held(self) -> list[str]:
        return [t.id for t in self.objects() if t.rel == "held"]

    def on_top_of(self, tid: str) -> str | None:
        for t in self.present():
            if t.rel == "on" and t.target == tid:
                return t.id
        return None

    def is_closed(self, tid: str) -> bool:
        t = self.things.get(tid)
        return t is not None and t.state.get("door") == "closed"

    def container_chain_open(self, t: Thing) -> bool:
        """Whether every container around ``t`` is open (reachable by hand)."""
        seen = 0
        while t.rel in ("on", "in", "under") and t.target is not None and seen < 20:
            if t.rel == "in" and self.is_closed(t.target):
                return False
            if t.target not in self.things or self.things[t.target].fixture:
                return True
            t = self.things[t.target]
            seen += 1
        return True

    def accessible(self, tid: str) -> bool:
        t = self.things[tid]
        if t.rel == "held":
            return True
        if "fallen" in t.state or t.rel in ABSENT:
            return False
        return self.on_top_of(tid) is None and self.container_chain_open(t)

    def name(self, tid: str) -> str:
        """How actions refer to a thing: "the sink", "the mug", or "the red mug" when several mugs exist."""
        t = self.things[tid]
        if t.fixture:
            return f"the {t.category}"
        same = [
            o
            for o in self.objects()
            if o.category == t.category and (self.shown is None or o.id in self.shown or o.id == tid)
        ]
        return f"the {t.category}" if len(same) == 1 else f"the {t.colour} {t.category}"

    def stack_height(self, tid: str) -> int:
        """Objects in the stack that ``tid`` belongs to, counted from its base upwards to the top."""
        base = tid
        while (
            self.things[base].rel == "on"
            and self.things[base].target in self.things
            and not self.things[self.things[base].target].fixture
        ):
            base = self.things[base].target  # type: ignore[assignment]
        n, cur = 1, base
        while (up := self.on_top_of(cur)) is not None:
            n, cur = n + 1, up
        return n

    # ---- annotation ------------------------------------------------------------------------------
    def relations(self, tid: str) -> tuple[str, ...]:
        t = self.things[tid]
        if t.fixture:
            return FIXTURE_RELATIONS.get(t.category, ())
        if t.rel == "held":
            return ("held by C",)
        assert t.target is not None
        target = self.name(t.target)
        if t.rel == "in" and self.is_closed(t.target):
            out = [f"inside the closed {self.things[t.target].category}"]
        else:
            out = [f"{t.rel} {target}"]
        siblings = sorted(
            (o for o in self.present() if o.rel == t.rel and o.target == t.target and o.id != tid),
            key=self._order,
        )
        before = [o for o in siblings if self._order(o) < self._order(t)]
        neighbour = before[-1] if before else (siblings[0] if siblings else None)
        if neighbour is not None:
            out.append(f"next to {self.name(neighbour.id)}")
        return tuple(out)

    @staticmethod
    def _order(o: Thing) -> tuple[int, str, str]:
        """Sibling order: when put there, then what it is (a reader of the scene can tell; ids are hidden)."""
        return (o.since, o.category, o.colour or "")

    def description(self, tid: str) -> str:
        t = self.things[tid]
        words = [w for w in (t.size, t.colour, t.material) if w]
        head = " ".join([*words, t.category])
        article = "an" if head[0] in "aeiou" else "a"
        states = [v for k, v in sorted(t.state.items()) if k != "fallen" and v]
        return f"{article} {head}" + (", " + ", ".join(states) if states else "")

    def scene_graph(self, label: str, time_s: float, image: str | None = None) -> SceneGraph:
        objs = []
        for t in self.things.values():
            if t.category == "floor" or t.rel in ABSENT:
                continue
            attrs = {k: v for k, v in (("colour", t.colour), ("material", t.material), ("size", t.size)) if v}
            if t.state:
                attrs["state"] = ", ".join(v for _, v in sorted(t.state.items()) if v)
            if not t.fixture and not self.container_chain_open(t):
                attrs["visible"] = "no"  # inside a closed container: ground truth, but not in the picture
            if not self.changed(t.id):
                attrs["touched"] = "no"  # unchanged by the actions: an end-frame annotation leaves it out
            objs.append(
                SceneObject(
                    id=t.id,
                    category=t.category,
                    description=self.description(t.id),
                    relations=self.relations(t.id),
                    key_state=t.key_state,
                    attributes=attrs,
                )
            )
        return SceneGraph(label=label, time_s=round(time_s, 6), image=image, objects=tuple(objs))
