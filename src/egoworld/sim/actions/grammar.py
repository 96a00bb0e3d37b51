"""The symbolic action simulator: a grammar of EXPLORE-style atomic actions with preconditions and effects.

Verbs (text templates in the EXPLORE style, C = the camera wearer): pick up ("C picks up the knife from
the counter"), put ("C puts the cup in the sink", "C places the plate on the table", "C stacks the plate
on the blue plate", "C puts the basket under the table"), open / close ("C opens the fridge"), turn on /
off ("C turns on the tap"), cut ("C cuts the tomato with the knife"), pour ("C pours water from the kettle
into the mug"), fill ("C fills the kettle with water"), wash ("C washes the plate in the sink"), wipe
("C wipes the table with the sponge"), dry ("C dries the bowl with the towel"), fold ("C folds the
towel"), bring in / carry out ("C brings the … into the kitchen", "C carries the red mug out of the
kitchen"), eat / throw away ("C eats the banana", "C throws the chopped onion into the bin") and crack
("C cracks eggs from the egg box into the bowl"; a stove switched off cooks what is on it).
`ActionSimulator.random_step` picks a valid action (seeded); every step updates the `SceneState`, whose final
graph is therefore the exact annotation. An object the text names before the scene has shown it (brought
in, taken from a closed cupboard) is named in full the first time ("the small red ceramic mug (clean,
empty)"), so the final scene follows from the initial one and the action list (`egoworld.sim.actions.replay`). Where an object goes in space comes
from a `Placer` (the scene's geometry).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Protocol

from egoworld.sim.actions.state import ABSENT, CONTAINERS, OPENABLE, SceneState, Thing
from egoworld.sim.actions.vocab import KINDS

UNDER_OK = ("tray", "cereal box", "egg box")
EATABLE = ("apple", "banana", "orange", "tomato", "carrot")
CRACK_INTO = ("bowl", "frying pan", "pot")
MAX_HELD = 2
MAX_STACK = 3
HEAT_SWITCHES = ("stove", "microwave")


class Placer(Protocol):
    def place(self, obj: str, rel: str, target: str) -> tuple[float, float, float] | None:
        """Where ``obj`` would rest (``rel`` ``target``), reserving it; None when there is no room."""
        ...

    def remove(self, obj: str) -> None: ...

    def fixture_of(self, obj: str) -> str | None:
        """The fixture id an object rests in / on (None on the floor)."""
        ...


Where = tuple[tuple[float, float, float] | None, str | None]


@dataclass
class Step:
    """One atomic action and what it moved."""

    text: str
    verb: str
    picked: str | None = None
    placed: str | None = None
    start: Where | None = None
    """where the picked object was (position, fixture id)"""
    end: Where | None = None
    """where the placed object now rests"""
    fell: tuple[tuple[str, Where, Where], ...] = ()
    """objects that fell as a consequence: (id, from, to)"""
    fixture: str | None = None


class ActionSimulator:
    """Applies actions to a `SceneState` (see the module docstring)."""

    def __init__(self, state: SceneState, rng: Random, placer: Placer) -> None:
        self.s = state
        self.rng = rng
        self.placer = placer
        self.frozen: set[tuple[str, str]] = set()
        """(verb, thing) pairs that must not happen any more (abnormal endings)"""
        self.stack_limit = MAX_STACK
        self.weights = {"bring_in": 2.2, "carry_out": 0.35, "throw_away": 0.6}

    def ref(self, tid: str, *, acted_on: bool = False) -> str:
        """How the action text names a thing: its short name once shown, its full look the first time.
        An object named is touched; a fixture only when ``acted_on`` (not when it is a place to put things)."""
        t = self.s[tid]
        if self.s.touched is not None and (acted_on or not t.fixture):
            self.s.touched.add(tid)
        if t.fixture or self.s.shown is None or tid in self.s.shown:
            return self.s.name(tid)
        self.s.shown.add(tid)
        head, _, states = self.s.description(tid).partition(", ")
        return "the " + head.split(" ", 1)[1] + (f" ({states})" if states else "")

    # ---- helpers -----------------------------------------------------------------------------------
    def _objs(self, pred: Callable[[Thing], bool]) -> list[Thing]:
        return [t for t in self.s.objects() if pred(t)]

    def _held(self, pred: Callable[[Thing], bool] = lambda t: True) -> list[Thing]:
        return [self.s[i] for i in self.s.held() if pred(self.s[i])]

    def _tap_on(self) -> bool:
        return self.s["tap"].state.get("water") == "running"

    def _ok(self, verb: str, tid: str) -> bool:
        return (verb, tid) not in self.frozen

    def _known(self, t: Thing) -> bool:
        """Whether the scene has shown ``t`` (only picking up or bringing in shows a new object)."""
        return self.s.shown is None or t.id in self.s.shown

    # ---- verbs: candidates -------------------------------------------------------------------------
    def _c_pick(self) -> list[tuple]:
        if len(self.s.held()) >= MAX_HELD:
            return []
        return [
            (t.id,)
            for t in self._objs(
                lambda t: (
                    t.rel not in ("held", *ABSENT) and self.s.accessible(t.id) and self._ok("pick", t.id)
                )
            )
        ]

    def _c_bring_in(self) -> list[tuple]:
        if len(self.s.held()) >= MAX_HELD:
            return []
        return [(t.id,) for t in self._objs(lambda t: t.rel == "away" and self._ok("pick", t.id))]

    def _c_carry_out(self) -> list[tuple]:
        return [(t.id,) for t in self._held(lambda t: self._ok("target", t.id))]

    def _c_throw_away(self) -> list[tuple]:
        return [
            (t.id,)
            for t in self._held(
                lambda t: (
                    KINDS[t.category].cuttable and (t.category in EATABLE or t.state.get("shape") != "whole")
                )
            )
        ]

    def _c_crack(self) -> list[tuple]:
        boxes = self._held(lambda t: t.category == "egg box" and t.state.get("fill", "empty") != "empty")
        dsts = self._objs(
            lambda t: (
                t.category in CRACK_INTO
                and t.state.get("fill", "empty") == "empty"
                and (t.rel == "held" or self.s.accessible(t.id) and self._known(t))
            )
        )
        return [(b.id, d.id) for b in boxes for d in dsts]

    def _put_targets(self, o: Thing) -> list[tuple[str, str]]:
        kind = KINDS[o.category]
        out: list[tuple[str, str]] = []
        for f in kind.storage:
            if f in CONTAINERS:
                if not self.s.is_closed(f):
                    out.append(("in", f))
            elif f != "stove" or kind.heats:
                out.append(("on", f))
        if o.category in UNDER_OK:
            out.append(("under", "table"))
        for t in self.s.present():
            if (
                t.id == o.id
                or t.rel == "held"
                or not self.s.accessible(t.id)
                or not self._ok("target", t.id)
                or not self._known(t)
            ):
                continue
            if (
                kind.stackable
                and t.category == o.category
                and self.s.stack_height(t.id) < self.stack_limit
                or kind.cuttable
                and t.category in ("cutting board", "plate", "tray")
            ):
                out.append(("on", t.id))
            elif kind.cuttable and t.category in ("bowl", "pot") and t.state.get("fill", "empty") == "empty":
                out.append(("in", t.id))
        return out

    def _c_put(self) -> list[tuple]:
        return [(o.id, rel, tgt) for o in self._held() for rel, tgt in self._put_targets(o)]

    def _c_open(self) -> list[tuple]:
        return [(f,) for f in OPENABLE if self.s.is_closed(f) and self._ok("open", f)]

    def _c_close(self) -> list[tuple]:
        return [(f,) for f in OPENABLE if not self.s.is_closed(f) and self._ok("close", f)]

    def _switches(self) -> list[Thing]:
        things = [self.s["tap"], self.s["stove"], self.s["microwave"]]
        things += self._objs(
            lambda t: (
                t.category == "kettle"
                and t.rel not in ("held", *ABSENT)
                and t.state.get("fill", "empty") != "empty"
                and self._known(t)
            )
        )
        return things

    def _c_turn_on(self) -> list[tuple]:
        out = []
        for t in self._switches():
            key = "water" if t.id == "tap" else "power"
            if t.state.get(key) in ("off", None) and self._ok("turn_on", t.id):
                if t.id == "microwave" and not self.s.is_closed("microwave"):
                    continue
                out.append((t.id,))
        return out

    def _c_turn_off(self) -> list[tuple]:
        out = []
        for t in self._switches():
            key = "water" if t.id == "tap" else "power"
            if t.state.get(key) in ("on", "running") and self._ok("turn_off", t.id):
                out.append((t.id,))
        return out

    def _c_cut(self) -> list[tuple]:
        knives = self._held(lambda t: KINDS[t.category].cutter)
        if not knives:
            return []
        foods = self._objs(
            lambda t: (
                KINDS[t.category].cuttable
                and t.state.get("shape") in ("whole", "sliced")
                and t.rel == "on"
                and t.target in self.s.things
                and self.s[t.target].category in ("cutting board", "plate", "counter", "table")
                and self.s.accessible(t.id)
                and self._known(t)
            )
        )
        return [(f.id, knives[0].id) for f in foods]

    def _c_pour(self) -> list[tuple]:
        srcs = self._held(lambda t: KINDS[t.category].liquid and t.state.get("fill", "empty") != "empty")
        dsts = self._objs(
            lambda t: (
                KINDS[t.category].liquid
                and t.category not in ("bottle", "milk carton")
                and t.state.get("fill", "empty") == "empty"
                and (t.rel == "held" or self.s.accessible(t.id) and self._known(t))
            )
        )
        return [(a.id, b.id) for a in srcs for b in dsts if a.id != b.id]

    def _c_fill(self) -> list[tuple]:
        if not self._tap_on():
            return []
        return [
            (t.id,)
            for t in self._held(
                lambda t: (
                    KINDS[t.category].liquid
                    and t.category not in ("bottle", "milk carton")
                    and t.state.get("fill") != "full of water"
                )
            )
        ]

    def _c_wash(self) -> list[tuple]:
        if not self._tap_on():
            return []
        return [
            (t.id,)
            for t in self._held(
                lambda t: (
                    KINDS[t.category].washable
                    and (t.state.get("clean") == "dirty" or self.rng.random() < 0.3)
                )
            )
        ]

    def _c_wipe(self) -> list[tuple]:
        wipers = self._held(lambda t: KINDS[t.category].wiper)
        return [(f, w.id) for w in wipers for f in ("table", "counter", "stove")]

    def _c_dry(self) -> list[tuple]:
        towels = self._held(lambda t: t.category == "towel")
        wet = self._held(lambda t: t.state.get("wet") == "wet" and t.category != "towel")
        return [(w.id, towels[0].id) for w in wet] if towels else []

    def _c_fold(self) -> list[tuple]:
        return [
            (t.id,)
            for t in self._objs(
                lambda t: (
                    t.category == "towel"
                    and t.state.get("folded") == "unfolded"
                    and self.s.accessible(t.id)
                    and self._known(t)
                )
            )
        ]

    # ---- verbs: effects ----------------------------------------------------------------------------
    def pick(self, oid: str) -> Step:
        o = self.s[oid]
        src = o.target
        assert src is not None
        prep = {"in": "from", "on": "from", "under": "from under"}[o.rel or "on"]
        verb = self.rng.choice(["picks up", "picks up", "takes", "grabs"])
        text = f"C {verb} {self.ref(oid)} {prep} {self.ref(src)}"
        start = (o.pos, self.placer.fixture_of(oid))
        o.rel, o.target, o.pos, o.since = "held", None, None, self.s.step
        self.placer.remove(oid)
        return Step(text, "pick up", picked=oid, start=start)

    def put(self, oid: str, rel: str, target: str) -> Step | None:
        pos = self.placer.place(oid, rel, target)
        if pos is None:
            return None
        o = self.s[oid]
        tgt = self.s[target]
        if not tgt.fixture and tgt.category == o.category:
            text = f"C stacks {self.ref(oid)} on {self.ref(target)}"
        elif rel == "in":
            text = f"C {self.rng.choice(['puts', 'places'])} {self.ref(oid)} in {self.ref(target)}"
        elif rel == "under":
            text = f"C puts {self.ref(oid)} under {self.ref(target)}"
        else:
            text = f"C {self.rng.choice(['puts', 'places', 'sets'])} {self.ref(oid)} on {self.ref(target)}"
        o.rel, o.target, o.pos, o.since = rel, target, pos, self.s.step
        return Step(text, "put", placed=oid, end=(pos, self.placer.fixture_of(oid)))

    def open(self, fid: str) -> Step:
        self.ref(fid, acted_on=True)
        self.s[fid].state["door"] = "open"
        if self.s[fid].state.get("power") == "on":  # opening the microwave stops it
            self.s[fid].state["power"] = "off"
        return Step(f"C opens the {fid}", "open", fixture=fid)

    def close(self, fid: str) -> Step:
        self.ref(fid, acted_on=True)
        self.s[fid].state["door"] = "closed"
        return Step(f"C closes the {fid}", "close", fixture=fid)

    def turn_on(self, tid: str) -> Step:
        t, name = self.s[tid], self.ref(tid, acted_on=True)
        if tid == "tap":
            t.state["water"] = "running"
        else:
            t.state["power"] = "on"
        return Step(
            f"C {self.rng.choice(['turns on', 'switches on'])} {name}",
            "turn on",
            fixture=tid if t.fixture else None,
        )

    def turn_off(self, tid: str) -> Step:
        t, name = self.s[tid], self.ref(tid, acted_on=True)
        if tid == "tap":
            t.state["water"] = "off"
        else:
            t.state["power"] = "off"
        fill = t.state.get("fill", "empty")
        if t.category == "kettle" and "water" in fill and "hot" not in fill:
            t.state["fill"] = fill.replace("water", "hot water")
        if tid == "stove":  # what sat on the stove is cooked
            for o in self.s.present():
                f = o.state.get("fill", "")
                if o.rel == "on" and o.target == "stove" and "cracked eggs" in f:
                    o.state["fill"] = f.replace("cracked eggs", "cooked eggs")
                elif o.rel == "on" and o.target == "stove" and "water" in f and "hot" not in f:
                    o.state["fill"] = f.replace("water", "hot water")
        return Step(
            f"C {self.rng.choice(['turns off', 'switches off'])} {name}",
            "turn off",
            fixture=tid if t.fixture else None,
        )

    def cut(self, fid: str, kid: str) -> Step:
        f, food, knife = self.s[fid], self.ref(fid), self.ref(kid)
        f.state["shape"] = "sliced" if f.state["shape"] == "whole" else "chopped"
        self.s[kid].state["clean"] = "dirty"
        if f.target in self.s.things and not self.s[f.target].fixture:
            self.s[f.target].state["clean"] = "dirty"
        verb = "chops" if f.state["shape"] == "chopped" else self.rng.choice(["cuts", "slices"])
        return Step(f"C {verb} {food} with {knife}", "cut")

    def pour(self, sid: str, did: str) -> Step:
        src, dst, a, b = self.s[sid], self.s[did], self.ref(sid), self.ref(did)
        fill = src.state["fill"]
        liquid = fill.replace("half full of ", "").replace("full of ", "")
        dst.state["fill"] = f"full of {liquid}"
        src.state["fill"] = "empty" if fill.startswith("half") else f"half full of {liquid}"
        return Step(f"C pours {liquid} from {a} into {b}", "pour")

    def fill(self, oid: str) -> Step:
        name = self.ref(oid)
        self.s[oid].state["fill"] = "full of water"
        return Step(f"C fills {name} with water", "fill")

    def wash(self, oid: str) -> Step:
        o, name = self.s[oid], self.ref(oid)
        o.state["clean"] = "clean"
        o.state["wet"] = "wet"
        if "fill" in o.state:
            o.state["fill"] = "empty"
        verb = self.rng.choice([f"washes {name} in the sink", f"rinses {name} under the tap"])
        return Step(f"C {verb}", "wash")

    def wipe(self, fid: str, wid: str) -> Step:
        a, b = self.ref(fid, acted_on=True), self.ref(wid)
        self.s[fid].state["clean"] = "clean"
        self.s[wid].state["clean"] = "dirty"
        return Step(f"C wipes {a} with {b}", "wipe")

    def dry(self, oid: str, tid: str) -> Step:
        a, b = self.ref(oid), self.ref(tid)
        self.s[oid].state["wet"] = "dry"
        self.s[tid].state["wet"] = "wet"
        return Step(f"C dries {a} with {b}", "dry")

    def fold(self, tid: str) -> Step:
        name = self.ref(tid)
        self.s[tid].state["folded"] = "folded"
        return Step(f"C folds {name}", "fold")

    def bring_in(self, oid: str) -> Step:
        o = self.s[oid]
        text = f"C brings {self.ref(oid)} into the kitchen"
        o.rel, o.target, o.pos, o.since = "held", None, None, self.s.step
        return Step(text, "bring in", picked=oid, start=(None, None))

    def _leave(self, oid: str, rel: str, text: str, verb: str) -> Step:
        o = self.s[oid]
        o.rel, o.target, o.pos, o.since = rel, None, None, self.s.step
        return Step(text, verb, placed=oid, end=(None, None))

    def carry_out(self, oid: str) -> Step:
        return self._leave(oid, "away", f"C carries {self.ref(oid)} out of the kitchen", "carry out")

    def throw_away(self, oid: str) -> Step:
        o = self.s[oid]
        if o.category in EATABLE and o.state.get("shape") == "whole":
            return self._leave(oid, "gone", f"C eats {self.ref(oid)}", "eat")
        return self._leave(oid, "gone", f"C throws {self.ref(oid)} into the bin", "throw away")

    def crack(self, bid: str, did: str) -> Step:
        box, dst, a, b = self.s[bid], self.s[did], self.ref(bid), self.ref(did)
        box.state["fill"] = "half full of eggs" if box.state["fill"] == "full of eggs" else "empty"
        dst.state["fill"] = "full of cracked eggs"
        dst.state["clean"] = "dirty"
        return Step(f"C cracks eggs from {a} into {b}", "crack")

    # ---- choosing ---------------------------------------------------------------------------------
    def _verbs(self) -> list[tuple[float, Callable[[], list[tuple]], Callable[..., Step | None], bool]]:
        """(weight, candidates, effect, raises_tidy_work)."""
        held = len(self.s.held())
        return [
            (3.0 if held == 0 else 1.2, self._c_pick, self.pick, False),
            (3.5 if held else 0.0, self._c_put, self.put, False),
            (0.9, self._c_open, self.open, True),
            (1.6, self._c_close, self.close, False),
            (0.5, self._c_turn_on, self.turn_on, True),
            (1.2, self._c_turn_off, self.turn_off, False),
            (1.6, self._c_cut, self.cut, False),
            (1.0, self._c_pour, self.pour, False),
            (1.0, self._c_fill, self.fill, False),
            (1.4, self._c_wash, self.wash, False),
            (0.7, self._c_wipe, self.wipe, False),
            (0.6, self._c_dry, self.dry, False),
            (0.3, self._c_fold, self.fold, False),
            (self.weights["bring_in"], self._c_bring_in, self.bring_in, False),
            (self.weights["carry_out"], self._c_carry_out, self.carry_out, False),
            (self.weights["throw_away"], self._c_throw_away, self.throw_away, False),
            (1.2, self._c_crack, self.crack, False),
        ]

    def random_step(self, *, allow_tidy_work: bool = True) -> Step:
        """A random valid action, applied (``allow_tidy_work=False`` avoids opening / switching on)."""
        options = []
        for weight, cands, effect, raises in self._verbs():
            if weight <= 0 or (raises and not allow_tidy_work):
                continue
            c = cands()
            if c:
                options.append((weight, c, effect))
        while options:
            k = self.rng.choices(range(len(options)), [w for w, _, _ in options])[0]
            _, cands, effect = options[k]
            self.rng.shuffle(cands)
            for args in cands[:8]:
                step = effect(*args)
                if step is not None:
                    self.s.step += 1
                    return step
            options.pop(k)
        raise RuntimeError("no valid action in this scene state")

    def tidy_work(self) -> list[tuple[str, str]]:
        """What a tidy ending still has to do: (verb, thing) for open doors and things left on."""
        work = [("close", f) for (f,) in self._c_close()]
        work += [("turn_off", t) for (t,) in self._c_turn_off()]
        return work

    def do(self, verb: str, *args: str) -> Step:
        """Apply a named action (scripted endings); raises when it does not apply."""
        step = getattr(self, verb)(*args)
        if step is None:
            raise RuntimeError(f"cannot {verb} {args}")
        self.s.step += 1
        return step
