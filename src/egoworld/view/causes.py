"""Causes of a rejection: world fields picked from the question's provenance (the review page's cause
picker), and the review log's causes as `Fix` rows for `egoworld world fix`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from egoworld.core.folders.files import InputFileError, explain_validation
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.schema import Sample
from egoworld.view.review import ReviewLog
from egoworld.world.fields import FieldRef, Fix, provenance_of


def picked_causes(sample: Sample, raw: Any) -> list[dict[str, Any]]:
    """The causes a review request names: ``[{"index": k, "value": JSON text or ""}]``, ``k`` a position in
    the sample's provenance; returns rows for `ReviewLog.decide`. Raises ValueError on a bad request."""
    if raw in (None, []):
        return []
    refs = sample.metadata.get("provenance") or []
    if not isinstance(raw, list):
        raise ValueError("causes must be a list")
    out = []
    for c in raw:
        k = c.get("index") if isinstance(c, dict) else None
        if not isinstance(k, int) or not 0 <= k < len(refs):
            raise ValueError(f"cause {c!r}: not one of the {len(refs)} fields this question depends on")
        row: dict[str, Any] = {"ref": refs[k], "note": str(c.get("note", ""))[:500]}
        text = str(c.get("value", "")).strip()
        if text:
            try:
                row["value"] = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"the corrected value {text!r} is not JSON ({exc.msg})") from None
        out.append(row)
    return out


def cause_choices(sample: Sample) -> list[dict[str, Any]]:
    """What the cause picker lists: index, label and the current value as JSON text."""
    try:
        refs = provenance_of(sample.metadata)
    except ValidationError:
        return []
    return [
        {"index": k, "label": r.label(), "kind": r.kind, "value": json.dumps(r.value)}
        for k, r in enumerate(refs)
    ]


def review_fixes(path: str | Path) -> tuple[list[Fix], dict[str, Any]]:
    """The causes of a review log's effective rejections as fixes, and the record a fixed world keeps
    (file, sha256, the benchmark it reviewed, cause entries). A bad entry is named by its row."""
    path = Path(path)
    log = ReviewLog(path, readonly=True)
    try:
        rows = log.causes()
        bench_hash = log.meta("benchmark_hash") or ""
    finally:
        log.close()
    fixes = []
    for r in rows:
        where = f"{path}, entry #{r['id']} (decision #{r['decision']}, sample {r['sample_id']})"
        try:
            ref = FieldRef.model_validate(json.loads(r["ref"]))
            has_value = r["value"] is not None
            value = json.loads(r["value"]) if has_value else None
        except json.JSONDecodeError as exc:
            raise InputFileError(
                f"{where}: not JSON ({exc.msg}); undo that decision and decide again"
            ) from None
        except ValidationError as exc:
            raise InputFileError(f"{where}: field ref {explain_validation(exc)}") from None
        fixes.append(Fix(ref=ref, value=value, has_value=has_value, entry=where, note=r["note"]))
    record = {
        "file": path.name,
        "sha256": sha256_file(path),
        "benchmark_hash": bench_hash,
        "causes": len(rows),
    }
    return fixes, record
