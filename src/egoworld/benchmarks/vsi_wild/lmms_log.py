"""VSI-Super-Wild's lmms-eval logs (task ``vsi_super_wild`` of ``THUSI-Lab/VSI-Super-Wild``): the line's
``doc`` holds the question, its metric key the harness's verdict (`egoworld import lmms-eval`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME, TASK_ORDER
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.plugin import LoggedQuestion

METRICS = ("vmr_accuracy", "vpo_accuracy", "voo_accuracy", "voc_mra")


class VsiWildLog:
    """The `egoworld.core.plugin.LmmsEvalLog` hook of VSI-Super-Wild."""

    label = "VSI-Super-Wild (vmr/vpo/voo_accuracy, voc_mra)"

    def parse(self, line: dict[str, Any], where: str) -> LoggedQuestion | None:
        metric = next((m for m in METRICS if m in line), None)
        if metric is None and not (isinstance(line.get("overall"), dict) and "task_type" in line["overall"]):
            return None
        doc = line.get("doc")
        if not isinstance(doc, dict):
            raise InputFileError(
                f"{where}: field 'doc': this VSI-Super-Wild line does not embed its question doc; pass "
                "--bench with the imported official questions (egoworld import vsi-wild-qa)"
            )
        score = line[metric] if metric else line["overall"].get("score")
        ref = {"score": score, "metric": metric or "overall"}
        sid = doc.get("doc_id")
        if sid in (None, ""):
            raise InputFileError(f"{where}: field 'doc.doc_id': the official question id is missing")
        return LoggedQuestion(doc, str(sid), ref)

    def benchmark(
        self, docs: Sequence[tuple[dict[str, Any], str]], out: Path, source: dict[str, Any]
    ) -> Benchmark:
        from egoworld.benchmarks.vsi_wild.importer import TASKS, row_to_sample

        samples = [row_to_sample(doc, where) for doc, where in docs]
        present = [t for t in TASK_ORDER if any(s.task == t for s in samples)]
        return save_benchmark(
            out, name=BENCHMARK_NAME, tasks={t: TASKS[t] for t in present}, samples=samples,
            builder={"importer": "lmms-eval", "task": "vsi_super_wild"}, source=source,
            description="VSI-Super-Wild questions embedded in an lmms-eval log",
        )  # fmt: skip

    def logged_scoring(self, docs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return []


LMMS_LOG = VsiWildLog()
