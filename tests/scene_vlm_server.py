"""A VLM that answers the scene pipeline's prompts from an exact scene graph through a seeded noise model,
served by the real 127.0.0.1 `FakeOpenAIServer` (`reply=`): tags, filter, boxes, attributes, correction.

Noise (every draw from ``seeded_rng(seed, what, object id)``): an object the detector misses
(``miss``), a colour answered wrong (``colour_flip``; the correction pass puts the graph's description back). What it decided is kept in ``missed`` / ``flipped`` so a
test knows the figures the agreement must come out with. ``malformed``: object ids whose attribute reply is
prose on the first attempt (``"once"``) or on every attempt (``"always"``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from egoworld.core.folders.hashing import seeded_rng

COLOURS = ["red", "green", "blue", "yellow", "white", "black", "grey", "brown", "silver", "orange", "purple"]
_REL = re.compile(r"^(.*?) the (.+)$")


@dataclass
class SceneGraphVlm:
    truth: list[dict[str, Any]]
    width: int
    height: int
    seed: int = 0
    miss: float = 0.0
    colour_flip: float = 0.0
    malformed: dict[str, str] = field(default_factory=dict)
    missed: set[str] = field(default_factory=set)
    flipped: set[str] = field(default_factory=set)
    corrected: set[str] = field(default_factory=set)
    seen: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.visible = [o for o in self.truth if o.get("attributes", {}).get("visible") != "no"]
        cols, rows = 6, (len(self.visible) + 5) // 6
        cw, ch = self.width // cols, self.height // max(rows, 1)
        self.box = {}
        for i, o in enumerate(self.visible):
            x, y = (i % cols) * cw, (i // cols) * ch
            self.box[o["id"]] = [x + 2, y + 2, x + cw - 3, y + ch - 3]
        for o in self.visible:
            if seeded_rng(self.seed, "miss", o["id"]).random() < self.miss:
                self.missed.add(o["id"])

    # the five prompts -------------------------------------------------------------------------------------
    def __call__(self, prompt: str) -> str:
        self.seen.append(prompt[:40])
        if "List every distinct physical object" in prompt:
            return json.dumps(sorted({o["category"] for o in self.visible}) + ["hand"])
        if "These candidate object names" in prompt:
            cands = json.loads(
                re.search(r"names come from the image and from the actions a person did: (\[.*?\])", prompt)[
                    1
                ]
            )
            cats = {o["category"] for o in self.visible}
            return "Kept: " + json.dumps([c for c in cands if c in cats])
        if "Detect every instance of these objects" in prompt:
            labels = prompt.split("in the image: ", 1)[1].split(". Answer", 1)[0].split(", ")
            return json.dumps(
                [
                    {"label": o["category"], "bbox_2d": self.box[o["id"]]}
                    for o in self.visible
                    if o["category"] in labels and o["id"] not in self.missed
                ]
            )
        if "Look at the object in the box labelled" in prompt:
            return self._attributes(prompt)
        if "This is an annotation of the objects" in prompt:
            return self._correct(prompt)
        return "I do not understand."

    def labels(self) -> dict[str, str]:
        """Object id → the label drawn on its box: numbered per category, left to right."""
        out = {}
        for cat in sorted({o["category"] for o in self.visible}):
            same = [o for o in self.visible if o["category"] == cat and o["id"] not in self.missed]
            for n, o in enumerate(
                sorted(same, key=lambda o: (self.box[o["id"]][0], self.box[o["id"]][1])), 1
            ):
                out[o["id"]] = f"{cat}.{n}"
        return out

    def _correct(self, prompt: str) -> str:
        """The annotation back, with the graph's description for each object whose colour it got wrong."""
        items = json.loads(prompt.split("as a JSON list: ", 1)[1].split("\nCorrect any", 1)[0])
        by_label = {lab: oid for oid, lab in self.labels().items()}
        truth = {o["id"]: o for o in self.visible}
        for it in items:
            oid = by_label.get(it["id"])
            if oid in self.flipped:
                it["description"] = truth[oid]["description"]
                self.corrected.add(oid)
        return "```json\n" + json.dumps(items) + "\n```"

    def _attributes(self, prompt: str) -> str:
        label = re.search(r'labelled "([^"]+)"', prompt)[1]
        box = [float(v) for v in re.search(r"box \[([^\]]+)\]", prompt)[1].split(", ")]
        obj = next(o for o in self.visible if [float(v) for v in self.box[o["id"]]] == box)
        mode = self.malformed.get(obj["id"])
        if mode == "always" or (mode == "once" and "Attempt" not in prompt):
            return f"The {label} looks nice."
        names = {}
        for oid, lab in self.labels().items():
            o = next(o for o in self.visible if o["id"] == oid)
            names.setdefault(o["category"], lab)
            names[f"{o.get('attributes', {}).get('colour', '')} {o['category']}"] = lab
        a = obj.get("attributes", {})
        colour = a.get("colour", "")
        if colour and seeded_rng(self.seed, "colour", obj["id"]).random() < self.colour_flip:
            colour = next(c for c in COLOURS if c != colour)
            self.flipped.add(obj["id"])
        rels = []
        for r in obj.get("relations", []):
            if r.endswith(" C"):
                rels.append([label, r[:-2], "C"])
                continue
            m = _REL.match(r)
            if m and m[2] in names:
                rels.append([label, m[1], names[m[2]]])
        return json.dumps(
            {
                "shape": "",
                "colour": colour,
                "size": a.get("size", ""),
                "texture": a.get("material", ""),
                "state": a.get("state", ""),
                "relations": rels,
            }
        )
