"""The rule half of the scene tag filter, and the action tags: nouns (spaCy lemmas) of the action texts.

Rules, in order, each drop recorded with its reason: normalise (lowercase, spaces, the lemma of a plural
head noun), body parts and people, synonyms (mapped to one canonical name), duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

BODY_PARTS = frozenset(
    [
        "hand",
        "hands",
        "finger",
        "fingers",
        "arm",
        "arms",
        "thumb",
        "palm",
        "wrist",
        "leg",
        "foot",
        "head",
        "face",
        "person",
        "man",
        "woman",
        "people",
        "camera",
        "wearer",
        "c",
    ]
)
ABSTRACT = frozenset(
    [
        "thing",
        "object",
        "item",
        "stuff",
        "side",
        "top",
        "bottom",
        "part",
        "piece",
        "area",
        "room",
        "kitchen",
        "scene",
        "image",
    ]
)
SYNONYMS = {
    "faucet": "tap",
    "cooker": "stove",
    "hob": "stove",
    "chopping board": "cutting board",
    "refrigerator": "fridge",
    "cabinet": "cupboard",
    "countertop": "counter",
    "worktop": "counter",
    "saucepan": "pan",
    "tea towel": "towel",
}
_SPACE = re.compile(r"\s+")


def normalise(tag: str) -> str:
    """Lowercase, single spaces, a plural head noun made singular (``knives`` → ``knife``)."""
    words = _SPACE.sub(" ", tag.strip().lower().strip(".,;:'\"")).split(" ")
    if not words or not words[0]:
        return ""
    head = words[-1]
    if head.endswith("ves") and len(head) > 4:
        head = head[:-3] + "fe" if head[:-3].endswith("i") else head[:-3] + "f"
    elif head.endswith(("ches", "shes", "sses", "xes", "oes")):
        head = head[:-2]
    elif head.endswith("ies") and len(head) > 4:
        head = head[:-3] + "y"
    elif head.endswith("s") and not head.endswith(("ss", "us", "is")) and len(head) > 3:
        head = head[:-1]
    return " ".join([*words[:-1], head])


def filter_tags(
    tags: Iterable[str], synonyms: dict[str, str] | None = None
) -> tuple[list[str], list[dict[str, Any]]]:
    """(kept tags in first-seen order, dropped: ``{"tag", "reason", "as"?}``)."""
    syn = SYNONYMS if synonyms is None else synonyms
    kept: list[str] = []
    dropped: list[dict[str, Any]] = []
    for raw in tags:
        tag = normalise(raw)
        if not tag:
            dropped.append({"tag": raw, "reason": "empty"})
        elif tag in BODY_PARTS or tag.split(" ")[-1] in BODY_PARTS:
            dropped.append({"tag": raw, "reason": "body part or person"})
        elif tag in ABSTRACT:
            dropped.append({"tag": raw, "reason": "not an object"})
        else:
            canon = syn.get(tag, tag)
            if canon in kept:
                reason = "synonym" if canon != tag else "duplicate"
                dropped.append({"tag": raw, "reason": reason, "as": canon})
            else:
                if canon != tag:
                    dropped.append({"tag": raw, "reason": "synonym", "as": canon})
                kept.append(canon)
    return kept, dropped


def action_nouns(actions: Sequence[str], spacy_name: str | None = None) -> list[str]:
    """Noun lemmas of the actions, consecutive nouns joined (``cutting board``), first-seen order."""
    from egoworld.benchmarks.explore.nlp import DEFAULT_SPACY, spacy_pipeline

    nlp = spacy_pipeline(spacy_name or DEFAULT_SPACY)
    out: dict[str, None] = {}
    for doc in nlp.pipe(list(actions)):
        run: list[str] = []
        for tok in [*doc, None]:
            if tok is not None and tok.pos_ in ("NOUN", "PROPN") and tok.text != "C":
                run.append(tok.lemma_.lower())
                continue
            if run:
                out[" ".join(run)] = None
            run = []
    return list(out)
