"""Import an lmms-eval ``--log_samples`` file: a benchmark folder and a run folder holding the logged replies.

Supported tasks: those of the benchmarks whose plug-in reads its official harness's logs (the
``lmms_eval_log`` hook, `egoworld.core.plugin.LmmsEvalLog`: Beyond3D ``oos_videoqa``, VSI-Super-Wild
``vsi_super_wild``), and tasks written by `egoworld export
lmms-eval` (metric ``egoworld_score``; lmms-eval 0.7 logs only ``doc_id``, the row of the task's
``docs.jsonl``, which names the sample of the benchmark the task was exported from). Each line becomes one
``ok`` response row keyed like a request of `egoworld run` (the logged prompt is kept as the request); the log's own verdict
goes to ``run/reference.jsonl``, which `egoworld score` compares with its own score
(``reference_score`` per row, ``reference_agreement`` in ``scores.json``).

lmms-eval ≥ 0.7 drops ``doc`` from every line it writes: a reader whose ``parse`` returns a question with an
empty ``sample_id`` names it by ``doc_id`` only, and its optional ``resolve_row(bench, row, line, where)``
finds the question in ``--bench`` (VSI-Super-Wild: the row of the official QA file). Replies the harness
logged for a request that failed (``[LMMS_EVAL_REQUEST_FAILED …]``: lmms-eval still exits 0) become
``error`` rows, never scored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.core import registry
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, iter_jsonl, read_json, write_json, write_jsonl
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.store import ResponseStore
from egoworld.core.keys import request_key
from egoworld.core.model import Message, TextPart
from egoworld.core.permutations import permutation_id
from egoworld.core.plan import plan_items
from egoworld.core.plugin import LmmsEvalLog, plugin_for
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE
from egoworld.core.schema import Sample
from egoworld.interchange.export_lmms_eval import BENCH_DIR, DOCS, EXPORT_INFO
from egoworld.interchange.lmms_eval_bridge import METRIC

REFERENCE_FILE = "reference.jsonl"
EGOWORLD = "egoworld"
#: how lmms-eval's API models log a request that failed after their retries (the run still exits 0)
FAILED_PREFIX = "[LMMS_EVAL_REQUEST_FAILED"


@dataclass
class LogLine:
    """One logged question: its doc, the prompt, the reply and the harness's verdict."""

    lineno: int
    kind: str  #: the benchmark whose harness wrote the line, or ``egoworld`` (`egoworld export lmms-eval`)
    doc: dict[str, Any]
    sample_id: str
    prompt: str | None
    reply: str
    reference: dict[str, Any] = field(default_factory=dict)
    #: the line's ``doc_id`` when the line names its question by row only (lmms-eval ≥ 0.7 drops ``doc``)
    row: int | None = None
    #: the line as logged, for a reader's ``resolve_row``
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    #: the harness's own record of a failed request (Inspect's sample error), if any
    error: str | None = None

    @property
    def failed(self) -> bool:
        """The harness logged a failed request instead of a reply."""
        return self.error is not None or self.reply.lstrip().startswith(FAILED_PREFIX)

    def failure(self) -> str:
        """What the harness logged for a failed request."""
        return self.error or f"lmms-eval logged a failed request: {self.reply.strip()}"


def _reply(line: dict[str, Any], where: str) -> str:
    """``filtered_resps`` (a string, or lmms-eval's list of them), else ``resps``."""
    value = line.get("filtered_resps", line.get("resps"))
    while isinstance(value, list) and value:
        value = value[0]
    if value is None or isinstance(value, list):
        raise InputFileError(f"{where}: field 'filtered_resps': no reply logged")
    return str(value)


def log_readers() -> dict[str, LmmsEvalLog]:
    """The benchmarks whose plug-in reads lmms-eval logs, by name (sorted)."""
    plugins = (plugin_for(name) for name in registry.names(registry.BENCHMARKS))
    return {p.name: p.lmms_eval_log for p in plugins if p.lmms_eval_log is not None}


def parse_line(line: Any, where: str) -> LogLine:
    """Recognise the task of one log line and pull out doc, prompt, reply and verdict."""
    if not isinstance(line, dict):
        raise InputFileError(f"{where}: a log line is a JSON object")
    tail = where.rsplit(" ", 1)[-1]
    lineno = int(tail) if tail.isdigit() else 0
    prompt = line.get("input") if isinstance(line.get("input"), str) else None
    if METRIC in line:
        doc = line.get("doc") if isinstance(line.get("doc"), dict) else {}
        if doc.get("id") in (None, "") and not isinstance(line.get("doc_id"), int):
            raise InputFileError(
                f"{where}: field 'doc_id': an integer row of the task's docs.jsonl is expected"
            )
        ref = {"score": line[METRIC], "target": line.get("target")}
        sid = str(doc["id"]) if doc.get("id") not in (None, "") else ""
        doc = {"doc_id": line.get("doc_id"), "id": sid}
        return LogLine(
            lineno, EGOWORLD, doc, sid or f"doc_id {line['doc_id']}", prompt, _reply(line, where), ref
        )
    readers = log_readers()
    for name, reader in readers.items():
        found = reader.parse(line, where)
        if found is None:
            continue
        reply = _reply(line, where)
        if found.sample_id:
            return LogLine(lineno, name, found.doc, found.sample_id, prompt, reply, found.reference)
        row = line.get("doc_id")
        if not isinstance(row, int) or isinstance(row, bool):
            raise InputFileError(
                f"{where}: field 'doc_id': the line has no doc, an integer doc_id is expected"
            )
        sid = f"doc_id {row}"
        return LogLine(lineno, name, {}, sid, prompt, reply, found.reference, row=row, raw=line)
    labels = ", ".join(r.label for r in readers.values())
    raise InputFileError(
        f"{where}: not a {labels} or egoworld export ({METRIC}) log line; pass a --log_samples file of one of "
        "those tasks"
    )


def _rows(path: Path) -> list[tuple[int, Any]]:
    """JSONL (lmms-eval ≥ 0.2), or the older ``*_samples_<task>.json`` holding ``{"logs": [...]}``."""
    if path.suffix == ".json":
        doc = read_json(path)
        logs = doc.get("logs") if isinstance(doc, dict) else doc
        if not isinstance(logs, list):
            raise InputFileError(f"{path}: field 'logs': expected the list of logged samples")
        return list(enumerate(logs, start=1))
    return list(iter_jsonl(path))


def read_log(path: str | Path) -> list[LogLine]:
    path = Path(path)
    where = "entry" if path.suffix == ".json" else "line"
    lines = [parse_line(row, f"{path}, {where} {n}") for n, row in _rows(path)]
    if not lines:
        raise InputFileError(f"{path}: no logged samples")
    kinds = {ln.kind for ln in lines}
    if len(kinds) > 1:
        raise InputFileError(f"{path}: mixes tasks {sorted(kinds)}; import one task's log at a time")
    seen: dict[str, int] = {}
    for ln in lines:
        if ln.sample_id in seen:
            raise InputFileError(
                f"{path}, line {ln.lineno}: question {ln.sample_id!r} was already logged on line "
                f"{seen[ln.sample_id]}; import one pass (repeats of lmms-eval --repeats are not supported)"
            )
        seen[ln.sample_id] = ln.lineno
    return lines


def _bench_from_docs(lines: list[LogLine], out: Path, log: Path) -> Benchmark:
    """A benchmark folder from the docs the log embeds (text only: the log names no local videos)."""
    source = {"file": log.name, "sha256": sha256_file(log), "origin": "lmms-eval --log_samples"}
    docs = [(ln.doc, f"{log}, line {ln.lineno}") for ln in lines]
    return log_readers()[lines[0].kind].benchmark(docs, out, source)


def _setting_of(log: Path) -> dict[str, Any]:
    """What the log's file name says about its inputs (the official Beyond3D runs name them)."""
    stem = log.stem.lower()
    if re.search(r"without_video|text_only|no_video", stem):
        return {"setting": "text", "source": "lmms-eval log"}
    if "video" in stem:
        return {"setting": "video", "source": "lmms-eval log"}
    return {"setting": "as logged", "source": "lmms-eval log"}


@dataclass
class ImportResult:
    bench: Benchmark
    run: Path
    lines: int
    kind: str
    model: str
    #: lines whose reply is a harness failure marker (imported as ``error`` rows)
    failed: int = 0


def _refuse_docless(lines: list[LogLine], log: Path) -> None:
    """Lines without their doc need the benchmark they were asked from."""
    docless = [ln for ln in lines if ln.row is not None]
    if docless:
        reader = log_readers()[docless[0].kind]
        raise InputFileError(
            f"{log}, line {docless[0].lineno}: {len(docless)} of {len(lines)} lines name their question by "
            f"doc_id only (lmms-eval ≥ 0.7 drops 'doc' from the log); pass --bench with the benchmark the task "
            f"ran on ({getattr(reader, 'row_source', 'the folder its questions were imported into')})"
        )


def _resolve_rows(lines: list[LogLine], log: Path, bench: Benchmark) -> None:
    """Name the question of each doc-less line by its ``doc_id`` through the reader's ``resolve_row``."""
    docless = [ln for ln in lines if ln.row is not None]
    if not docless:
        return
    resolve = getattr(log_readers()[docless[0].kind], "resolve_row", None)
    if resolve is None:
        raise InputFileError(
            f"{log}, line {docless[0].lineno}: the line has no doc and {docless[0].kind} cannot find a question "
            "by doc_id; log the task with an lmms-eval that keeps 'doc' in --log_samples"
        )
    for ln in docless:
        assert ln.row is not None
        ln.sample_id = resolve(bench, ln.row, ln.raw, f"{log}, line {ln.lineno}")
    seen: dict[str, int] = {}
    for ln in lines:
        if ln.sample_id in seen:
            raise InputFileError(
                f"{log}, line {ln.lineno}: question {ln.sample_id!r} was already logged on line "
                f"{seen[ln.sample_id]}; import one pass of the task"
            )
        seen[ln.sample_id] = ln.lineno


def find_task_dir(log: Path) -> Path | None:
    """The exported task folder named by lmms-eval's ``<time>_results.json`` beside the log, if it still exists."""
    stamp, sep, _ = log.name.partition("_samples_")
    results = log.parent / f"{stamp}_results.json"
    if not sep or not results.is_file():
        return None
    configs = read_json(results).get("configs") or {}
    for config in configs.values():
        docs = ((config.get("dataset_kwargs") or {}).get("data_files") or {}).get("test")
        if isinstance(docs, str) and (Path(docs).parent / EXPORT_INFO).is_file():
            return Path(docs).parent
    return None


def _resolve_exported(lines: list[LogLine], log: Path, bench: Benchmark, task_dir: Path | None) -> None:
    """Name each line's sample: ``doc_id`` is the row of docs.jsonl (the benchmark's samples in file order)."""
    if task_dir is not None:
        ids = [str(row["id"]) for _, row in iter_jsonl(task_dir / DOCS)]
        exported = read_json(task_dir / EXPORT_INFO).get("benchmark_hash")
        if exported != bench.hash:
            raise InputFileError(
                f"{task_dir / EXPORT_INFO}: exported from benchmark {exported}, but {bench.root} is {bench.hash}; "
                "pass the benchmark the task was exported from (or leave --bench out)"
            )
    else:
        ids = [s.id for s in bench.samples]
    prompt = plugin_for(bench.name).prompt
    for ln in lines:
        if not ln.doc["id"]:
            n = ln.doc["doc_id"]
            if not 0 <= n < len(ids):
                raise InputFileError(
                    f"{log}, line {ln.lineno}: doc_id {n} is past the {len(ids)} questions of "
                    f"{task_dir or bench.root}; pass the task folder (--task-dir) or benchmark the log comes from"
                )
            ln.sample_id = ids[n]
        try:
            sample = bench.sample(ln.sample_id)
        except KeyError:
            raise InputFileError(
                f"{log}, line {ln.lineno}: question {ln.sample_id!r} is not in {bench.root}; pass the "
                "benchmark the task was exported from"
            ) from None
        target, gold = ln.reference.get("target"), prompt.gold_reply(sample, None) or ""
        if target is not None and str(target) != gold:
            raise InputFileError(
                f"{log}, line {ln.lineno}: logged target {target!r} is not the gold reply {gold!r} of "
                f"{ln.sample_id!r} in {bench.root}; pass the benchmark the task was exported from"
            )


def import_lmms_eval_log(
    log: str | Path,
    out: str | Path,
    *,
    bench: str | Path | None = None,
    model: str | None = None,
    task_dir: str | Path | None = None,
) -> ImportResult:
    """Write ``out/bench`` (unless ``bench`` is given) and ``out/run`` from one ``--log_samples`` file.

    Logs of tasks from `egoworld export lmms-eval` attach to ``task_dir`` (the exported folder: its
    docs.jsonl and benchmark/), found through lmms-eval's results file when not given, or to ``bench``."""
    log, out = Path(log), Path(out)
    lines = read_log(log)
    inputs = _setting_of(log)
    if (out / "run" / STORE_FILE).exists():
        raise InputFileError(f"{out / 'run'}: holds a run already; import into a new --out folder")
    if lines[0].kind == EGOWORLD:
        task = Path(task_dir) if task_dir is not None else (find_task_dir(log) if bench is None else None)
        if task is None and bench is None:
            raise InputFileError(
                f"{log}: a log of a task from `egoworld export lmms-eval` names questions by doc_id only; pass "
                "--task-dir (the exported task folder) or --bench (the benchmark it was exported from)"
            )
        if task is not None and not (task / EXPORT_INFO).is_file():
            raise InputFileError(
                f"{task}: no {EXPORT_INFO}; pass a folder written by `egoworld export lmms-eval`"
            )
        b = load_benchmark(bench if bench is not None else task / BENCH_DIR)
        _resolve_exported(lines, log, b, task)
        if task is not None:
            setting = (read_json(task / EXPORT_INFO).get("media") or {}).get("setting", "as logged")
            inputs = {"setting": setting, "source": "egoworld export lmms-eval"}
    elif task_dir is not None:
        raise InputFileError(f"{log}: --task-dir is for logs of tasks from `egoworld export lmms-eval`")
    elif bench is None:
        _refuse_docless(lines, log)
        b = _bench_from_docs(lines, out / "bench", log)
    else:
        b = load_benchmark(bench)
        _resolve_rows(lines, log, b)
        unknown = [ln for ln in lines if ln.sample_id not in {s.id for s in b.samples}]
        if unknown:
            raise InputFileError(
                f"{log}, line {unknown[0].lineno}: question {unknown[0].sample_id!r} is not in {b.root} "
                f"({len(unknown)} logged questions are not); pass the benchmark these questions come from"
            )
    name = model or (log.parent.name if log.parent.name not in ("", ".") else log.stem)
    run = out / "run"
    write_run(run, b, lines, log, name, inputs)
    failed = sum(ln.failed for ln in lines)
    return ImportResult(bench=b, run=run, lines=len(lines), kind=lines[0].kind, model=name, failed=failed)


@dataclass(frozen=True)
class LogFormat:
    """Which harness wrote the imported log: the run's backend name and run.json's ``imported_from.format``."""

    backend: str = "lmms-eval-log"
    name: str = "lmms-eval --log_samples"


def write_run(
    run: Path,
    bench: Benchmark,
    lines: list[LogLine],
    log: Path,
    name: str,
    inputs: dict[str, Any],
    fmt: LogFormat = LogFormat(),
) -> None:
    if (run / STORE_FILE).exists():
        raise InputFileError(f"{run}: holds a run already; import into a new --out folder")
    by_id = {ln.sample_id: ln for ln in lines}
    samples: list[Sample] = [s for s in bench.samples if s.id in by_id]
    identity = {"backend": fmt.backend, "model": name, "log": log.name}
    reader = log_readers().get(lines[0].kind)
    logged = reader.logged_scoring([ln.doc for ln in lines]) if reader is not None else []
    manifest: dict[str, Any] = {
        "egoworld_version": __version__,
        "benchmark": bench.name,
        "benchmark_path": str(Path(bench.root).resolve()),
        "benchmark_hash": bench.hash,
        "model": identity,
        "model_spec": f"{fmt.backend}:{name}",
        "inputs": inputs,
        "permutations": "none",
        "seed": 0,
        "epochs": 1,
        "history": "none",
        "selection": {"tasks": None, "limit": None, "per_task": None, "sample_ids": len(samples)},
        "executor": "import",
        "config": {"tasks": None, "limit": None, "per_task": None, "permutations": "none", "seed": 0,
                   "epochs": 1, "sample_ids": [s.id for s in samples]},
        "imported_from": {"file": log.name, "sha256": sha256_file(log), "format": fmt.name,
                          "lines": len(lines)},
        "status": "complete",
    }  # fmt: skip
    if logged:
        manifest["logged_scoring"] = logged
    run.mkdir(parents=True, exist_ok=True)
    with ResponseStore(run / STORE_FILE) as store, store.transaction():
        for item in plan_items(samples, "none", 0, 1, "none"):
            ln = by_id[item.sample.id]
            pid = permutation_id(item.perm)
            messages = (Message(role="user", content=(TextPart(ln.prompt or ""),)),)
            key = request_key(
                model=identity,
                messages=messages,
                sample_id=ln.sample_id,
                permutation=pid,
                epoch=0,
                inputs=inputs,
            )
            store.put_request(key, {"messages": [m.describe() for m in messages], "log_line": ln.lineno})
            if ln.failed:
                store.put(key=key, sample_id=ln.sample_id, permutation=pid, epoch=0, status="error",
                          error=ln.failure())  # fmt: skip
            else:
                store.put(
                    key=key, sample_id=ln.sample_id, permutation=pid, epoch=0, status="ok", raw=ln.reply
                )
            store.plan(ln.sample_id, pid, 0, key)
        failed = sum(ln.failed for ln in lines)
        counts = {"planned": len(samples), "ok": len(samples) - failed, "error": failed, "rows": len(samples)}
    manifest["counts"] = counts
    if failed:
        manifest["status"] = "incomplete"
        manifest["harness_failures"] = {
            "lines": [ln.lineno for ln in lines if ln.failed],
            "marker": FAILED_PREFIX,
        }
    write_json(run / RUN_MANIFEST, manifest)
    write_jsonl(
        run / REFERENCE_FILE,
        (_reference_row(ln) for ln in lines),
    )  # fmt: skip


def _reference_row(ln: LogLine) -> dict[str, Any]:
    """The harness's verdict of one line; none for a failed request (the harness scored its marker text)."""
    row: dict[str, Any] = {"sample": ln.sample_id, "line": ln.lineno}
    if ln.row is not None:
        row["doc_id"] = ln.row
    ref = {f"reference_{k}": v for k, v in ln.reference.items()}
    if ln.failed:
        ref = {"reference_score": None, "reference_logged_score": ln.reference.get("score"),
               "reference_failed": True}  # fmt: skip
    return row | ref
