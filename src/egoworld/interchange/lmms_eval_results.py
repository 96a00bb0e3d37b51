"""Check lmms-eval's own result files after a run of an exported task: lmms-eval can exit 0 when its
evaluation failed (no ``<time>_results.json``, a task missing from it, a metric that is not a number, fewer
samples than the task has), so the exit code alone says nothing.

The results file (lm-evaluation-harness layout, as lmms-eval 0.7 writes it under ``--output_path``):
``{"results": {task: {"<metric>,<filter>": value, "<metric>_stderr,<filter>": …, "alias": …}},
"n-samples": {task: {"original": N, "effective": n}}, "configs": {…}, …}``; beside it the
``<time>_samples_<task>.jsonl`` log holds one line per scored sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_input_text, read_json_object

#: the metric the exported task's ``process_results`` returns (`egoworld.interchange.export_lmms_eval`)
METRIC = "egoworld_score"


@dataclass(frozen=True)
class LmmsEvalResult:
    """What lmms-eval recorded for one task: its score (0–1), the samples it scored, and the files."""

    task: str
    score: float
    samples: int
    results_file: Path
    samples_log: Path | None


def find_results(output_path: str | Path) -> Path:
    """The newest ``*_results.json`` under ``output_path`` (lmms-eval nests it in a folder per model)."""
    root = Path(output_path)
    found = sorted(root.rglob("*_results.json"), key=lambda p: p.name) if root.is_dir() else []
    if not found:
        raise InputFileError(
            f"{root}: lmms-eval wrote no *_results.json — its evaluation failed even if it exited 0; read its "
            "log (stderr) for the error and run it again"
        )
    return found[-1]


def check_results(output_path: str | Path, task: str, expected: int, metric: str = METRIC) -> LmmsEvalResult:
    """lmms-eval's results for ``task`` under ``output_path``: refused, naming the file and the field, when
    the task or its metric is absent or not a finite number, or fewer than ``expected`` samples were scored."""
    path = find_results(output_path)
    doc = read_json_object(path, " (lmms-eval results)")
    fix = "lmms-eval did not finish the evaluation; read its log and run it again"
    results = doc.get("results")
    if not isinstance(results, dict) or task not in results:
        raise InputFileError(f"{path}, field 'results': no entry for task {task!r}; {fix}")
    entry = results[task]
    key = next((k for k in entry if k.split(",")[0] == metric), None) if isinstance(entry, dict) else None
    value: Any = entry.get(key) if key else None
    if (
        key is None
        or isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
    ):
        raise InputFileError(
            f"{path}, field 'results.{task}.{key or metric}': {value!r} is not a score (expected a number "
            f"from 0 to 1); {fix}"
        )
    counts = (doc.get("n-samples") or {}).get(task) or {}
    n = counts.get("effective", counts.get("original"))
    if not isinstance(n, int) or n != expected:
        raise InputFileError(
            f"{path}, field 'n-samples.{task}.effective': {n!r} samples scored, but the task has {expected}; "
            f"{fix}"
        )
    log = _samples_log(path, task)
    if log is not None:
        lines = [ln for ln in read_input_text(log, "lmms-eval samples log").splitlines() if ln.strip()]
        if len(lines) != expected:
            raise InputFileError(f"{log}: {len(lines)} logged samples, but the task has {expected}; {fix}")
    return LmmsEvalResult(task, float(value), n, path, log)


def _samples_log(results: Path, task: str) -> Path | None:
    stamp = results.name.removesuffix("_results.json")
    log = results.parent / f"{stamp}_samples_{task}.jsonl"
    return log if log.exists() else None
