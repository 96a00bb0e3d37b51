"""``egoworld import hf``: rebuild a benchmark folder from a dataset folder written by ``export hf``.

The rebuilt ``samples.jsonl`` is checked against the sha256 the exported manifest holds before anything is
moved into place, so the result is the exported benchmark byte for byte or an error.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from egoworld.core.folders.bench_folder import MANIFEST, Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, explain_validation, read_json, write_jsonl
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import check_not_writing
from egoworld.core.schema import Manifest, Sample
from egoworld.interchange.export_hf import DATA_DIR, MANIFEST_COPY, MEDIA_DIR


def row_sample(row: dict[str, Any], where: str) -> Sample:
    """Invert `export_hf.sample_row`."""
    d: dict[str, Any] = {
        k: row[k]
        for k in ("id", "benchmark", "task", "episode", "cluster", "question", "answer_type", "choices")
        if row.get(k) is not None
    }
    try:
        d["answer"] = json.loads(row["answer_json"])
        for col, key in (
            ("media_json", "media"),
            ("trajectory_json", "trajectory"),
            ("metadata_json", "metadata"),
        ):
            if row.get(col) is not None:
                d[key] = json.loads(row[col])
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise InputFileError(f"{where} (id {row.get('id', '?')}): bad JSON column ({exc})") from exc
    try:
        return Sample.model_validate(d)
    except ValidationError as exc:
        raise InputFileError(f"{where} (id {row.get('id', '?')}): {explain_validation(exc)}") from exc


def read_rows(folder: Path) -> list[tuple[dict[str, Any], str]]:
    """Rows of every shard in shard order, each with where it came from."""
    import pyarrow.parquet as pq

    shards = sorted((folder / DATA_DIR).glob("*.parquet"))
    if not shards:
        raise InputFileError(
            f"{folder / DATA_DIR}: no Parquet shards (is {folder} an `egoworld export hf` folder?)"
        )
    rows = []
    for shard in shards:
        for i, row in enumerate(pq.read_table(shard).to_pylist()):
            rows.append((row, f"{shard}, row {i}"))
    return rows


def import_hf(folder: str | Path, out: str | Path) -> Benchmark:
    """Write the benchmark folder ``out`` (manifest.json, samples.jsonl, media) from dataset folder ``folder``."""
    folder, out = Path(folder), Path(out)
    check_not_writing(folder, fix="rerun `egoworld export hf` into a new folder")
    mpath = folder / MANIFEST_COPY
    if not mpath.is_file():
        raise InputFileError(
            f"{mpath}: not found — `egoworld import hf` reads folders written by `egoworld export hf`"
        )
    try:
        manifest = Manifest.model_validate(read_json(mpath))
    except ValidationError as exc:
        raise InputFileError(f"{mpath}: {explain_validation(exc)}") from exc
    if out.exists() and any(out.iterdir()):
        raise InputFileError(f"{out}: exists and is not empty; choose a new --out folder")
    rows = read_rows(folder)
    samples = [row_sample(row, where) for row, where in rows]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        spath = tmp / manifest.samples_file
        write_jsonl(spath, (s.model_dump(mode="json", exclude_defaults=True) for s in samples))
        if manifest.samples_sha256 and sha256_file(spath) != manifest.samples_sha256:
            raise InputFileError(
                f"{folder}: the rows do not rebuild the exported samples (sha256 differs from "
                f"{MANIFEST_COPY}); the shards were edited or come from another export"
            )
        missing = []
        for rel in sorted({f for row, _ in rows for f in row.get("media_files") or ()}):
            src = folder / rel
            if not src.is_file():
                missing.append(rel)
                continue
            dest = tmp / Path(rel).relative_to(MEDIA_DIR)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        if missing:
            shown = ", ".join(missing[:5]) + (f", … {len(missing) - 5} more" if len(missing) > 5 else "")
            raise InputFileError(f"{folder}: {len(missing)} media file(s) the rows list are absent ({shown})")
        shutil.copyfile(mpath, tmp / MANIFEST)
        load_benchmark(tmp)  # validates the whole folder
        if out.exists():
            out.rmdir()
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return load_benchmark(out)
