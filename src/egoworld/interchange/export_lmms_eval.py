"""``egoworld export lmms-eval``: a benchmark as an lmms-eval 0.7 task folder (``--include_path DIR``).

Layout::

    DIR/<task>.yaml     the task: docs from docs.jsonl, generate_until, metric egoworld_score (mean)
    DIR/utils.py        doc_to_text / doc_to_visual / doc_to_target / process_results, each calling
                        `egoworld.interchange.lmms_eval_bridge` (egoworld's prompt, media and scorer)
    DIR/docs.jsonl      one doc per question: id, task, question, answer_type, choices, target
    DIR/benchmark/      the benchmark folder (manifest.json, samples.jsonl, media for non-text settings)

lmms-eval resolves ``data_files`` against the yaml's folder, so the folder can be moved as a whole.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import MANIFEST, load_benchmark
from egoworld.core.folders.files import InputFileError, atomic_open, write_jsonl
from egoworld.core.plugin import plugin_for
from egoworld.interchange.lmms_eval_bridge import METRIC
from egoworld.runner.inputs import SETTINGS, InputSettings

BENCH_DIR = "benchmark"
DOCS = "docs.jsonl"
EXPORT_INFO = "egoworld_export.json"

UTILS_PY = '''"""lmms-eval hooks of the egoworld task {task!r}: prompt, images, target and score come from egoworld
itself (egoworld.interchange.lmms_eval_bridge), so this task and `egoworld run` / `egoworld score` agree.
Written by `egoworld export lmms-eval`; needs egoworld installed where lmms-eval runs."""

from pathlib import Path

from egoworld.interchange.lmms_eval_bridge import TaskBridge

#: media settings of this export (as `egoworld run` takes them)
MEDIA = {media!r}
_bridge = None


def bridge():
    global _bridge
    if _bridge is None:
        _bridge = TaskBridge(Path(__file__).resolve().parent / {bench_dir!r}, MEDIA)
    return _bridge


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return bridge().text(doc)


def doc_to_visual(doc):
    return bridge().visual(doc)


def doc_to_target(doc):
    return bridge().target(doc)


def process_results(doc, results):
    return bridge().process_results(doc, results)
'''


@dataclass
class LmmsEvalExport:
    out: Path
    task: str
    rows: int


def task_name(bench_name: str) -> str:
    return "egoworld_" + re.sub(r"[^0-9a-zA-Z_]+", "_", bench_name).strip("_").lower()


def task_yaml(task: str, max_new_tokens: int) -> str:
    """The task yaml (lmms-eval's `!function` tags name functions in utils.py)."""
    return "\n".join(
        [
            f"task: {task}",
            "dataset_path: json",
            "dataset_kwargs:",
            "  data_files:",
            f"    test: {DOCS}",
            "test_split: test",
            "output_type: generate_until",
            "doc_to_visual: !function utils.doc_to_visual",
            "doc_to_text: !function utils.doc_to_text",
            "doc_to_target: !function utils.doc_to_target",
            "process_results: !function utils.process_results",
            "generation_kwargs:",
            f"  max_new_tokens: {max_new_tokens}",
            "  temperature: 0",
            "  do_sample: false",
            "metric_list:",
            f"  - metric: {METRIC}",
            "    aggregation: mean",
            "    higher_is_better: true",
            "metadata:",
            "  version: 1.0",
            "",
        ]
    )


def export_lmms_eval(
    bench_dir: str | Path,
    out: str | Path,
    *,
    task: str | None = None,
    media: dict[str, Any] | None = None,
    max_new_tokens: int = 256,
) -> LmmsEvalExport:
    """Write the task folder ``out``; the benchmark must have no free-form (judge-scored) tasks."""
    from egoworld.interchange.export_hf import media_sources

    bench = load_benchmark(bench_dir)
    free = [t for t, info in bench.manifest.tasks.items() if info.answer_type == "free"]
    if free:
        raise InputFileError(
            f"{bench.root}: tasks {free} are free-form and scored by a judge model, which an lmms-eval task "
            "cannot call; export benchmarks with choice / integer / number tasks"
        )
    settings = InputSettings(**(media or {}))
    if settings.setting not in SETTINGS:
        raise ValueError(f"--setting {settings.setting!r}: expected one of {', '.join(SETTINGS)}")
    if settings.video_part:
        raise ValueError("lmms-eval tasks send images; --video-part is not available here")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise InputFileError(f"{out}: exists and is not empty; choose a new --out folder")
    sources = {} if settings.setting == "text" else media_sources(bench)
    name = task or task_name(bench.name)
    prompt = plugin_for(bench.name).prompt
    docs = [
        {
            "id": s.id,
            "task": s.task,
            "question": s.question,
            "answer_type": s.answer_type,
            "choices": list(s.choices) if s.choices else [],
            "target": prompt.gold_reply(s, None) or "",
        }
        for s in bench.samples
    ]
    write_jsonl(out / DOCS, docs)
    dest = out / BENCH_DIR
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bench.root / MANIFEST, dest / MANIFEST)
    shutil.copyfile(bench.root / bench.manifest.samples_file, dest / bench.manifest.samples_file)
    for rel, src in sorted(sources.items()):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest / rel)
    media_dict = {
        k: getattr(settings, k) for k in ("setting", "frames", "frame_policy", "max_pixels", "overlays")
    }
    with atomic_open(out / "utils.py") as fh:
        fh.write(UTILS_PY.format(task=name, media=media_dict, bench_dir=BENCH_DIR))
    with atomic_open(out / f"{name}.yaml") as fh:
        fh.write(task_yaml(name, max_new_tokens))
    with atomic_open(out / EXPORT_INFO) as fh:
        fh.write(
            json.dumps({"task": name, "benchmark_hash": bench.hash, "media": media_dict}, indent=2) + "\n"
        )
    return LmmsEvalExport(out=out, task=name, rows=len(docs))
