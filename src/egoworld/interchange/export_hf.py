"""``egoworld export hf``: a benchmark folder as a Hugging Face dataset folder.

Layout (what ``datasets.load_dataset("parquet", data_files="DIR/data/*.parquet")`` and the Hub read)::

    DIR/README.md                          dataset card: licence, provenance, tasks, counts, how to load
    DIR/data/test-00000-of-0000N.parquet   one row per question (columns: `COLUMNS`)
    DIR/media/<path>                       every video / image a sample names, at its path in the benchmark
    DIR/egoworld/manifest.json             the benchmark's manifest, byte for byte

``egoworld import hf DIR`` turns it back into the same benchmark folder, byte for byte.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import MANIFEST, Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, atomic_open
from egoworld.core.folders.hashing import canonical_json
from egoworld.core.folders.loader import WRITING, begin_write, end_write
from egoworld.core.schema import Sample

SPLIT = "test"
DATA_DIR = "data"
MEDIA_DIR = "media"
MANIFEST_COPY = "egoworld/manifest.json"
#: columns of the Parquet shards; the JSON ones hold canonical JSON (sorted keys)
COLUMNS = (
    "id",
    "benchmark",
    "task",
    "episode",
    "cluster",
    "question",
    "answer_type",
    "choices",
    "answer_json",
    "media_json",
    "trajectory_json",
    "metadata_json",
    "media_files",
)


@dataclass
class HfExport:
    out: Path
    rows: int
    shards: list[Path]
    media_files: int


def parquet_schema():
    import pyarrow as pa

    text = pa.string()
    return pa.schema(
        [
            *((name, text) for name in COLUMNS[:7]),
            ("choices", pa.list_(text)),
            *((name, text) for name in COLUMNS[8:12]),
            ("media_files", pa.list_(text)),
        ]
    )


def media_paths(sample: Sample) -> list[str]:
    """The files a sample names (its video and images), as written in the sample."""
    paths = [sample.media.video.path] if sample.media.video else []
    return paths + [im.path for im in sample.media.images]


def sample_row(sample: Sample) -> dict[str, Any]:
    """One Parquet row; `row_sample` inverts it exactly."""
    d = sample.model_dump(mode="json", exclude_defaults=True)
    return {
        "id": sample.id,
        "benchmark": sample.benchmark,
        "task": sample.task,
        "episode": sample.episode,
        "cluster": sample.cluster,
        "question": sample.question,
        "answer_type": sample.answer_type,
        "choices": list(sample.choices) if sample.choices is not None else None,
        "answer_json": canonical_json(d.get("answer")),
        "media_json": canonical_json(d["media"]) if "media" in d else None,
        "trajectory_json": canonical_json(d["trajectory"]) if "trajectory" in d else None,
        "metadata_json": canonical_json(d["metadata"]) if "metadata" in d else None,
        "media_files": [f"{MEDIA_DIR}/{p}" for p in media_paths(sample)],
    }


def media_sources(bench: Benchmark) -> dict[str, Path]:
    """Relative media path → the file to copy; refuses absolute, escaping and missing paths in one error."""
    sources: dict[str, Path] = {}
    problems: dict[str, str] = {}
    for s in bench.samples:
        for p in media_paths(s):
            if p in sources or p in problems:
                continue
            rel = Path(p)
            src = bench.resolve(p)
            if rel.is_absolute() or ".." in rel.parts:
                problems[p] = f"{p} (sample {s.id}: not inside the benchmark folder)"
            elif not src.is_file():
                problems[p] = f"{p} (sample {s.id}: missing)"
            else:
                sources[p] = src
    if problems:
        listed = list(problems.values())
        shown = "; ".join(listed[:5]) + (f"; … {len(listed) - 5} more" if len(listed) > 5 else "")
        raise InputFileError(
            f"{bench.root}: {len(listed)} media file(s) cannot travel with the dataset: {shown}. "
            "A dataset carries the files a benchmark names by relative path: put them in the benchmark "
            "folder (e.g. --videos at import), or pass --text-only to export the questions without media"
        )
    return sources


def export_hf(
    bench_dir: str | Path,
    out: str | Path,
    *,
    license: str | None = None,
    shard_rows: int = 10_000,
    text_only: bool = False,
) -> HfExport:
    """Write the dataset folder ``out`` (Parquet shards, media, card, manifest copy) from a benchmark."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if shard_rows < 1:
        raise ValueError("--shard-rows must be at least 1")
    bench = load_benchmark(bench_dir)
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if (out / WRITING).exists():
            raise InputFileError(
                f"{out}: an earlier export into it never finished ({WRITING} is there); delete the folder "
                "and rerun, or choose a new --out folder"
            )
        raise InputFileError(f"{out}: exists and is not empty; choose a new --out folder")
    begin_write(out, "export hf")
    sources = {} if text_only else media_sources(bench)
    rows = [sample_row(s) for s in bench.samples]
    if text_only:
        for r in rows:
            r["media_files"] = []
    n_shards = max(1, -(-len(rows) // shard_rows))
    schema = parquet_schema()
    shards = []
    (out / DATA_DIR).mkdir(parents=True, exist_ok=True)
    for i in range(n_shards):
        chunk = rows[i * shard_rows : (i + 1) * shard_rows]
        table = pa.Table.from_pylist(chunk, schema=schema)
        path = out / DATA_DIR / f"{SPLIT}-{i:05d}-of-{n_shards:05d}.parquet"
        pq.write_table(table, path, compression="zstd")
        shards.append(path)
    for rel, src in sorted(sources.items()):
        dest = out / MEDIA_DIR / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    (out / MANIFEST_COPY).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bench.root / MANIFEST, out / MANIFEST_COPY)
    from egoworld.interchange.dataset_card import dataset_card

    with atomic_open(out / "README.md") as fh:
        fh.write(
            dataset_card(
                bench, license=license, shards=len(shards), media_files=len(sources), text_only=text_only
            )
        )
    end_write(out)
    return HfExport(out=out, rows=len(rows), shards=shards, media_files=len(sources))
