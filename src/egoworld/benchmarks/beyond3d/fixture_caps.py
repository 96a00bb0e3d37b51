"""The anchor selection with the leading Nearest Fixture gold label capped where it beats chance.

A blind guess of the most frequent gold label ``L`` is right in the ``g`` questions whose gold it is and,
where ``L`` is not shown, at its fallback position; the builder balances those positions
(`fixture_balance.shows_label`), so the guess beats chance by about ``g − Σ 1 / k`` over the questions
that may show ``L`` (its allowance, `fixture_plan.allowance`). `capped_selection` lowers ``g`` while it
is over the allowance by more than half a question: the leading label's cap drops by one and the exact
selection runs again (`select.LabelCaps`, so every class quota stays exact), and label swaps
(`label_cap.cap_gold_labels`) follow every selection. The caps count anchors by `cap_label` (a fixture
type, or "counter" for the counter placements that become fixture-type questions); a cap that would
cost anchors is not kept, so the build never delivers fewer anchors than without caps (and a pool that
falls short of the quotas is not capped: its size is the uncapped search's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from egoworld.benchmarks.beyond3d.anchors import Candidate, Needs, Selection
from egoworld.benchmarks.beyond3d.fixture_plan import allowance, gold_counts, plan_questions
from egoworld.benchmarks.beyond3d.fixtures import (
    FIXTURE_TYPE_OPTIONS,
    area_name,
    counter_options,
    is_counter,
    type_label,
)
from egoworld.benchmarks.beyond3d.label_cap import cap_gold_labels
from egoworld.benchmarks.beyond3d.questions import EpisodeContext, fixture_at
from egoworld.benchmarks.beyond3d.select import LabelCaps, select_anchors
from egoworld.benchmarks.beyond3d.shortfall import Shortfall, select_balanced
from egoworld.core.hashing import seeded_rng

#: the most of the anchors one Nearest Fixture gold label may hold after the swaps (`cap_gold_labels`)
LABEL_CAP = 0.12
#: how far (in questions) the leading label's gold count may exceed its allowance
SLACK = 0.5
#: the most re-selections
MAX_ROUNDS = 6
#: the largest excess (in questions) a re-selection is tried for: the cap then takes a few anchors of one
#: label; the 1,000-anchor test build's "cupboard" (214 gold, allowance 153) fell short of the quotas when
#: capped, at 40 CPU s a try
MAX_EXCESS = 3.0


def capped_selection(
    contexts: list[EpisodeContext], cands: list[Candidate], n: int, seed: int, needs: Needs = Needs()
) -> tuple[Selection, Shortfall | None]:
    """``n`` exactly balanced anchors (or the shortfall of `select_balanced`) with the leading Nearest
    Fixture gold label capped as far as the pool allows without losing anchors."""
    memo: dict = {}
    likely: Callable[[Candidate], str] = lambda c: likely_label(contexts[c.episode], c, memo)  # noqa: E731
    capped = {c.id: (lab,) for c in cands if (lab := cap_label(contexts[c.episode], c)) is not None}

    def swapped(sel: Selection) -> Selection:
        # the cap labels are no question forms: option counts follow the build's own rule
        sel = replace(sel, nf_label={})
        return cap_gold_labels(sel, cands, likely, LABEL_CAP, seeded_rng(seed, "label-cap"))

    first, short = select_balanced(cands, n, seed, needs)
    best = swapped(first)
    if short is not None:  # a shortfall's size is searched without caps; they are not tried on it
        return best, short
    caps: dict[str, int] = {}
    current, kept = best, lead_excess(contexts, best, seed)[1]
    for _ in range(MAX_ROUNDS):
        lead, excess = lead_excess(contexts, current, seed)
        if lead is None or not SLACK < excess <= MAX_EXCESS:
            break
        held = sum(capped.get(c.id) == (lead,) for c in current.anchors)
        if not held:
            break
        caps = caps | {lead: held - 1}
        trial = select_anchors(cands, n, seed, needs, labels=LabelCaps(capped, caps))
        if trial.short:
            break
        current = swapped(trial)
        if (after := lead_excess(contexts, current, seed)[1]) < kept:
            best, kept = current, after
    return best, None


def lead_excess(contexts: list[EpisodeContext], sel: Selection, seed: int) -> tuple[str | None, float]:
    """The leading Nearest Fixture gold label of a selection's questions (ties → the smaller) and how many
    questions its gold count exceeds its allowance by."""
    plan = plan_questions(contexts, sel, seed)
    golds, allow = gold_counts(plan), allowance(plan)
    if not golds:
        return None, 0.0
    lead = min(golds, key=lambda t: (-golds[t], t))
    return lead, golds[lead] - allow.get(lead, 0.0)


def cap_label(ctx: EpisodeContext, c: Candidate) -> str | None:
    """The label under which an anchor counts against a Nearest Fixture cap: the fixture type of a
    placement off the counters, "counter" for a counter placement of a kitchen with fewer than 5 counter
    areas (its question asks the fixture type unless it gets one of the 3-option slots), None otherwise
    (a counter area of a larger kitchen, or no known fixture)."""
    gold = fixture_at(ctx, c)
    if gold is None:
        return None
    if not is_counter(gold):
        return type_label(gold.type)
    small = counter_options(ctx.episode.fixtures, gold, ctx.counter_labels) < FIXTURE_TYPE_OPTIONS
    return type_label(gold.type) if small else None


def likely_label(ctx: EpisodeContext, c: Candidate, memo: dict) -> str:
    """The Nearest Fixture gold label an anchor most likely gets: its counter area where the kitchen has
    5 or more areas, else its fixture type (counter placements of 3–4 area kitchens mostly show 5 types)."""
    gold = fixture_at(ctx, c)
    key = (c.episode, gold.id)
    if key not in memo:
        fx = ctx.episode.fixtures
        wide = counter_options(fx, gold, ctx.counter_labels) >= FIXTURE_TYPE_OPTIONS
        memo[key] = area_name(ctx.counter_labels[gold.id]) if wide else type_label(gold.type)
    return memo[key]
