"""Object matching: annotated categories ↔ nouns of the prediction, by mutual-best cosine similarity.

For the cosine matrix S (categories × noun occurrences), a pair (c, w) matches when S[c, w] is both the best
score of row c and the best score of column w (ties kept, as in the paper: a noun that occurs in several
sentences matches in all of them). A category is covered when it has a match; soft coverage adds the row's
best score for covered categories and divides by the number of distinct categories.

Evidence of an object = the sentences holding its matched nouns (unique, in text order). Evidence of a relation
= the subject's evidence plus that of every category the relation names as whole words (lemmas or surface
forms; "cup" does not name "cupboard"), computed afresh for each relation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

Forms = tuple[tuple[str, ...], tuple[str, ...]]  # (lower-case words, lemmas)


@dataclass
class SceneMatch:
    categories: list[str]
    best: np.ndarray  # per category: best cosine over nouns (0 when there are no nouns)
    covered: np.ndarray  # per category: has a mutual-best match
    evidence: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def coverage(self) -> float:
        """Soft coverage in [0, 1]: sum of best scores of covered categories / number of categories."""
        if not self.categories:
            return 0.0
        return float(np.sum(self.best[self.covered])) / len(self.categories)

    @property
    def hard_coverage(self) -> float:
        return float(np.mean(self.covered)) if self.categories else 0.0


def mutual_best(sim: np.ndarray) -> np.ndarray:
    """Boolean matrix of mutual-best pairs (row maximum and column maximum at once; ties kept)."""
    if sim.size == 0:
        return np.zeros(sim.shape, dtype=bool)
    return (sim == sim.max(axis=0, keepdims=True)) & (sim == sim.max(axis=1, keepdims=True))


def match_scene(
    categories: Sequence[str],
    nouns: Sequence[str],
    noun_sentence: Sequence[int],
    embed: Callable[[Sequence[str]], np.ndarray],
) -> SceneMatch:
    """Match distinct ``categories`` (first-appearance order) to noun occurrences (``noun_sentence[i]`` is the
    sentence of ``nouns[i]``)."""
    cats = list(dict.fromkeys(categories))
    if not cats or not nouns:
        return SceneMatch(cats, np.zeros(len(cats)), np.zeros(len(cats), dtype=bool), {c: () for c in cats})
    sim = embed(cats) @ embed(list(nouns)).T
    m = mutual_best(sim)
    evidence = {
        c: tuple(sorted({int(noun_sentence[j]) for j in np.flatnonzero(m[i])})) for i, c in enumerate(cats)
    }
    return SceneMatch(cats, sim.max(axis=1), m.any(axis=1), evidence)


def _spans(needle: tuple[str, ...], hay: tuple[str, ...]) -> list[tuple[int, int]]:
    n = len(needle)
    if n == 0 or n > len(hay):
        return []
    return [(i, i + n) for i in range(len(hay) - n + 1) if hay[i : i + n] == needle]


def mentioned_categories(relation: Forms, categories: dict[str, Forms]) -> list[str]:
    """Categories that ``relation`` names as whole words (surface or lemma sequence).

    A category whose every occurrence lies inside a longer named category's occurrence is dropped
    ("board" inside "cutting board").
    """
    found: dict[str, list[tuple[int, int]]] = {}
    for cat, (lower, lemma) in categories.items():
        spans = set(_spans(lower, relation[0])) | set(_spans(lemma, relation[1]))
        if spans:
            found[cat] = sorted(spans)
    keep = []
    for cat, spans in found.items():
        inside = all(
            any(
                o != cat and a <= s and e <= b and (b - a) > (e - s) for o, os in found.items() for a, b in os
            )
            for s, e in spans
        )
        if not inside:
            keep.append(cat)
    return keep


def relation_evidence(
    subject: str, named: Sequence[str], evidence: dict[str, tuple[int, ...]]
) -> tuple[int, ...]:
    """Sentence ids for one relation: the subject's evidence plus each named category's (fresh per relation)."""
    ids = set(evidence.get(subject, ()))
    for c in named:
        ids.update(evidence.get(c, ()))
    return tuple(sorted(ids))
