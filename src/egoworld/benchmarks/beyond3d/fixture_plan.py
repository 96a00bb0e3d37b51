"""Nearest Fixture questions planned before they are written, and the per-label gold caps they ask for.

`plan_questions` fixes, for every anchor of a selection, how many options its question shows (the
release's 3 / 5 mix, `release_option_counts`), its variant, its gold label and every label it may show.
A label's *allowance* is the chance it can earn when shown wherever it may be: ``Σ 1 / k`` over the
questions that may show it. A label gold more often than its allowance makes a constant guess of it beat
chance whatever the distractors (a "cupboard" gold in 8 of 50 questions, shown only in the 31 five-option
fixture-type ones, is right in 8 of 31 where chance is 6.2); the build caps the leading one (`fixture_caps.capped_selection`, with `select.LabelCaps`).

A counter placement in a kitchen of 3–4 counter areas asks "which counter area" with 3 options or "which
fixture type" (gold "counter") with 5; `label_options` offers both and the selection's label assignment
decides (`Selection.nf_label`): its 3-option slots go first to the area-labelled ones, last to the others.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from egoworld.benchmarks.beyond3d.anchors import Candidate, Selection
from egoworld.benchmarks.beyond3d.fixtures import (
    FIXTURE_TYPE_OPTIONS,
    counter_options,
    fixture_pool,
    max_options,
    release_option_counts,
)
from egoworld.benchmarks.beyond3d.questions import EpisodeContext, fixture_at
from egoworld.core.hashing import seeded_rng


@dataclass(frozen=True)
class FixtureQuestion:
    """One planned Nearest Fixture question."""

    options: int
    variant: str
    gold: str
    pool: tuple[str, ...]
    """every label the question may show, the gold first"""


def label_options(ctx: EpisodeContext, c: Candidate) -> tuple[str, ...]:
    """The gold labels an anchor's question can have (3-option form first; one unless the kitchen has 3–4
    counter areas); empty without a known fixture."""
    gold = fixture_at(ctx, c)
    if gold is None:
        return ()
    fx, lab = ctx.episode.fixtures, ctx.counter_labels
    forms = [fixture_pool(fx, gold, lab, k) for k in (3, FIXTURE_TYPE_OPTIONS)]
    return tuple(dict.fromkeys(f[1] for f in forms if f is not None))


def plan_questions(contexts: list[EpisodeContext], sel: Selection, seed: int) -> dict[tuple, FixtureQuestion]:
    """Every anchor's Nearest Fixture question (anchors without a known fixture are left out)."""
    maxima: dict[tuple, int] = {}
    first, last = set(), set()
    golds = {}
    for c in sel.anchors:
        ctx = contexts[c.episode]
        gold = fixture_at(ctx, c)
        if gold is None:
            continue
        golds[c.id] = gold
        maxima[c.id] = max_options(ctx.episode.fixtures, gold, ctx.counter_labels)
        if counter_options(ctx.episode.fixtures, gold, ctx.counter_labels) == 3:
            forms = label_options(ctx, c)
            (last if sel.nf_label.get(c.id, forms[0]) != forms[0] else first).add(c.id)
    counts = release_option_counts(
        maxima, seeded_rng(seed, "nearest-fixture-options"), first=first, last=last
    )
    out: dict[tuple, FixtureQuestion] = {}
    for c in sel.anchors:
        if c.id not in golds:
            continue
        ctx = contexts[c.episode]
        p = fixture_pool(ctx.episode.fixtures, golds[c.id], ctx.counter_labels, counts[c.id])
        if p is not None:
            variant, gold, others, n = p
            out[c.id] = FixtureQuestion(options=n, variant=variant, gold=gold, pool=(gold, *others))
    return out


def allowance(plan: dict[tuple, FixtureQuestion]) -> dict[str, float]:
    """Per label: ``Σ 1 / k`` over the planned questions that may show it."""
    out: Counter[str] = Counter()
    for q in plan.values():
        for lab in set(q.pool):
            out[lab] += 1.0 / q.options
    return dict(out)


def gold_counts(plan: dict[tuple, FixtureQuestion]) -> Counter[str]:
    return Counter(q.gold for q in plan.values())
