"""Nearest Fixture questions planned before they are written, and a selection whose every gold label
stays within its allowance.

`plan_questions` fixes, for every anchor of a selection, how many options its question shows (the
release's 3 / 5 mix, `release_option_counts`), its variant, its gold label and every label it may show.
A label's *allowance* is the chance it can earn when shown wherever it may be: ``Σ 1 / k`` over the
questions that may show it. A label gold more often than its allowance makes a constant guess of it beat
chance whatever the distractors (a "cupboard" gold in 8 of 50 questions, shown only in the 31 five-option
fixture-type ones, is right in 8 of 31 where chance is 6.2).

`capped_selection` is the one mechanism that keeps every label within it: when the balanced selection
has a label over its allowance by more than half a question, `label_select.allowance_selection` picks
the same number of anchors with exactly its class counts and every label within its allowance plus
the slack (0.5 questions, else 1, else 2), in one exact program that also chooses each anchor's
question form: a counter placement in a kitchen of 3–4 counter areas asks "which counter area" with 3
options or "which fixture type" (gold "counter") with 5 (`question_forms`; `Selection.nf_label` holds
the choice, and the release's 3-option slots go first to the area forms, last to the "counter" ones).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from egoworld.benchmarks.beyond3d.build.anchor_samples import EpisodeContext, fixture_at
from egoworld.benchmarks.beyond3d.build.anchors import Candidate, Needs, Selection
from egoworld.benchmarks.beyond3d.build.fixture_labels import (
    FIXTURE_TYPE_OPTIONS,
    RELEASE_THREE_SHARE,
    counter_options,
    fixture_pool,
    max_options,
    release_option_counts,
)
from egoworld.benchmarks.beyond3d.build.label_select import Form, allowance_selection
from egoworld.benchmarks.beyond3d.build.shortfall import Shortfall, select_balanced
from egoworld.core.folders.hashing import seeded_rng

#: how far (in questions) a gold label's count may exceed its allowance, tried in turn
SLACKS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)


@dataclass(frozen=True)
class FixtureQuestion:
    """One planned Nearest Fixture question."""

    options: int
    variant: str
    gold: str
    pool: tuple[str, ...]
    """every label the question may show, the gold first"""


def plan_questions(contexts: list[EpisodeContext], sel: Selection, seed: int) -> dict[tuple, FixtureQuestion]:
    """Every anchor's Nearest Fixture question (anchors without a known fixture are left out)."""
    maxima: dict[tuple, int] = {}
    first, last = set(), set()
    golds = {}
    memo: dict = {}
    for c in sel.anchors:
        ctx = contexts[c.episode]
        gold = fixture_at(ctx, c)
        if gold is None:
            continue
        golds[c.id] = gold
        maxima[c.id] = max_options(ctx.episode.fixtures, gold, ctx.counter_labels)
        if counter_options(ctx.episode.fixtures, gold, ctx.counter_labels) == 3:
            area = question_forms(contexts, c, memo)[0].gold
            (last if sel.nf_label.get(c.id, area) != area else first).add(c.id)
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
        for lab in dict.fromkeys(q.pool):
            out[lab] += 1.0 / q.options
    return dict(out)


def gold_counts(plan: dict[tuple, FixtureQuestion]) -> Counter[str]:
    return Counter(q.gold for q in plan.values())


def excess(plan: dict[tuple, FixtureQuestion]) -> dict[str, float]:
    """Per gold label: how many questions its gold count exceeds its allowance by (negative: under)."""
    allow = allowance(plan)
    return {lab: g - allow.get(lab, 0.0) for lab, g in gold_counts(plan).items()}


def capped_selection(
    contexts: list[EpisodeContext], cands: list[Candidate], n: int, seed: int, needs: Needs = Needs()
) -> tuple[Selection, Shortfall | None]:
    """``n`` exactly balanced anchors (or as many as `select_balanced` finds, with its shortfall) with no
    Nearest Fixture gold label over its allowance by more than the first of `SLACKS` the pool allows
    (`label_select.allowance_selection`: the same size and class counts); the balanced selection as it
    is when no slack is met."""
    sel, short = select_balanced(cands, n, seed, needs)
    if not sel.anchors or _worst(plan_questions(contexts, sel, seed)) <= SLACKS[0]:
        return sel, short
    memo: dict = {}
    forms = {c.id: f for c in cands if (f := question_forms(contexts, c, memo))}
    slots = round(RELEASE_THREE_SHARE * len(sel.anchors))
    for slack in SLACKS:
        out = allowance_selection(sel, cands, forms, slots, slack, seed=seed)
        if out is not None:
            return out, short
    return sel, short


def _worst(plan: dict[tuple, FixtureQuestion]) -> float:
    return max(excess(plan).values(), default=0.0)


def question_forms(contexts: list[EpisodeContext], c: Candidate, memo: dict) -> tuple[Form, ...]:
    """The forms an anchor's question can take (the 3-option counter-area one first where the kitchen
    has 3–4 counter areas); empty without a known fixture."""
    ctx = contexts[c.episode]
    gold = fixture_at(ctx, c)
    if gold is None:
        return ()
    key = (c.episode, gold.id)
    if key not in memo:
        fx, lab = ctx.episode.fixtures, ctx.counter_labels
        got = [p for k in (3, FIXTURE_TYPE_OPTIONS) if (p := fixture_pool(fx, gold, lab, k)) is not None]
        forms = {p[1]: Form(gold=p[1], options=p[3], pool=(p[1], *p[2])) for p in got}
        memo[key] = tuple(forms.values())
    return memo[key]
