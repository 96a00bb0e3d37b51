"""``egoworld export parquet``: a run's scored rows (one per sample × order × epoch) as one Parquet file.

Columns: ``run``, ``benchmark``, ``model`` (the run's identity, so files of several runs concatenate), then every
``scores.jsonl`` field. ``pred`` and ``gold`` (an index, a number, a list or a text) are JSON text; other
fields keep a plain type when all their values share one (bool, int64, float64, string), else JSON text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from egoworld.core.folders.files import iter_jsonl, read_json
from egoworld.core.folders.hashing import canonical_json
from egoworld.core.run_config import RUN_MANIFEST

SCORES_JSONL = "scores.jsonl"
ALWAYS_JSON = ("pred", "gold")
#: the scores.jsonl fields in reading order; any others follow as they appear
FIRST_COLUMNS = ("sample", "task", "permutation", "epoch", "status", "raw", "parsed", "pred", "score", "gold")


def _column_type(values: list[Any]):
    import pyarrow as pa

    seen = {type(v) for v in values if v is not None}
    if not seen or seen == {str}:
        return pa.string()
    if seen == {bool}:
        return pa.bool_()
    if seen == {int}:
        return pa.int64()
    if seen <= {int, float}:
        return pa.float64()
    return None  # mixed or nested: JSON text


def run_rows(run_dir: Path) -> tuple[list[dict[str, Any]], bool]:
    """``scores.jsonl`` rows (scoring the run first when it has none); True when it was scored now."""
    path = run_dir / SCORES_JSONL
    scored_now = False
    if not path.is_file():
        from egoworld.scoring.score import score_run

        score_run(run_dir)
        scored_now = True
    return [row for _, row in iter_jsonl(path)], scored_now


def export_run_parquet(run_dir: str | Path, out: str | Path | None = None) -> tuple[Path, int, bool]:
    """Write the Parquet file (default ``RUN/scores.parquet``); returns its path, rows, scored-now flag."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    manifest = read_json(run_dir / RUN_MANIFEST)
    rows, scored_now = run_rows(run_dir)
    names = [k for k in FIRST_COLUMNS if any(k in row for row in rows)]
    for row in rows:
        names.extend(k for k in row if k not in names)
    ident = {
        "run": run_dir.resolve().name,
        "benchmark": manifest.get("benchmark"),
        "model": manifest.get("model_spec"),
    }
    columns: dict[str, Any] = {k: [v] * len(rows) for k, v in ident.items()}
    fields = [pa.field(k, pa.string()) for k in ident]
    for name in names:
        values = [row.get(name) for row in rows]
        kind = None if name in ALWAYS_JSON else _column_type(values)
        if kind is None:
            values = [None if v is None else canonical_json(v) for v in values]
            kind = pa.string()
        elif kind == pa.float64():
            values = [None if v is None else float(v) for v in values]
        columns[name if name not in ident else f"row_{name}"] = values
        fields.append(pa.field(name if name not in ident else f"row_{name}", kind))
    table = pa.table(columns, schema=pa.schema(fields))
    dest = Path(out) if out is not None else run_dir / "scores.parquet"
    dest.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, dest, compression="zstd")
    return dest, len(rows), scored_now
