"""Atomic file writes and JSON / JSON Lines reading and writing.

Everything egoworld writes goes through a temporary file in the same folder followed by a rename,
so an interrupted command never leaves a half-written file behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from egoworld.common.hashing import canonical_json
from egoworld.common.numbers import strict_loads


class InputFileError(ValueError):
    """A file given to egoworld is missing or malformed; the message names the file, the item and the fix."""


def explain_validation(exc: Any) -> str:
    """A pydantic ``ValidationError`` as one line: "field 'a.b': reason; …" (whole-object checks name theirs)."""
    parts = []
    for err in exc.errors():
        msg = err["msg"].removeprefix("Value error, ")
        loc = ".".join(str(x) for x in err["loc"])
        parts.append(f"field '{loc}': {msg}" if loc else msg)
    return "; ".join(parts)


@contextmanager
def atomic_open(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``path`` for writing; rename it over ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, **({} if binary else {"encoding": "utf-8", "newline": "\n"})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: str | Path, text: str) -> None:
    with atomic_open(path) as fh:
        fh.write(text)


def write_json(path: str | Path, obj: Any, *, indent: int | None = 2, sort_keys: bool = True) -> None:
    """Write ``obj`` as JSON, by default with sorted keys (byte-stable for the same content).

    Pass ``sort_keys=False`` where key order carries meaning (a manifest's task order).
    """
    with atomic_open(path) as fh:
        fh.write(json.dumps(obj, indent=indent, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False))
        fh.write("\n")


def write_jsonl(path: str | Path, rows: Iterable[Any]) -> int:
    """Write one canonical JSON object per line; returns the number of rows."""
    n = 0
    with atomic_open(path) as fh:
        for row in rows:
            fh.write(canonical_json(row))
            fh.write("\n")
            n += 1
    return n


def read_json(path: str | Path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    try:
        return strict_loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for each non-empty line; a bad line raises with its number."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield lineno, strict_loads(line)
            except json.JSONDecodeError as exc:
                raise InputFileError(
                    f"{path}, line {lineno}: not valid JSON ({exc.msg}); fix or remove that line"
                ) from exc


def read_jsonl(path: str | Path) -> list[Any]:
    return [obj for _, obj in iter_jsonl(path)]
