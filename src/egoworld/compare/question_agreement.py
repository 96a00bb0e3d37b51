"""Question agreement: do the questions built from a perceived world have the gold the truth gives them?

VSI-Super-Wild: both worlds pass the builder's visibility rule (`vsi_wild.build.seen_rule`: the same
minimum size and duration for truth and perceived instances, by default `config.ANNOTATOR`: 64 px², 1 s;
what it left out, per side, is in each task's ``visibility``); every candidate question of the builder's own
task rules (`vsi_wild.vmr`, `vpo`, `voo`, `voc`, before selection and letter balance) is made from both
worlds. A question's anchor is its view video and moment (VMR), query frames (VPO), category set and kind
(VOO), category (VOC); `answer_on` answers an anchor on either world:

* VMR: the motion angle at the moment in that world's poses (no steadiness rule), the nearest option of
  the question's own set; unanswerable where the world's pose self-check (or ``world fix``) marked a span
  the moment's window meets.
* VOC: the world's unique count of the category in the view (0 when it never saw one).
* VOO: the world's order of the four categories' first / last appearances; unanswerable when it never saw
  one of them in that view.
* VPO: the capture order, when the four frames lie in four different places of that world whose visits
  follow the capture order (the capture order itself is exact); unanswerable otherwise.

Per task:

* ``agreement``: over the truth world's questions (what a benchmark built on the truth asks), each asked of
  the perceived world: the share it answers with the truth's gold. One it cannot answer counts against.
* ``coverage``: the share of the truth's questions the perceived world can answer; ``agreement_answered``:
  the share with the truth's gold among those (``agreement = coverage × agreement_answered``).
* ``count_mra`` (VOC): the mean MRA of the perceived world's count against the truth's gold over the truth's
  questions; ``count_mra_perceived``: the same over the perceived world's questions.
* ``agreement_perceived``: the other direction, of the perceived world's own questions (what a benchmark
  built on the perceived world asks), those whose gold the truth gives to the same anchor. One the truth
  cannot answer (a VOO category the truth never shows in that view) is a disagreement, counted in
  ``unanswerable``.
* ``matched`` / ``agreement_matched``: questions both builds made (same id, so the same anchor) and the
  share with equal gold; ``unmatched_perceived`` / ``unmatched_truth``: those without a twin. A perspective
  walk (one view of a phone's video) is compared on that view only, and without VPO.
* ``doubt_catch``: the perceived questions ordered most-doubtful first (``metadata["doubt"]``,
  `vsi_wild.build.doubt`): how many of the wrong golds (``agreement_perceived``'s disagreements) the first
  10 % and 20 % of that order hold — what a reviewer who follows the order finds first.

Beyond3D: both worlds are built with `build_beyond3d`; samples are matched by id (anchor: episode, object,
query time, type) and question text (an object–object question of the same anchor may name another visible
reference object: counted apart, ``same_anchor_other_question``) and their gold option text compared. A
Beyond3D question is not re-answered on the other world, so there ``agreement`` is over the truth's
questions with a truth question the perceived build does not ask counting against, ``coverage`` is
``matched / truth`` and ``agreement_answered`` equals ``agreement_matched``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.benchmarks.vsi_wild import TASK_ORDER
from egoworld.benchmarks.vsi_wild.build import seen_rule, vmr, voc, voo
from egoworld.benchmarks.vsi_wild.build.builder import view_drafts
from egoworld.benchmarks.vsi_wild.build.config import ANNOTATOR, BuildConfig, VMRRules
from egoworld.benchmarks.vsi_wild.build.doubt import caught
from egoworld.benchmarks.vsi_wild.build.drafts import Draft
from egoworld.core.folders.files import InputFileError
from egoworld.metrics.mra import mra_linear
from egoworld.world.walk_source import WalkSource, load_source

#: VMR re-answered on the truth: the angle at the moment with no steadiness rule (every moment gets one)
ANY_MOTION = VMRRules(min_speed_m_s=0.0, max_turn_deg=1e9, max_off_deg=180.0)


@dataclass
class TaskAgreement:
    """One task's counts: questions per world; the truth's asked of the perceived world (``answered``, with
    the truth's gold: ``truth_equal``); matched (same id) and equal gold among them (``matched_equal``); the
    perceived re-answered on the truth (equal: ``equal``); count MRAs of truth / perceived questions."""

    perceived: int = 0
    truth: int = 0
    answered: int = 0
    truth_equal: int = 0
    matched: int = 0
    matched_equal: int = 0
    equal: int = 0
    unanswerable: int = 0
    mra_truth: list[float] = field(default_factory=list)
    mra: list[float] = field(default_factory=list)
    doubts: list[tuple[str, float | None, bool]] = field(default_factory=list)  # (id, doubt, gold wrong)

    def to_json(self) -> dict[str, Any]:
        def share(a: int, b: int) -> float | None:
            return a / b if b else None

        out: dict[str, Any] = {
            "perceived": self.perceived,
            "truth": self.truth,
            "matched": self.matched,
            "agreement": share(self.truth_equal, self.truth),
            "coverage": share(self.answered, self.truth),
            "agreement_answered": share(self.truth_equal, self.answered),
            "agreement_matched": share(self.matched_equal, self.matched),
            "agreement_perceived": share(self.equal, self.perceived),
            "unanswerable": self.unanswerable,
            "unmatched_perceived": self.perceived - self.matched,
            "unmatched_truth": self.truth - self.matched,
        }
        if self.mra_truth:
            out["count_mra"] = float(np.mean(self.mra_truth))
        if self.mra:
            out["count_mra_perceived"] = float(np.mean(self.mra))
        if self.doubts:
            out["doubt_catch"] = caught(self.doubts)
        return out


def walk_drafts(
    src: WalkSource, task: str, cfg: BuildConfig, views: Sequence[str] | None = None
) -> list[Draft]:
    """The builder's candidate questions of one task over the walk's view videos (those of ``views`` only)."""
    return [
        d
        for v in src.views
        if views is None or v in views
        for d in view_drafts(task, src, v, f"videos/{src.video_id(v)}.mp4", cfg)
    ]


def _vpo_valid(d: Draft, world: WalkSource) -> bool:
    """The four frames are four different places of ``world`` whose visits follow their capture order."""
    md = d.metadata
    order = np.argsort(md["capture_s"])
    places = []
    for k in order:
        t = md["capture_s"][k]
        places.append(next((v.place for v in world.visits if v.start_s <= t < v.end_s), None))
    if None in places or len(set(places)) < 4:
        return False
    spans = {p: [v for v in world.visits if v.place == p] for p in places}
    first = [min(v.start_s for v in spans[p]) for p in places]
    last = [max(v.end_s for v in spans[p]) for p in places]
    return all(last[i] <= first[i + 1] + 1e-6 for i in range(3))


def answer_on(task: str, d: Draft, world: WalkSource, cfg: BuildConfig) -> Any:
    """``world``'s answer to the anchor of a question built from the other world (None: it cannot answer;
    the rules are in the module docstring)."""
    md = d.metadata
    view = md["view"]
    if view not in world.views:
        return None
    if task == "VMR":
        t, w = float(md["moment_s"]), vmr.window_s(world, cfg.vmr)
        if any(a <= t + w and t - w <= b for a, b, _why in vmr.untrusted(world)):
            return None
        got = vmr.analyse(world, world.views[view], np.array([t]), ANY_MOTION)[0]
        assert got is not None
        centres = vmr.CARDINAL if md["option_set"] == "cardinal" else vmr.DIAGONAL
        return min(centres, key=lambda c: abs(float(vmr.wrap(got.angle_deg - centres[c]))))
    if task == "VOC":
        return voc.unique_counts(world, view).get(md["category"], 0)
    if task == "VOO":
        ev = voo.events(world, view, md["order_by"], cfg.frames)
        if any(c not in ev for c in md["objects"]):
            return None
        return voo.ARROW.join(sorted(md["objects"], key=lambda c: (ev[c][0], c)))
    return d.correct if _vpo_valid(d, world) else None


def walk_agreement(pairs: Sequence[tuple[Path, Path]], cfg: BuildConfig | None = None) -> dict[str, dict]:
    """Per task the figures of the module docstring, over ``(perceived, truth)`` walk episode folders."""
    cfg = cfg or BuildConfig(visibility=ANNOTATOR)
    tasks = {t: TaskAgreement() for t in TASK_ORDER}
    seen: dict[str, int] = {}
    for pfolder, tfolder in pairs:
        (ps, pt), (ts, tt) = (seen_rule.apply(load_source(f), cfg.visibility) for f in (pfolder, tfolder))
        for side, tally in (("perceived", pt), ("truth", tt)):
            for k, n in tally.items():
                seen[f"{side}_{k}"] = seen.get(f"{side}_{k}", 0) + n
        for task, agg in tasks.items():
            mine = {d.id: d for d in walk_drafts(ps, task, cfg)}
            # a perspective walk is compared on its own view(s), without VPO (it needs the panorama)
            shown = None if ps.panoramic else ([] if task == "VPO" else list(ps.views))
            theirs = {d.id: d for d in walk_drafts(ts, task, cfg, shown)}
            agg.perceived += len(mine)
            agg.truth += len(theirs)
            for d in theirs.values():  # the truth's questions, asked of the perceived world
                answer = answer_on(task, d, ps, cfg)
                agg.answered += answer is not None
                agg.truth_equal += answer is not None and answer == d.correct
                if task == "VOC":
                    agg.mra_truth.append(mra_linear(answer, d.correct))
            for key, d in mine.items():
                answer = answer_on(task, d, ts, cfg)
                agg.unanswerable += answer is None
                agg.equal += answer == d.correct
                agg.doubts.append((key, d.metadata.get("doubt"), answer != d.correct))
                if task == "VOC":
                    agg.mra.append(mra_linear(d.correct, answer))
                if key in theirs:
                    agg.matched += 1
                    same = task == "VPO" or theirs[key].correct == d.correct  # VPO: both valid, same frames
                    agg.matched_equal += same
    out = {t: a.to_json() for t, a in tasks.items()}
    for row in out.values():
        row["visibility"] = seen
    return out


def _gold(sample: Any) -> Any:
    return sample.choices[sample.answer] if sample.choices else sample.answer


def beyond3d_agreement(
    perceived: Sequence[Path], truth: Sequence[Path], anchors: int = 1000
) -> tuple[dict[str, dict], dict[str, str]]:
    """Per Beyond3D type: questions built from each world, matched by id, and the share of equal gold; and
    why a world gave no questions (``{"perceived" | "truth": reason}``)."""
    from egoworld.benchmarks.beyond3d.build.builder import build_beyond3d
    from egoworld.benchmarks.beyond3d.build.common import BuildConfig as B3DConfig

    cfg = B3DConfig(anchors=anchors, controls=anchors)
    notes: dict[str, str] = {}

    def built(worlds: Sequence[Path], out: Path, role: str) -> list:
        try:
            return list(build_beyond3d(list(worlds), out, cfg).bench.samples)
        except InputFileError as exc:  # a world that yields no question: zero questions, said
            notes[role] = str(exc)
            return []

    with tempfile.TemporaryDirectory() as tmp:
        p = built(perceived, Path(tmp) / "perceived", "perceived")
        t = built(truth, Path(tmp) / "truth", "truth")
    return beyond3d_sample_agreement(p, t), notes


def beyond3d_sample_agreement(perceived: Sequence[Any], truth: Sequence[Any]) -> dict[str, dict]:
    """Per Beyond3D type (truth's types first), built samples of the two worlds matched by id and question
    text: the `TaskAgreement` figures (no re-answered ``agreement_perceived``), and the
    ``same_anchor_other_question`` count (same id, another question)."""
    theirs = {s.id: s for s in truth}
    out: dict[str, dict] = {}
    for task in dict.fromkeys([s.task for s in truth] + [s.task for s in perceived]):
        agg = TaskAgreement()
        mine = [s for s in perceived if s.task == task]
        agg.perceived, agg.truth = len(mine), sum(s.task == task for s in truth)
        other_question = 0
        for s in mine:
            other = theirs.get(s.id)
            if other is not None and other.question != s.question:
                other_question += 1  # same anchor, another question (another visible reference object)
            elif other is not None:
                agg.matched += 1
                agg.matched_equal += _gold(other) == _gold(s)
        agg.answered, agg.truth_equal = agg.matched, agg.matched_equal  # not re-answered: asked = built both
        row = agg.to_json() | {"same_anchor_other_question": other_question}
        for key in ("agreement_perceived", "unanswerable"):  # Beyond3D: not re-answered on the truth
            row.pop(key)
        out[task] = row
    return out
