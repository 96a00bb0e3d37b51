"""Question drafts → samples: spread the selection over videos and answers, and balance the correct letter.

* `select`: round-robin over answer strata (e.g. VMR directions), and within a stratum round-robin over
  videos (each video's drafts in a seeded order), so any prefix of the selection covers the strata and
  videos evenly. With ``weights`` (a target share per stratum, e.g. the release's count bins) the strata
  are merged by largest deficit instead: every prefix follows the target mix while each stratum lasts;
  a stratum that runs out leaves its share to the others (the build reports the distance to the target).
* `to_samples`: the correct option's letter cycles through A–D in blocks of four (a seeded order per
  block), separately per balance key (VOO: first / last), so every block of 4 consecutive questions of a
  task has each letter once — the whole task and every ``--per-task`` prefix of a multiple of 4 are
  exactly uniform. Distractors take the other letters in a seeded order per sample.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.schema import Media, Sample, Trajectory

T = TypeVar("T")


@dataclass
class Draft:
    """A question before its options are placed: the correct option text and its distractors."""

    id: str
    task: str
    video: str  # sample episode: the view video id
    cluster: str  # the panorama
    question: str
    correct: Any  # option text (choice tasks) or the integer (VOC)
    distractors: tuple[str, ...] = ()
    media: Media = field(default_factory=Media)
    metadata: dict[str, Any] = field(default_factory=dict)
    stratum: str = ""  # spread the selection over these (e.g. the answer)
    balance: str = ""  # letters are balanced within each balance key
    trajectory: Trajectory | None = None


def _round_robin(lists: Sequence[list[Draft]]) -> list[Draft]:
    out: list[Draft] = []
    k = 0
    while any(k < len(x) for x in lists):
        out.extend(x[k] for x in lists if k < len(x))
        k += 1
    return out


def weighted_merge(lists: Mapping[str, list[T]], weights: Mapping[str, float]) -> list[T]:
    """All items of ``lists`` (stratum → items), the next one always from the stratum furthest below its
    share ``w[stratum] · (k + 1)`` (``w``: ``weights`` normalised; ties: stratum name); exhausted strata drop
    out, strata without a positive weight are left out."""
    total = sum(w for w in weights.values() if w > 0)
    taken = dict.fromkeys(lists, 0)
    out: list[T] = []
    while True:
        live = [k for k in sorted(lists) if taken[k] < len(lists[k]) and weights.get(k, 0.0) > 0]
        if not live:
            return out
        k = max(live, key=lambda s: weights[s] / total * (len(out) + 1) - taken[s])
        out.append(lists[k][taken[k]])
        taken[k] += 1


def select(
    drafts: Sequence[Draft],
    n: int | None,
    seed: int,
    task: str,
    weights: Mapping[str, float] | None = None,
) -> list[Draft]:
    """Up to ``n`` drafts spread over strata and videos (deterministic for a seed); strata merged round-robin,
    or by ``weights`` (strata without a weight are left out)."""
    strata: dict[str, dict[str, list[Draft]]] = defaultdict(lambda: defaultdict(list))
    for d in sorted(drafts, key=lambda d: d.id):
        strata[d.stratum][d.video].append(d)
    ordered: dict[str, list[Draft]] = {}
    for key in sorted(strata):
        per_video = []
        for video in sorted(strata[key]):
            items = strata[key][video]
            seeded_rng(seed, task, key, video).shuffle(items)
            per_video.append(items)
        seeded_rng(seed, task, key, "videos").shuffle(per_video)
        ordered[key] = _round_robin(per_video)
    chosen = _round_robin(list(ordered.values())) if weights is None else weighted_merge(ordered, weights)
    return chosen if n is None else chosen[:n]


def trim_to_blocks(drafts: list[Draft], block: int = 4) -> list[Draft]:
    """Keep a multiple of ``block`` per balance key (exactly uniform letters); keeps the order."""
    per: dict[str, int] = defaultdict(int)
    for d in drafts:
        per[d.balance] += 1
    keep = {k: n - n % block for k, n in per.items()}
    seen: dict[str, int] = defaultdict(int)
    out = []
    for d in drafts:
        if seen[d.balance] < keep[d.balance]:
            out.append(d)
            seen[d.balance] += 1
    return out


def interleave_balance(drafts: list[Draft], block: int = 4) -> list[Draft]:
    """Order drafts as blocks of ``block`` per balance key, alternating keys (VOO: 4 first, 4 last, …)."""
    per: dict[str, list[Draft]] = defaultdict(list)
    for d in drafts:
        per[d.balance].append(d)
    blocks = [[lst[i : i + block] for i in range(0, len(lst), block)] for _, lst in sorted(per.items())]
    return [d for group in _round_robin(blocks) for d in group]  # type: ignore[arg-type]


def to_samples(drafts: Sequence[Draft], seed: int, answer_type: str, n_options: int = 4) -> list[Sample]:
    """Samples in the given order; choice drafts get their letters (see the module docstring)."""
    counters: dict[str, int] = defaultdict(int)
    blocks: dict[tuple[str, int], list[int]] = {}
    out = []
    for d in drafts:
        if answer_type != "choice":
            out.append(_sample(d, answer_type, None, d.correct))
            continue
        if len(d.distractors) != n_options - 1:
            raise ValueError(f"{d.id}: needs {n_options - 1} distractors, has {len(d.distractors)}")
        k = counters[d.balance]
        counters[d.balance] += 1
        key = (d.balance, k // n_options)
        if key not in blocks:
            order = list(range(n_options))
            seeded_rng(seed, d.task, "letters", d.balance, k // n_options).shuffle(order)
            blocks[key] = order
        pos = blocks[key][k % n_options]
        others = list(d.distractors)
        seeded_rng(seed, d.id, "distractors").shuffle(others)
        choices = others[:pos] + [d.correct] + others[pos:]
        out.append(_sample(d, answer_type, tuple(choices), pos))
    return out


def _sample(d: Draft, answer_type: str, choices: tuple[str, ...] | None, answer: Any) -> Sample:
    return Sample(
        id=d.id,
        benchmark=BENCHMARK_NAME,
        task=d.task,
        episode=d.video,
        cluster=d.cluster,
        question=d.question,
        answer_type=answer_type,  # type: ignore[arg-type]
        choices=choices,
        answer=answer,
        media=d.media,
        metadata=d.metadata,
        trajectory=d.trajectory,
    )
