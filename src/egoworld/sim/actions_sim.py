"""The symbolic action simulator: a grammar of EXPLORE-style atomic actions with preconditions and effects.

Verbs (text templates in the EXPLORE style, C = the camera wearer): pick up ("C picks up the knife from
the counter"), put ("C puts the cup in the sink", "C places the plate on the table", "C stacks the plate
on the blue plate", "C puts the basket under the table"), open / close ("C opens the fridge"), turn on /
off ("C turns on the tap"), cut ("C cuts the tomato with the knife"), pour ("C pours water from the kettle
into the mug"), fill ("C fills the kettle with water"), wash ("C washes the plate in the sink"), wipe
("C wipes the table with the sponge"), dry ("C dries the bowl with the towel") and fold ("C folds the
towel"). `ActionSimulator.random_step` picks a valid action (seeded); every step updates the
`SceneState`, whose final graph is therefore the exact annotation. Where an object goes in space comes
from a `Placer` (the scene's geometry).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Protocol

from egoworld.sim.actions_state import CONTAINERS, OPENABLE, SceneState, Thing
from egoworld.sim.actions_vocab import KINDS

UNDER_OK = ("tray", "cereal box", "egg box")
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

    # ---- helpers -----------------------------------------------------------------------------------
    def _objs(self, pred: Callable[[Thing], bool]) -> list[Thing]:
        return [t for t in self.s.objects() if pred(t)]

    def _held(self, pred: Callable[[Thing], bool] = lambda t: True) -> list[Thing]:
        return [self.s[i] for i in self.s.held() if pred(self.s[i])]

    def _tap_on(self) -> bool:
        return self.s["tap"].state.get("water") == "running"

    def _ok(self, verb: str, tid: str) -> bool:
        return (verb, tid) not in self.frozen

    # ---- verbs: candidates -------------------------------------------------------------------------
    def _c_pick(self) -> list[tuple]:
        if len(self.s.held()) >= MAX_HELD:
            return []
        return [
            (t.id,)
            for t in self._objs(
                lambda t: t.rel != "held" and self.s.accessible(t.id) and self._ok("pick", t.id)
            )
        ]

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
        for t in self.s.objects():
            if t.id == o.id or t.rel == "held" or not self.s.accessible(t.id) or not self._ok("target", t.id):
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
            lambda t: t.category == "kettle" and t.rel != "held" and t.state.get("fill", "empty") != "empty"
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
                and (t.rel == "held" or self.s.accessible(t.id))
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
                    t.category == "towel" and t.state.get("folded") == "unfolded" and self.s.accessible(t.id)
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
        text = f"C {verb} {self.s.name(oid)} {prep} {self.s.name(src)}"
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
            text = f"C stacks {self.s.name(oid)} on {self.s.name(target)}"
        elif rel == "in":
            text = f"C {self.rng.choice(['puts', 'places'])} {self.s.name(oid)} in {self.s.name(target)}"
        elif rel == "under":
            text = f"C puts {self.s.name(oid)} under {self.s.name(target)}"
        else:
            text = (
                f"C {self.rng.choice(['puts', 'places', 'sets'])} {self.s.name(oid)} on {self.s.name(target)}"
            )
        o.rel, o.target, o.pos, o.since = rel, target, pos, self.s.step
        return Step(text, "put", placed=oid, end=(pos, self.placer.fixture_of(oid)))

    def open(self, fid: str) -> Step:
        self.s[fid].state["door"] = "open"
        if self.s[fid].state.get("power") == "on":  # opening the microwave stops it
            self.s[fid].state["power"] = "off"
        return Step(f"C opens the {fid}", "open", fixture=fid)

    def close(self, fid: str) -> Step:
        self.s[fid].state["door"] = "closed"
        return Step(f"C closes the {fid}", "close", fixture=fid)

    def turn_on(self, tid: str) -> Step:
        t = self.s[tid]
        if tid == "tap":
            t.state["water"] = "running"
        else:
            t.state["power"] = "on"
        return Step(
            f"C {self.rng.choice(['turns on', 'switches on'])} {self.s.name(tid)}",
            "turn on",
            fixture=tid if t.fixture else None,
        )

    def turn_off(self, tid: str) -> Step:
        t = self.s[tid]
        if tid == "tap":
            t.state["water"] = "off"
        else:
            t.state["power"] = "off"
        fill = t.state.get("fill", "empty")
        if t.category == "kettle" and "water" in fill and "hot" not in fill:
            t.state["fill"] = fill.replace("water", "hot water")
        return Step(
            f"C {self.rng.choice(['turns off', 'switches off'])} {self.s.name(tid)}",
            "turn off",
            fixture=tid if t.fixture else None,
        )

    def cut(self, fid: str, kid: str) -> Step:
        f = self.s[fid]
        f.state["shape"] = "sliced" if f.state["shape"] == "whole" else "chopped"
        self.s[kid].state["clean"] = "dirty"
        if f.target in self.s.things and not self.s[f.target].fixture:
            self.s[f.target].state["clean"] = "dirty"
        verb = "chops" if f.state["shape"] == "chopped" else self.rng.choice(["cuts", "slices"])
        return Step(f"C {verb} {self.s.name(fid)} with {self.s.name(kid)}", "cut")

    def pour(self, sid: str, did: str) -> Step:
        src, dst = self.s[sid], self.s[did]
        fill = src.state["fill"]
        liquid = fill.replace("half full of ", "").replace("full of ", "")
        dst.state["fill"] = f"full of {liquid}"
        src.state["fill"] = "empty" if fill.startswith("half") else f"half full of {liquid}"
        return Step(f"C pours {liquid} from {self.s.name(sid)} into {self.s.name(did)}", "pour")

    def fill(self, oid: str) -> Step:
        o = self.s[oid]
        o.state["fill"] = "full of water"
        return Step(f"C fills {self.s.name(oid)} with water", "fill")

    def wash(self, oid: str) -> Step:
        o = self.s[oid]
        o.state["clean"] = "clean"
        o.state["wet"] = "wet"
        if "fill" in o.state:
            o.state["fill"] = "empty"
        verb = self.rng.choice(
            [f"washes {self.s.name(oid)} in the sink", f"rinses {self.s.name(oid)} under the tap"]
        )
        return Step(f"C {verb}", "wash")

    def wipe(self, fid: str, wid: str) -> Step:
        self.s[fid].state["clean"] = "clean"
        w = self.s[wid]
        w.state["clean"] = "dirty"
        return Step(f"C wipes {self.s.name(fid)} with {self.s.name(wid)}", "wipe")

    def dry(self, oid: str, tid: str) -> Step:
        self.s[oid].state["wet"] = "dry"
        self.s[tid].state["wet"] = "wet"
        return Step(f"C dries {self.s.name(oid)} with {self.s.name(tid)}", "dry")

    def fold(self, tid: str) -> Step:
        self.s[tid].state["folded"] = "folded"
        return Step(f"C folds {self.s.name(tid)}", "fold")

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
