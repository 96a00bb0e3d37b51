"""What an exported lmms-eval task's ``utils.py`` calls: egoworld's own prompt, media and scoring for a doc.

A doc is one benchmark question in its file order of options (lmms-eval has no option orders or epochs); its
``id`` names the sample in the benchmark copy inside the task folder.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.store import ResponseRow
from egoworld.core.model import ImagePart
from egoworld.core.permutations import permutation_id
from egoworld.core.plugin import plugin_for
from egoworld.core.schema import Sample
from egoworld.runner.inputs import InputSettings, MediaInputs, open_inputs

#: the metric an exported task reports (the question's score, 0–1, as `egoworld score` computes it)
METRIC = "egoworld_score"


class TaskBridge:
    """Prompt text, images, gold reply and score of lmms-eval docs, by egoworld's code."""

    def __init__(self, bench_dir: str | Path, media: dict[str, Any]):
        self.bench: Benchmark = load_benchmark(bench_dir)
        self.prompt = plugin_for(self.bench.name).prompt
        self.settings = InputSettings(**media)
        self._inputs: MediaInputs | None = None

    def sample(self, doc: dict[str, Any]) -> Sample:
        return self.bench.sample(str(doc["id"]))

    def text(self, doc: dict[str, Any]) -> str:
        s = self.sample(doc)
        return self.prompt.question_text(s, self.prompt.presented_choices(s, None))

    def target(self, doc: dict[str, Any]) -> str:
        return self.prompt.gold_reply(self.sample(doc), None) or ""

    def visual(self, doc: dict[str, Any]) -> list[Any]:
        """The sample's images (PIL) as `egoworld run` would send them in this task's setting."""
        if self.settings.setting == "text":
            return []
        from PIL import Image

        if self._inputs is None:
            self._inputs = open_inputs(self.bench, self.settings)
        parts = self._inputs.parts(self.bench, self.sample(doc))
        return [Image.open(io.BytesIO(p.load())).convert("RGB") for p in parts if isinstance(p, ImagePart)]

    def score_row(self, doc: dict[str, Any], reply: str) -> dict[str, Any]:
        """The ``scores.jsonl`` row `egoworld score` writes for this reply."""
        from egoworld.scoring.score import score_row

        s = self.sample(doc)
        pid = permutation_id(None)
        resp = ResponseRow(
            key="lmms-eval",
            sample_id=s.id,
            permutation=pid,
            epoch=0,
            status="ok",
            raw=reply,
            reasoning=None,
            error=None,
            latency_s=None,
            prompt_tokens=None,
            completion_tokens=None,
            finish_reason=None,
            served_model=None,
            attempts=1,
        )
        return score_row(s, pid, 0, resp, self.bench.manifest.tasks[s.task].metric)

    def process_results(self, doc: dict[str, Any], results: list[str]) -> dict[str, float]:
        row = self.score_row(doc, results[0] if results else "")
        return {METRIC: float(row["score"] or 0.0)}
