"""VSI-Super-Wild's lmms-eval logs (task ``vsi_super_wild`` of ``THUSI-Lab/VSI-Super-Wild``): the line's
``doc`` holds the question, its metric key the harness's verdict (`egoworld import lmms-eval`).

lmms-eval 0.7 drops ``doc`` from the lines it writes and keeps ``doc_id``: the task loads the QA file with
``datasets``' ``json`` loader (``dataset_path: json``, no ``process_docs``), so ``doc_id`` is the 0-based row of
``vsi_super_wild_qa.jsonl``, and `egoworld import vsi-wild-qa` keeps the file's rows in order: row ``n`` is the
benchmark's ``n``-th question. Each such line is checked against the question it lands on (the logged target
is its gold answer, the logged prompt holds its question and options).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME, TASK_ORDER
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.plugin import LoggedQuestion
from egoworld.core.schema import Sample

METRICS = ("vmr_accuracy", "vpo_accuracy", "voo_accuracy", "voc_mra")


class VsiWildLog:
    """The `egoworld.core.plugin.LmmsEvalLog` hook of VSI-Super-Wild."""

    label = "VSI-Super-Wild (vmr/vpo/voo_accuracy, voc_mra)"

    def parse(self, line: dict[str, Any], where: str) -> LoggedQuestion | None:
        metric = next((m for m in METRICS if m in line), None)
        if metric is None and not (isinstance(line.get("overall"), dict) and "task_type" in line["overall"]):
            return None
        score = line[metric] if metric else line["overall"].get("score")
        ref = {"score": score, "metric": metric or "overall"}
        doc = line.get("doc")
        if doc is None:  # lmms-eval ≥ 0.7: named by doc_id, found in --bench (resolve_row)
            return LoggedQuestion({}, "", ref)
        if not isinstance(doc, dict):
            raise InputFileError(f"{where}: field 'doc': the question doc is a JSON object")
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

    #: the benchmark a doc-less log needs (named in the refusal)
    row_source = "the folder `egoworld import vsi-wild-qa vsi_super_wild_qa.jsonl` writes from the QA file the task ran on"

    def resolve_row(self, bench: Benchmark, row: int, line: dict[str, Any], where: str) -> str:
        """The question id of ``doc_id`` ``row``: the row-th question of the whole official QA file."""
        _check_file_order(bench, where, self.row_source)
        if not 0 <= row < len(bench.samples):
            raise InputFileError(
                f"{where}: doc_id {row} is past the {len(bench.samples)} questions of {bench.root}; pass --bench "
                f"with {self.row_source}"
            )
        sample = bench.samples[row]
        problem = _mismatch(sample, line)
        if problem:
            raise InputFileError(
                f"{where}: doc_id {row} is {sample.id!r} in {bench.root}, but {problem}: the log was made from "
                f"another QA file; pass --bench with {self.row_source}"
            )
        return sample.id


def _check_file_order(bench: Benchmark, where: str, fix: str) -> None:
    """Rows map to questions only in a benchmark holding the whole official file in file order."""
    m = bench.manifest
    if m.name != BENCHMARK_NAME:
        raise InputFileError(f"{where}: {bench.root} is a {m.name} benchmark; pass --bench with {fix}")
    importer = (m.builder or {}).get("importer")
    if importer != "vsi-wild-qa" or "review" in (m.source or {}):
        how = (
            "a reviewed subset" if importer == "vsi-wild-qa" else f"built by {importer or 'another builder'}"
        )
        raise InputFileError(
            f"{where}: doc_id is the row of the official QA file, but {bench.root} is {how}, so its rows are not "
            f"the file's; pass --bench with {fix}"
        )


def gold_target(sample: Sample) -> str:
    """The official ``answer`` field of a question (lmms-eval logs it as ``target``): a letter, or the count."""
    if sample.answer_type == "choice":
        return chr(ord("A") + int(sample.answer))  # type: ignore[arg-type]
    return str(sample.answer)


def _mismatch(sample: Sample, line: dict[str, Any]) -> str | None:
    """Why a logged line is not this question (target, question or option text), or None."""
    target = line.get("target")
    if target is not None and str(target).strip() != gold_target(sample):
        return f"the log's target {target!r} is not its answer {gold_target(sample)!r}"
    prompt = line.get("input")
    if isinstance(prompt, str):
        missing = [t for t in (sample.question, *(sample.choices or ())) if t not in prompt]
        if missing:
            return f"the logged prompt does not hold its text {missing[0]!r}"
    return None


LMMS_LOG = VsiWildLog()
