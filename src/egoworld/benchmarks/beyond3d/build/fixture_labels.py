"""Nearest Fixture labels: fixture types, and human-readable counter areas named by nearby landmarks.

The paper names counter surfaces by neutral landmarks ("counter area between the fridge and the hob")
and uses fixture categories otherwise. A fixture may carry its own label in ``meta["area_label"]``;
counters without one are named automatically from the two nearest non-counter landmarks (made unique
within the kitchen). Counter placements ask "which counter area": counters told apart only by an
ordinal form one area, as in the official release; other placements ask "which fixture type" (types of
the same kitchen). A question shows 3 or 5 options as the official ones do; `release_option_counts` gives a
build the release's mix (3 options in 20.25 % of the questions, so chance 22.7 %): a counter placement in
a kitchen with fewer than 5 areas that is to show 5 options asks for the fixture type instead.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Collection, Sequence

import numpy as np

from egoworld.geometry.boxes import Box3D
from egoworld.world.episode import Fixture

COUNTER = "counter"
#: fixture types that never serve as landmarks or answers
IGNORED = frozenset({"floor", "wall", "ceiling"})
#: fixture types that name counter areas only when no other landmark is near (they are everywhere)
WEAK_LANDMARKS = frozenset({"cupboard", "drawer", "shelf", "hook", "storage"})
TYPE_NAMES = {"fridgefreezer": "fridge-freezer", "top_microwave": "top of the microwave"}
_ORDINAL = re.compile(r" \((?:first|second|third|fourth|fifth|#\d+)\)$")
#: option counts of the official counter-area questions
COUNTER_OPTION_COUNTS = (3, 5)
FIXTURE_TYPE_OPTIONS = 5
#: share of 3-option questions in the official release: chance 22.7 % = p / 3 + (1 - p) / 5 → p = 0.2025
RELEASE_THREE_SHARE = 0.2025


def type_label(kind: str) -> str:
    """``top_microwave`` → ``top of the microwave``; ``cupboard`` → ``cupboard``."""
    return TYPE_NAMES.get(kind, kind.replace("_", " "))


def is_counter(fx: Fixture) -> bool:
    return fx.type == COUNTER


def _gap(a: Box3D, b: Box3D) -> float:
    """Distance between two boxes' axis-aligned bounds (0 when they touch or overlap)."""
    alo, ahi = a.bounds()
    blo, bhi = b.bounds()
    d = np.maximum(0.0, np.maximum(alo - bhi, blo - ahi))
    return float(np.linalg.norm(d[:2]))


def counter_area_labels(fixtures: Sequence[Fixture]) -> dict[str, str]:
    """A unique readable label for every counter fixture of one kitchen."""
    counters = [f for f in fixtures if is_counter(f)]
    marks = [f for f in fixtures if not is_counter(f) and f.type not in IGNORED]
    labels: dict[str, str] = {}
    ranked: dict[str, list[str]] = {}
    for c in counters:
        if isinstance(c.meta.get("area_label"), str):
            labels[c.id] = c.meta["area_label"]
            continue
        near = sorted(
            marks,
            key=lambda m: (m.type in WEAK_LANDMARKS, _gap(c.box, m.box) > 1.5, _gap(c.box, m.box), m.id),
        )
        kinds = list(dict.fromkeys(type_label(m.type) for m in near))
        ranked[c.id] = kinds
        labels[c.id] = _name(kinds, 1)
    for depth in (2, 3):
        counts: dict[str, list[str]] = {}
        for cid, lab in labels.items():
            counts.setdefault(lab, []).append(cid)
        dup = [cid for ids in counts.values() if len(ids) > 1 for cid in ids if cid in ranked]
        if not dup:
            break
        for cid in dup:
            labels[cid] = _name(ranked[cid], depth)
    counts = {}
    for cid in sorted(labels):
        counts.setdefault(labels[cid], []).append(cid)
    for lab, ids in counts.items():
        if len(ids) > 1:
            order = sorted(
                ids, key=lambda i: tuple(np.round(next(f for f in counters if f.id == i).box.center, 3))
            )
            for k, cid in enumerate(order, start=1):
                labels[cid] = f"{lab} ({_ordinal(k)})"
    return labels


def _name(kinds: list[str], depth: int) -> str:
    """The label from the ``depth`` nearest landmark kinds (named in alphabetical order, so two counters
    between the same landmarks read the same and get told apart by `counter_area_labels`)."""
    if not kinds:
        return "counter area"
    if depth == 1 or len(kinds) == 1:
        return f"counter area next to the {kinds[0]}"
    if depth == 2 or len(kinds) == 2:
        a, b = sorted(kinds[:2])
        return f"counter area between the {a} and the {b}"
    a, b, c = sorted(kinds[:3])
    return f"counter area near the {a}, the {b} and the {c}"


def _ordinal(k: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(k, f"#{k}")


def nearest_fixture(fixtures: Sequence[Fixture], position: np.ndarray) -> Fixture | None:
    """The fixture whose box is nearest to a position (ties → first listed), ignoring floor / walls."""
    best, dist = None, np.inf
    for f in fixtures:
        if f.type in IGNORED:
            continue
        d = float(f.box.distance(position))
        if d < dist - 1e-12:
            best, dist = f, d
    return best


def area_name(label: str) -> str:
    """The counter area a counter belongs to: its label without the ordinal that tells apart counters of
    one area ("counter area next to the sink (second)" → "counter area next to the sink"), as the official
    release names areas (several counter fixtures share one area)."""
    return _ORDINAL.sub("", label)


def counter_option_count(areas: int) -> int:
    """Options of a counter-area question in a kitchen with ``areas`` counter areas: the largest official
    count (3 or 5) that fits, or all areas when fewer than 3."""
    fitting = [n for n in COUNTER_OPTION_COUNTS if n <= areas]
    return max(fitting) if fitting else areas


def _others(
    fixtures: Sequence[Fixture], gold: Fixture, labels: dict[str, str] | None, variant: str
) -> tuple[list[str], dict[str, str]]:
    """(the other option names, counter id → area) of ``variant`` for a placement on ``gold``."""
    if variant == "counter":
        if not is_counter(gold):
            return [], {}
        labels = labels if labels else counter_area_labels(fixtures)
        area = {cid: area_name(lab) for cid, lab in labels.items()}
        return sorted(set(area.values()) - {area[gold.id]}), area
    return sorted({f.type for f in fixtures if f.type not in IGNORED} - {gold.type}), {}


def _variant_max(
    fixtures: Sequence[Fixture], gold: Fixture, labels: dict[str, str] | None, variant: str
) -> int:
    others, _ = _others(fixtures, gold, labels, variant)
    if not others:
        return 0
    if variant == "type":
        return min(len(others) + 1, FIXTURE_TYPE_OPTIONS)
    return counter_option_count(len(others) + 1)


def max_options(fixtures: Sequence[Fixture], gold: Fixture, labels: dict[str, str] | None = None) -> int:
    """The most options (3 or 5, fewer in a small kitchen) a question about ``gold`` can show: a counter
    placement asks for the counter area, or for the fixture type where its kitchen has too few areas."""
    return max(_variant_max(fixtures, gold, labels, v) for v in ("counter", "type"))


def counter_options(fixtures: Sequence[Fixture], gold: Fixture, labels: dict[str, str] | None = None) -> int:
    """The most options a counter-area question about ``gold`` can show (0: not a counter placement)."""
    return _variant_max(fixtures, gold, labels, "counter")


def release_option_counts(
    maxima: dict[str, int],
    rng: random.Random,
    share: float = RELEASE_THREE_SHARE,
    first: Collection[str] = (),
    last: Collection[str] = (),
) -> dict[str, int]:
    """Options per question (key → 3 or 5) with exactly ``round(share · n)`` 3-option questions when the
    kitchens allow it: questions that cannot show 5 keep their maximum, then seeded keys of ``first``
    get 3 (the builder names counter placements whose kitchen has 3 or 4 areas: the release's 3-option
    questions are counter-area ones), then seeded others, the keys of ``last`` only when no other is left."""
    counts = {k: min(m, FIXTURE_TYPE_OPTIONS) for k, m in maxima.items()}
    want = round(share * len(counts)) - sum(1 for m in counts.values() if m <= 3)
    free = sorted(k for k, m in counts.items() if m == FIXTURE_TYPE_OPTIONS)
    rng.shuffle(free)
    free.sort(key=lambda k: 0 if k in first else 2 if k in last else 1)  # stable: seeded within groups
    for k in free[: max(want, 0)]:
        counts[k] = 3
    return counts


def fixture_pool(
    fixtures: Sequence[Fixture],
    gold: Fixture,
    labels: dict[str, str] | None = None,
    options: int | None = None,
) -> tuple[str, str, list[str], int] | None:
    """(variant, gold label, every other label the question may show, options shown) for a placement on
    ``gold`` (see `fixture_options`); None when the kitchen offers fewer than 2 options."""
    variant, others, _, n = _question(fixtures, gold, labels, options)
    if not others:
        return None
    if variant == "counter":
        labels = labels if labels else counter_area_labels(fixtures)
        return variant, area_name(labels[gold.id]), others, n
    return variant, type_label(gold.type), [type_label(k) for k in others], n


def _question(
    fixtures: Sequence[Fixture], gold: Fixture, labels: dict[str, str] | None, options: int | None
) -> tuple[str, list[str], dict[str, str], int]:
    """(variant, other option names, counter id → area, options shown)."""
    counter = _variant_max(fixtures, gold, labels, "counter")
    want = options or counter or FIXTURE_TYPE_OPTIONS
    wider = _variant_max(fixtures, gold, labels, "type") > counter
    variant = "counter" if counter and (counter >= want or not wider) else "type"
    others, area = _others(fixtures, gold, labels, variant)
    return variant, others, area, min(want, _variant_max(fixtures, gold, labels, variant))


def fixture_options(
    fixtures: Sequence[Fixture],
    gold: Fixture,
    rng: random.Random,
    labels: dict[str, str] | None = None,
    options: int | None = None,
    prefer: Callable[[str], float] | None = None,
) -> tuple[str, list[str], list[str], int] | None:
    """(variant, option labels, option fixture ids or types, gold index) for a placement on ``gold``;
    None when the kitchen offers fewer than 2 options. ``labels``: precomputed `counter_area_labels`;
    ``options``: how many to show (capped by `max_options`; a counter placement whose kitchen has too
    few areas for them asks for the fixture type); default: all areas the official rule shows.
    ``prefer``: option label → priority; distractors of higher priority come first (seeded order
    among equals), as `fixture_balance.LabelBalance.urgency` asks."""
    variant, others, area, n = _question(fixtures, gold, labels, options)
    if not others:
        return None
    rng.shuffle(others)
    if prefer is not None:
        name = (lambda o: o) if variant == "counter" else type_label
        others.sort(key=lambda o: -prefer(name(o)))  # stable: the seeded shuffle breaks ties
    chosen = others[: n - 1]
    if variant == "counter":
        ids = [gold.id, *(min(c for c in area if area[c] == name) for name in chosen)]
        return "counter", [area[gold.id], *chosen], ids, 0
    kinds = [gold.type, *chosen]
    return "type", [type_label(k) for k in kinds], kinds, 0
