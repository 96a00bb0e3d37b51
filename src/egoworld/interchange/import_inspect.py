"""``egoworld import inspect``: an Inspect eval log (``.eval`` / ``.json``) as a run of an egoworld benchmark.

Each sample of one epoch becomes one response row (its ``output.completion``; a sample with an ``error`` an
``error`` row, never scored), keyed by the question id: ``metadata.egoworld_sample`` (logs from `egoworld
export inspect`), else the sample ``id``, which must name a question of ``--bench``. The log's own score (one
scorer's value, Inspect's ``C``/``I``/``P`` read as 1/0/0.5) goes to ``run/reference.jsonl``, which `egoworld
score` compares with its own score (``reference_agreement``), as for `egoworld import lmms-eval`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.permutations import parse_permutation_id
from egoworld.core.run_config import STORE_FILE
from egoworld.interchange.lmms_eval_log import LogFormat, LogLine, write_run

FORMAT = LogFormat(backend="inspect-log", name="inspect eval log")
#: Inspect's letter grades as numbers (its ``value_to_float``)
_GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


@dataclass
class InspectImport:
    bench: Benchmark
    run: Path
    samples: int
    failed: int
    model: str
    scorer: str | None


def _read(log: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ValueError(
            "egoworld import inspect reads logs with inspect-ai: pip install 'egoworld[export]'"
        ) from None
    if log.suffix not in (".eval", ".json") or not log.is_file():
        raise InputFileError(
            f"{log}: not an Inspect log file (.eval or .json); pass the file `inspect eval` wrote"
        )
    try:
        return read_eval_log(str(log))
    except Exception as exc:  # Inspect raises many kinds for a file it cannot read
        raise InputFileError(
            f"{log}: Inspect cannot read it ({exc}); pass a log written by inspect eval"
        ) from None


def _bench_for(log: Path, spec: Any, bench: Path | None) -> Benchmark:
    """``--bench``, else the benchmark an egoworld export names (when it is still there, unchanged)."""
    if bench is not None:
        return load_benchmark(bench)
    run = (spec.metadata or {}).get("egoworld_run") or {}
    path = run.get("benchmark_path")
    if not path or not Path(path).is_dir():
        raise InputFileError(
            f"{log}: pass --bench with the benchmark the log's questions come from (sample ids name its questions)"
        )
    found = load_benchmark(path)
    if found.hash != run.get("benchmark_hash"):
        raise InputFileError(
            f"{log}: exported from benchmark {run.get('benchmark_hash')}, but {path} is now {found.hash}; "
            "pass --bench with the benchmark the log was exported from"
        )
    return found


def _score_value(value: Any) -> float | None:
    """A score as a number: numbers, booleans and Inspect's letter grades; else None (not comparable)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return _GRADES.get(value.strip().upper())
    return None


def _pick_scorer(samples: list[Any], scorer: str | None, log: Path) -> str | None:
    names = sorted({n for s in samples for n in (s.scores or {})})
    if scorer is None:
        return names[0] if names else None
    if scorer not in names:
        raise InputFileError(f"{log}: no scorer {scorer!r} in the log (it has: {', '.join(names) or 'none'})")
    return scorer


def _question_id(sample: Any, where: str) -> str:
    """The egoworld question of an Inspect sample; refuses a sample shown in another option order."""
    meta = sample.metadata or {}
    if "egoworld_sample" not in meta:
        return str(sample.id)
    sid, order = str(meta["egoworld_sample"]), str(meta.get("permutation") or "-")
    if order != "-":
        perm = parse_permutation_id(order)
        if perm is not None and list(perm) != sorted(perm):
            raise InputFileError(
                f"{where}: shown in option order {order}; egoworld import inspect reads runs without option "
                "orders (export the run with --permutations none)"
            )
    return sid


def _line(n: int, sample: Any, sid: str, scorer: str | None) -> LogLine:
    reply = sample.output.completion if sample.output is not None else ""
    error = f"Inspect logged an error: {sample.error.message}" if sample.error is not None else None
    score = (sample.scores or {}).get(scorer) if scorer else None
    ref: dict[str, Any] = {"score": _score_value(score.value) if score is not None else None}
    if score is not None:
        ref["scorer"], ref["answer"] = scorer, score.answer
    prompt = sample.input if isinstance(sample.input, str) else None
    if prompt is None and sample.input:
        prompt = "\n".join(m.text for m in sample.input if getattr(m, "role", "") == "user")
    return LogLine(n, "inspect", {}, sid, prompt, reply or "", ref, error=error)


def import_inspect_log(
    log: str | Path,
    out: str | Path,
    *,
    bench: str | Path | None = None,
    model: str | None = None,
    epoch: int = 1,
    scorer: str | None = None,
) -> InspectImport:
    """Write ``out/run`` from one epoch of an Inspect log attached to ``bench``."""
    log, out = Path(log), Path(out)
    if (out / "run" / STORE_FILE).exists():
        raise InputFileError(f"{out / 'run'}: holds a run already; import into a new --out folder")
    eval_log = _read(log)
    b = _bench_for(log, eval_log.eval, Path(bench) if bench is not None else None)
    samples = [s for s in eval_log.samples or [] if s.epoch == epoch]
    if not samples:
        epochs = sorted({s.epoch for s in eval_log.samples or []})
        raise InputFileError(
            f"{log}: no samples of epoch {epoch} (the log holds epochs {epochs}); pass --epoch"
        )
    chosen = _pick_scorer(samples, scorer, log)
    lines, seen = [], set()
    known = {s.id for s in b.samples}
    for n, sample in enumerate(samples, start=1):
        where = f"{log}, sample {sample.id!r}"
        sid = _question_id(sample, where)
        if sid not in known:
            raise InputFileError(
                f"{where}: question {sid!r} is not in {b.root}; pass the benchmark the log ran on"
            )
        if sid in seen:
            raise InputFileError(f"{where}: question {sid!r} appears twice in epoch {epoch}; import one pass")
        seen.add(sid)
        lines.append(_line(n, sample, sid, chosen))
    name = model or eval_log.eval.model
    inputs = {"setting": "as logged", "source": "inspect log"}
    write_run(out / "run", b, lines, log, name, inputs, FORMAT)
    failed = sum(ln.failed for ln in lines)
    return InspectImport(b, out / "run", len(lines), failed, name, chosen)
