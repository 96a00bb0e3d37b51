"""Predictions to score: from a run folder (EXPLORE's request chains or the standard plan) or from a file made
elsewhere (the official formats ``{start_frame: description}`` / ``{start_frame: [scene_1, …]}``, or the
official inference output, a list of ``{start_frame, response}``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.benchmarks.explore.strategy import Strategy, clean_reply, parse_scene_list, step_labels
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.folders.store import ResponseRow, ResponseStore
from egoworld.core.run_config import STORE_FILE
from egoworld.core.schema import Sample


@dataclass
class Prediction:
    """What a model said for one sample (and epoch): every predicted scene in order, the final one last."""

    status: str  # ok | error | missing | blocked
    scenes: list[str] | None = None
    parsed: bool = False
    rule: str = ""
    raw: str | None = None
    error: str | None = None
    step_ends: list[int] | None = None
    expected_scenes: int | None = None
    cost: dict[str, int] = field(default_factory=dict)

    @property
    def final(self) -> str | None:
        return self.scenes[-1] if self.scenes else None


def _cost(rows: list[ResponseRow | None]) -> dict[str, int]:
    present = [r for r in rows if r is not None]
    return {
        "requests": sum(r.attempts for r in present),
        "ok_requests": sum(r.status == "ok" for r in present),
        "prompt_tokens": sum(r.prompt_tokens or 0 for r in present),
        "completion_tokens": sum(r.completion_tokens or 0 for r in present),
    }


def prediction_from_rows(sample: Sample, strategy: Strategy, rows: list[ResponseRow | None]) -> Prediction:
    """Assemble a sample's prediction from its store rows (one per step label, in order)."""
    n_steps = len(strategy.segments(sample.question))
    ends = strategy.step_ends(sample.question)
    cost = _cost(rows)
    for i, r in enumerate(rows):
        if r is None:
            status = "blocked" if i > 0 else "missing"
            return Prediction(status=status, cost=cost, expected_scenes=n_steps)
        if r.status != "ok":
            return Prediction(status="error", error=r.error, raw=r.raw, cost=cost, expected_scenes=n_steps)
    raws = [r.raw or "" for r in rows if r is not None]
    if strategy.kind == "stepwise" and strategy.turns == "single":
        scenes, rule = parse_scene_list(raws[0])
        if scenes is None:  # scored as one description, like the public code; flagged as unparsed
            return Prediction(
                "ok", [clean_reply(raws[0])], False, "raw-fallback", raws[0], None, None, n_steps, cost
            )
        return Prediction(
            "ok", scenes, True, rule, raws[0], None, ends if len(scenes) == n_steps else None, n_steps, cost
        )
    scenes = [clean_reply(t) for t in raws]
    rule = "one-go" if strategy.kind == "one-go" else "turns"
    return Prediction("ok", scenes, True, rule, raws[-1], None, ends, n_steps, cost)


def predictions_from_run(
    run_dir: Path, samples: list[Sample], strategy: Strategy, epochs: int, generic: bool
) -> dict[tuple[str, int], Prediction]:
    """Predictions of every (sample, epoch) a run planned; ``generic`` runs store one row labelled '-'."""
    with ResponseStore(Path(run_dir) / STORE_FILE, readonly=True) as store:
        planned = {(s, p, e): resp for s, p, e, _k, resp in store.planned()}
    out: dict[tuple[str, int], Prediction] = {}
    for s in samples:
        labels = ["-"] if generic else step_labels(strategy, s.question)
        for epoch in range(epochs):
            rows = [planned.get((s.id, label, epoch)) for label in labels]
            out[(s.id, epoch)] = prediction_from_rows(s, strategy, rows)
    return out


def load_prediction_file(
    path: str | Path, bench: Benchmark
) -> tuple[dict[tuple[str, int], Prediction], dict[str, Any]]:
    """Read a predictions file; keys are start frames (or sample ids). Returns predictions and counts."""
    path = Path(path)
    data = read_json(path)
    if isinstance(data, list):  # official inference output: [{start_frame, response, success}, …]
        try:
            data = {str(d["start_frame"]): d["response"] for d in data}
        except (TypeError, KeyError) as exc:
            raise InputFileError(
                f"{path}: a list must hold objects with 'start_frame' and 'response'"
            ) from exc
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: expected {{start_frame: description or [scene, …]}}")
    by_key: dict[str, Sample] = {}
    for s in bench.samples:
        by_key[s.metadata.get("start_frame", s.id)] = s
        by_key.setdefault(s.id, s)
    preds: dict[tuple[str, int], Prediction] = {}
    unmatched: list[str] = []
    for key, value in data.items():
        s = by_key.get(key)
        if s is None:
            unmatched.append(key)
            continue
        if isinstance(value, str):
            preds[(s.id, 0)] = Prediction("ok", [clean_reply(value)], True, "text", value)
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            preds[(s.id, 0)] = Prediction("ok", [clean_reply(v) for v in value], True, "list", value[-1])
        else:
            raise InputFileError(f"{path}, key {key!r}: expected a description string or a list of strings")
    for s in bench.samples:
        if (s.id, 0) not in preds:
            preds[(s.id, 0)] = Prediction("missing")
    counts = {
        "entries": len(data),
        "matched": len(data) - len(unmatched),
        "unmatched": len(unmatched),
        "unmatched_examples": sorted(unmatched)[:5],
    }
    return preds, counts
