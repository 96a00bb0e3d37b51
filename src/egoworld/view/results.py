"""A run's per-question results as the viewer holds them: four columns read from the run's index in one
query (sample, score, verdict, first prediction as JSON), a `QuestionResult` made for a question when a
page asks for it, its scored rows read from the index when first needed.

Each question of each run has one result: its score (mean over orders and epochs), its verdict
(``correct`` / ``wrong`` / ``unparsed`` / ``error``) and the predicted option of its first answered row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any


class QuestionResult:
    """One question in one run: score, verdict and first prediction at hand; its scored rows read from the
    run's index when first asked for (``loader``) or given."""

    def __init__(
        self,
        rows: list[dict[str, Any]] | None = None,
        *,
        loader: Callable[[], list[dict[str, Any]]] | None = None,
    ):
        self._rows = rows
        self._loader = loader
        self.score: float | None = None
        self.verdict = "error"
        self.pred: Any = None
        if rows is not None:
            self.score, self.verdict, self.pred = summarise(rows)

    @property
    def rows(self) -> list[dict[str, Any]]:
        if self._rows is None:
            self._rows = self._loader() if self._loader is not None else []
        return self._rows


def summarise(rows: list[dict[str, Any]]) -> tuple[float | None, str, Any]:
    """(score, verdict, first prediction) of a question's scored rows: the mean score over orders and
    epochs; ``correct`` / ``wrong`` / ``unparsed`` / ``error``; the prediction of the first answered row."""
    answered = [r for r in rows if r.get("score") is not None]
    if not answered:
        return None, "error", None
    score = sum(float(r["score"]) for r in answered) / len(answered)
    pred = answered[0].get("pred")
    if not any(r.get("parsed", True) for r in answered):
        return score, "unparsed", pred
    scale = 100.0 if score > 1.0 else 1.0  # judge-scored benchmarks report 0–100
    return score, "correct" if score >= scale - 1e-9 else "wrong", pred


class RunResults(Mapping[str, QuestionResult]):
    """Sample id → `QuestionResult` of one run, in ``scores.jsonl`` order, over the columns of its index;
    `answered`, `scores` and `pred_texts` read the columns without making a result per question."""

    def __init__(self, columns: list[tuple[str, float | None, str, str | None]], rows: Callable[[str], Any]):
        self._ids = [c[0] for c in columns]
        self._cols = columns
        self._pos = dict(zip(self._ids, range(len(self._ids)), strict=True))
        self._rows = rows
        self._made: dict[str, QuestionResult] = {}

    def __getitem__(self, sample_id: str) -> QuestionResult:
        got = self._made.get(sample_id)
        if got is None:
            _, score, verdict, pred = self._cols[self._pos[sample_id]]
            got = QuestionResult(loader=lambda: self._rows(sample_id))
            got.score, got.verdict = score, verdict
            got.pred = None if pred is None else json.loads(pred)
            self._made[sample_id] = got
        return got

    def __contains__(self, sample_id: object) -> bool:
        return sample_id in self._pos

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def score_of(self, sample_id: str) -> float | None:
        """The question's score (None: not answered or not in this run), read from the columns."""
        k = self._pos.get(sample_id)
        return None if k is None else self._cols[k][1]

    def verdict_of(self, sample_id: str) -> str | None:
        """The question's verdict (None: not in this run), read from the columns."""
        k = self._pos.get(sample_id)
        return None if k is None else self._cols[k][2]

    def answered(self) -> set[str]:
        """The questions with a score."""
        return {sid for sid, score, _, _ in self._cols if score is not None}

    def scores(self) -> Iterator[float | None]:
        return (score for _, score, _, _ in self._cols)

    def pred_texts(self) -> Iterator[tuple[str, str | None]]:
        """(sample, first prediction as JSON text) of the answered questions: equal texts, equal answers."""
        return ((sid, pred) for sid, score, _, pred in self._cols if score is not None)


def load_run_results(run_dir: Path) -> RunResults:
    """Each question's result of a run, from its index (`egoworld.view.run_index`; built or rebuilt first when
    ``scores.jsonl`` is new or changed); rows are read when a page asks for them."""
    from egoworld.view.run_index import RunIndex

    index = RunIndex(run_dir, summarise)
    return RunResults(index.columns(), index.rows)
