"""The dataset card (``README.md``) of an exported benchmark: licence, provenance, tasks, counts, loading."""

from __future__ import annotations

import json

from egoworld.core.folders.bench_folder import Benchmark


def _yaml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def dataset_card(
    bench: Benchmark, *, license: str | None, shards: int, media_files: int, text_only: bool = False
) -> str:
    """Deterministic card text (the same benchmark gives the same bytes)."""
    m = bench.manifest
    lic = license or str(m.source.get("license") or m.builder.get("license") or "other")
    n = len(bench.samples)
    lines = [
        "---",
        f"license: {_yaml_str(lic)}",
        f"pretty_name: {_yaml_str(m.name)}",
        "task_categories:",
        "- visual-question-answering",
        "tags:",
        "- egoworld",
        f"- {_yaml_str(m.name)}",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: test",
        "    path: data/test-*.parquet",
        "---",
        "",
        f"# {m.name} (version {m.version})",
        "",
        m.description or f"A {m.name} benchmark written by egoworld.",
        "",
        f"{n} questions in {len(m.tasks)} tasks, {shards} Parquet shard(s), {media_files} media file(s) "
        "under `media/`."
        + (
            " Exported without media (`--text-only`): `media_json` names files this folder does not hold."
            if text_only
            else ""
        ),
        "",
        "## Tasks",
        "",
        "| task | questions | answer type | metric | chance (%) |",
        "|---|---:|---|---|---:|",
    ]
    for task, info in m.tasks.items():
        chance = "" if info.chance is None else f"{info.chance:g}"
        lines.append(f"| {task} | {m.counts.get(task, 0)} | {info.answer_type} | {info.metric} | {chance} |")
    lines += [
        "",
        "## Provenance",
        "",
        f"- licence: {lic}",
        f"- written by egoworld {m.egoworld_version}; benchmark hash (sha256 of manifest.json) `{bench.hash}`",
        f"- samples sha256 `{m.samples_sha256}`",
        f"- seed: {m.seed}",
        "- builder / importer parameters:",
        "",
        "```json",
        json.dumps(m.builder, indent=2, sort_keys=True, ensure_ascii=False),
        "```",
        "",
        "- sources:",
        "",
        "```json",
        json.dumps(m.source, indent=2, sort_keys=True, ensure_ascii=False),
        "```",
        "",
        "## Columns",
        "",
        "`id`, `benchmark`, `task`, `episode`, `cluster`, `question`, `answer_type` (choice | integer | number |"
        " free), `choices` (option texts, no letters), `answer_json` (the gold answer: an option index, a list of"
        " acceptable indices, a number or a reference annotation), `media_json` (video clip, frames, images),"
        " `trajectory_json`, `metadata_json` and `media_files` (paths of this sample's files in this folder).",
        "",
        "## Load",
        "",
        "```python",
        "from datasets import load_dataset",
        'ds = load_dataset("parquet", data_files="data/*.parquet", split="train")',
        "```",
        "",
        "Back to an egoworld benchmark folder (byte-identical to the one exported):",
        "",
        "```bash",
        "egoworld import hf THIS_FOLDER --out bench/" + m.name,
        "```",
        "",
    ]
    return "\n".join(lines)
