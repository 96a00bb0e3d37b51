"""Replay an action list from the initial scene a model is shown: the proof that the final scene follows from
the inputs.

`replay(initial, actions)` rebuilds a `SceneState` from the initial scene's annotation (category, description,
relations of what the image shows), reads every action text back into the simulator's verbs and applies it with
the simulator's own effects (`ActionSimulator`), so the result is the state machine's, not a re-implementation.
Objects the text names in full the first time (brought in, taken from a closed cupboard) join the state then.
Two consequences that no action names are the simulator's rules too: a stack of more than `MAX_STACK` plates
topples (the plates fall to the floor; ceramic and glass break), and what is left open, running or on at the
end is the scene's key state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from random import Random
from typing import Any

from egoworld.sim.actions.grammar import MAX_STACK, ActionSimulator
from egoworld.sim.actions.state import FIXTURE_RELATIONS, OPENABLE, SceneState, Thing
from egoworld.sim.actions.vocab import COLOURS, KINDS
from egoworld.world.episode import SceneGraph

FIXTURES = (*FIXTURE_RELATIONS, "tap")
SIZES = ("small", "medium", "large")
MATERIALS = frozenset(m for k in KINDS.values() for m in k.materials) | {"metal"}
_STATE_KEY = {
    "clean": "clean",
    "dirty": "clean",
    "whole": "shape",
    "sliced": "shape",
    "chopped": "shape",
    "folded": "folded",
    "unfolded": "folded",
    "open": "door",
    "closed": "door",
    "running": "water",
    "on": "power",
    "wet": "wet",
    "dry": "wet",
    "broken": "condition",
}
TOPPLED = "fell onto the floor when the stack toppled"


class ReplayError(ValueError):
    """An action text or an initial scene the replay cannot read."""


class _NoRoom:
    """A placer without geometry: every put succeeds (positions do not enter the scene graph)."""

    def place(self, obj: str, rel: str, target: str) -> tuple[float, float, float] | None:
        return (0.0, 0.0, 0.0)

    def remove(self, obj: str) -> None:
        return None

    def fixture_of(self, obj: str) -> str | None:
        return None


def _states(text: str, category: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in (p.strip() for p in text.split(",") if p.strip()):
        if "full of" in v or v == "empty":
            out["fill"] = v
        elif v == "off":
            out["water" if category == "tap" else "power"] = v
        elif v in _STATE_KEY:
            out[_STATE_KEY[v]] = v
        else:
            raise ReplayError(f"unknown state {v!r} of a {category}")
    return out


def _thing(tid: str, category: str, head: str, states: str, fixture: bool) -> Thing:
    """A thing from its look ("small red ceramic", the words before the category) and its states."""
    words = head.split()
    t = Thing(tid, category, fixture=fixture, state=_states(states, category))
    if words and words[0] in SIZES:
        t.size = words.pop(0)
    if words and words[0] in COLOURS:
        t.colour = words.pop(0)
    if words and words[0] in MATERIALS:
        t.material = words.pop(0)
    if words:
        raise ReplayError(f"cannot read the look {head!r} of a {category}")
    return t


def _split_description(description: str, category: str) -> tuple[str, str]:
    head, _, states = description.partition(", ")
    head = re.sub(r"^(a|an|the) ", "", head)
    if not head.endswith(category):
        raise ReplayError(f"description {description!r} does not end its look with {category!r}")
    return head[: -len(category)].strip(), states


class Replay:
    """The replayed scene (see the module docstring)."""

    def __init__(self, initial: Iterable[Any]) -> None:
        objs = [o if isinstance(o, dict) else o.to_json() for o in initial]
        things = [Thing("floor", "floor", fixture=True)]
        for o in objs:
            if o["category"] in FIXTURES:
                head, states = _split_description(o["description"], o["category"])
                things.append(_thing(o["category"], o["category"], head, states, True))
        for f in FIXTURES:
            if f not in {t.id for t in things}:
                things.append(Thing(f, f, fixture=True))
        self.state = SceneState(things)
        self.sim = ActionSimulator(self.state, Random(0), _NoRoom())
        pending = []
        for o in objs:
            if o["category"] not in FIXTURES:
                head, states = _split_description(o["description"], o["category"])
                t = self._new(o["category"], head, states)
                rels = o.get("relation", o.get("relations")) or []
                pending.append((t, [rels] if isinstance(rels, str) else list(rels)))
        for t, rels in pending:  # locations once every object is known (stacks name other objects)
            rel, target = self._location(rels[0] if rels else "on the counter")
            t.rel, t.target = rel, target
        self.state.shown = {t.id for t in self.state.objects()}
        self.state.track_changes()

    # ---- names --------------------------------------------------------------------------------------
    def _new(self, category: str, head: str, states: str) -> Thing:
        colour = head.split()[1] if len(head.split()) > 1 and head.split()[0] in SIZES else head.split()[0]
        tid = f"{category}/{colour}"
        t = _thing(tid, category, head, states, False)
        self.state.things[tid] = t
        return t

    def thing(self, ref: str) -> str:
        """The id a reference names: "the red mug", "the sink", or a full first mention."""
        ref = ref.strip()
        if not ref.startswith("the "):
            raise ReplayError(f"cannot read the reference {ref!r}")
        words = ref[4:]
        if words in FIXTURES or words == "floor":
            return words
        if words.split(" ", 1)[0] in SIZES:  # a first mention: the object's full look
            head, _, states = words.partition(" (")
            category = next((c for c in sorted(KINDS, key=len, reverse=True) if head.endswith(" " + c)), None)
            if category is None:
                raise ReplayError(f"no known category in {ref!r}")
            t = self._new(category, head[: -len(category)].strip(), states.rstrip(")"))
            t.rel = t.rel or "on"
            t.target = t.target or "counter"
            return t.id
        objs = self.state.objects()
        same = [t for t in objs if t.category == words]
        if len(same) == 1:
            return same[0].id
        named = [t for t in objs if f"{t.colour} {t.category}" == words]
        if len(named) == 1:
            return named[0].id
        raise ReplayError(f"the reference {ref!r} names no object the scene has shown")

    def _location(self, relation: str) -> tuple[str, str]:
        if relation == "held by C":
            return "held", ""
        m = re.match(r"^(on|in|under|inside the closed) (.+)$", relation)
        if m is None:
            raise ReplayError(f"cannot read the relation {relation!r}")
        rel = "in" if m.group(1) == "inside the closed" else m.group(1)
        target = m.group(2) if m.group(1) != "inside the closed" else "the " + m.group(2)
        return rel, self.thing(target)

    # ---- actions ------------------------------------------------------------------------------------
    def apply(self, text: str) -> None:
        """Read one action and apply it with the simulator's effect."""
        text = text.strip().rstrip(".")
        for pattern, handler in self._grammar():
            m = re.match(pattern, text)
            if m is not None:
                handler(m)
                self.state.step += 1
                return
        raise ReplayError(f"cannot read the action {text!r}")

    def _grammar(self) -> Sequence[tuple[str, Callable[[re.Match[str]], None]]]:
        t, sim = self.thing, self.sim
        return (
            (r"^C (?:picks up|takes|grabs) (the .+?) (from under|from) (the .+)$", self._pick),
            (r"^C stacks (the .+?) on (the .+)$", self._stack),
            (r"^C (?:puts|places|sets) (the .+?) (on|in|under) (the .+)$", self._put),
            (r"^C opens the (\w+)$", lambda m: sim.open(m[1]) and None),
            (r"^C closes the (\w+)$", lambda m: sim.close(m[1]) and None),
            (r"^C (?:turns|switches) on (the .+)$", lambda m: sim.turn_on(t(m[1])) and None),
            (r"^C (?:turns|switches) off (the .+)$", lambda m: sim.turn_off(t(m[1])) and None),
            (
                r"^C (?:cuts|slices|chops) (the .+?) with (the .+)$",
                lambda m: sim.cut(t(m[1]), t(m[2])) and None,
            ),
            (r"^C pours .+? from (the .+?) into (the .+)$", lambda m: sim.pour(t(m[1]), t(m[2])) and None),
            (r"^C fills (the .+) with water$", lambda m: sim.fill(t(m[1])) and None),
            (r"^C (?:washes (the .+) in the sink|rinses (the .+) under the tap)$", self._wash),
            (r"^C wipes (the .+?) with (the .+)$", lambda m: sim.wipe(t(m[1]), t(m[2])) and None),
            (r"^C dries (the .+?) with (the .+)$", lambda m: sim.dry(t(m[1]), t(m[2])) and None),
            (r"^C folds (the .+)$", lambda m: sim.fold(t(m[1])) and None),
            (r"^C brings (the .+) into the kitchen$", self._bring),
            (r"^C carries (the .+) out of the kitchen$", lambda m: sim.carry_out(t(m[1])) and None),
            (r"^C (?:eats (the .+)|throws (the .+) into the bin)$", self._throw),
            (r"^C cracks eggs from (the .+?) into (the .+)$", lambda m: sim.crack(t(m[1]), t(m[2])) and None),
        )

    def _pick(self, m: re.Match[str]) -> None:
        src = self.thing(m[3])
        oid = self.thing(m[1])
        o = self.state[oid]
        o.rel, o.target = (
            ("under" if m[2] == "from under" else "in" if src in OPENABLE or src == "sink" else "on"),
            src,
        )
        self.sim.pick(oid)

    def _put(self, m: re.Match[str]) -> None:
        self.sim.put(self.thing(m[1]), m[2], self.thing(m[3]))

    def _stack(self, m: re.Match[str]) -> None:
        oid = self.thing(m[1])
        self.sim.put(oid, "on", self.thing(m[2]))
        if self.state.stack_height(oid) > MAX_STACK:
            self._topple(oid)

    def _topple(self, top: str) -> None:
        s = self.state
        chain = [top]
        while s[chain[-1]].rel == "on" and not s[s[chain[-1]].target or "floor"].fixture:
            chain.append(s[chain[-1]].target or "floor")
        for p in reversed(chain):
            t = s[p]
            t.rel, t.target = "on", "floor"
            t.state["fallen"] = "fallen"
            broken = t.material in ("ceramic", "glass")
            if broken:
                t.state["condition"] = "broken"
            t.key_state = TOPPLED + (" and broke" if broken else "")

    def _wash(self, m: re.Match[str]) -> None:
        self.sim.wash(self.thing(m[1] or m[2]))

    def _bring(self, m: re.Match[str]) -> None:
        oid = self.thing(m[1])
        self.state[oid].rel, self.state[oid].target = "away", None
        self.sim.bring_in(oid)

    def _throw(self, m: re.Match[str]) -> None:
        self.sim.throw_away(self.thing(m[1] or m[2]))

    # ---- result -------------------------------------------------------------------------------------
    def graph(self, label: str = "final") -> SceneGraph:
        """The replayed scene with the end-of-sequence key states (left running, on or open)."""
        s = self.state
        if s["tap"].state.get("water") == "running":
            s["tap"].key_state = "the tap is left running"
        if s["stove"].state.get("power") == "on":
            s["stove"].key_state = "the stove is left on"
        for f in OPENABLE:
            if s[f].state.get("door") == "open":
                s[f].key_state = f"the {f} door is left open"
        return s.scene_graph(label, 0.0)


def replay(initial: Iterable[Any], actions: Iterable[str]) -> Replay:
    """The scene after ``actions`` from the ``initial`` annotation (dicts or objects with ``to_json``)."""
    r = Replay(initial)
    for a in actions:
        r.apply(a)
    return r


def visible_objects(graph: SceneGraph, *, touched_only: bool = False) -> list[dict[str, Any]]:
    """What a graph's image shows, as EXPLORE annotation dicts (category, description, relation, key_state);
    ``touched_only``: only the things an action named (an end-frame annotation)."""
    return [
        {
            "category": o.category,
            "description": o.description,
            "relation": list(o.relations),
            "key_state": o.key_state or None,
        }
        for o in graph.objects
        if (o.attributes or {}).get("visible") != "no"
        and not (touched_only and (o.attributes or {}).get("touched") == "no")
    ]
