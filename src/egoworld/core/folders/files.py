"""Atomic file writes and JSON / JSON Lines reading and writing.

Everything egoworld writes goes through a temporary file in the same folder followed by a rename,
so an interrupted command never leaves a half-written file behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from egoworld.core.folders.hashing import canonical_json
from egoworld.core.numbers import strict_loads


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
        fh: IO[Any] = os.fdopen(fd, mode) if binary else os.fdopen(fd, mode, encoding="utf-8", newline="\n")
        with fh:
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


def input_error(
    path: str | Path,
    problem: str,
    *,
    line: int | None = None,
    item: str | None = None,
    field: str | None = None,
    fix: str | None = None,
) -> InputFileError:
    """The one error formatter of every loader: "FILE, line N (item), field 'f': problem; fix"."""
    where = str(path)
    if line is not None:
        where += f", line {line}"
    if item:
        where += f" ({item})"
    if field:
        where += f", field '{field}'"
    return InputFileError(f"{where}: {problem}" + (f"; {fix}" if fix else ""))


def validate_row(model: Any, row: Any, path: str | Path, line: int | None = None, what: str = "") -> Any:
    """``model.model_validate(row)``; a pydantic error or a non-object row becomes an `InputFileError`."""
    from pydantic import ValidationError

    if not isinstance(row, dict):
        raise input_error(
            path, f"expected a JSON object {{…}}{what}, got {_json_kind(row)}", line=line, fix=_FIX_LINE
        )
    rid = row.get("id")
    try:
        return model.model_validate(row)
    except ValidationError as exc:
        raise input_error(
            path,
            explain_validation(exc),
            line=line,
            item=f"id {rid}" if rid is not None and line is not None else None,
        ) from None


_FIX_LINE = "each line must be one JSON object; fix or remove that line"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def check_input_file(path: str | Path, what: str = "file") -> Path:
    """``path`` exists and is a regular file, else an error that says which (a folder is not "not found")."""
    path = Path(path)
    if path.is_dir():
        inside = sorted(p.name for p in path.iterdir() if p.suffix in (".json", ".jsonl", ".csv"))[:5]
        hint = f"; it holds {', '.join(inside)} — pass one of those" if inside else ""
        raise input_error(
            path, f"is a folder, expected a {what}{hint}", fix="pass the file itself, not a folder"
        )
    if not path.is_file():
        if path.exists():
            raise input_error(path, f"is not a regular file, expected a {what}", fix="pass a regular file")
        raise input_error(path, f"{what} not found", fix="check the path")
    return path


def read_input_bytes(path: str | Path, what: str = "file", *, empty_ok: bool = True) -> bytes:
    """The one file-opening rule for user input: the bytes of ``path``, or an error naming the file and the fix
    when it is missing, a folder, unreadable or (unless ``empty_ok``) empty."""
    path = check_input_file(path, what)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise input_error(
            path, f"cannot be read ({exc.strerror or exc})", fix="check its permissions, or pass another file"
        ) from None
    if not data and not empty_ok:
        raise input_error(path, f"is empty (0 bytes), expected a {what}", fix="pass the complete file")
    return data


def read_input_text(path: str | Path, what: str = "file", *, empty_ok: bool = True) -> str:
    """`read_input_bytes` decoded as UTF-8 (bytes that are not UTF-8 are named by line and column)."""
    return _decode(read_input_bytes(path, what, empty_ok=empty_ok), Path(path))


def _decode(data: bytes, path: Path, line: int | None = None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if line is None:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        else:
            column = exc.start + 1
        raise input_error(
            path,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})",
            line=line,
            fix="save the file as UTF-8",
        ) from None


def open_text(path: str | Path, what: str = "file", *, empty_ok: bool = True) -> IO[str]:
    """A UTF-8 text file (e.g. a CSV) as a stream, after the checks every loader makes: a folder or a missing
    file, (unless ``empty_ok``) an empty one, and bytes that are not UTF-8, are refused naming the file and line."""
    import io

    return io.StringIO(read_input_text(path, what, empty_ok=empty_ok), newline="")


def read_json(path: str | Path) -> Any:
    text = read_input_text(path, "JSON file", empty_ok=False)
    try:
        return strict_loads(text)
    except json.JSONDecodeError as exc:
        field = getattr(exc, "field", None)
        if field:
            raise input_error(
                path, exc.msg, line=exc.lineno, field=field, fix="write a finite JSON number"
            ) from None
        raise InputFileError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc


def read_json_object(path: str | Path, what: str = "") -> dict[str, Any]:
    """`read_json` for files that must hold one JSON object (manifests, run.json, scores.json)."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise input_error(path, f"expected a JSON object {{…}}{what}, got {_json_kind(data)}")
    return data


def iter_jsonl(path: str | Path, *, objects: bool = True) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for each non-empty line; a bad line raises with its number.

    With ``objects`` (the default) every line must be a JSON object: a list, number, string or null line
    is refused by line number instead of failing later with a traceback.
    """
    path = check_input_file(path)
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise input_error(
            path, f"cannot be read ({exc.strerror or exc})", fix="check its permissions, or pass another file"
        ) from None
    with fh:
        for lineno, data in enumerate(fh, start=1):
            line = _decode(data, path, lineno)
            if not line.strip():
                continue
            try:
                obj = strict_loads(line)
            except json.JSONDecodeError as exc:
                field = getattr(exc, "field", None)
                if field:
                    raise input_error(
                        path, exc.msg, line=lineno, field=field, fix="write a finite JSON number"
                    ) from None
                raise InputFileError(
                    f"{path}, line {lineno}: not valid JSON ({exc.msg}); fix or remove that line"
                ) from exc
            if objects and not isinstance(obj, dict):
                raise input_error(
                    path, f"expected a JSON object {{…}}, got {_json_kind(obj)}", line=lineno, fix=_FIX_LINE
                )
            yield lineno, obj


def read_jsonl(path: str | Path) -> list[Any]:
    return [obj for _, obj in iter_jsonl(path)]


def write_json_or_in_place(path: str | Path, obj: Any) -> None:
    """`write_json`, falling back to overwriting ``path`` in place with compact JSON when no new file can be
    made (a full disk): the old file's blocks are reused, so a status change still lands."""
    try:
        write_json(path, obj)
    except OSError:
        data = (
            json.dumps(
                obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode()
            + b"\n"
        )
        try:
            with open(path, "r+b") as fh:
                fh.write(data)
                fh.truncate()
        except OSError:
            pass  # nothing more can be written; the caller re-raises the original error


def remove_stale_temp_files(folder: str | Path, names: Iterable[str]) -> None:
    """Delete temporary siblings (``.NAME.*.tmp``) that a killed process left behind."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    for name in names:
        for tmp in folder.glob(f".{name}.*.tmp"):
            tmp.unlink(missing_ok=True)


def write_file_set(folder: str | Path, files: dict[str, Callable[[IO[Any]], None]]) -> None:
    """Write several files as one unit: either all come from this call, or the last one is absent.

    The last file (e.g. ``scores.json``) is the commit mark: it is removed first and written last, so a kill
    at any point leaves either the complete new set or no mark (readers treat that as "not written").
    Temporary files of an earlier killed call are removed.
    """
    folder = Path(folder)
    names = list(files)
    remove_stale_temp_files(folder, names)
    (folder / names[-1]).unlink(missing_ok=True)
    for name in names:
        with atomic_open(folder / name) as fh:
            files[name](fh)


def json_body(obj: Any, *, indent: int | None = 2, sort_keys: bool = True) -> Callable[[IO[Any]], None]:
    """A writer for `write_file_set`: ``obj`` as `write_json` formats it."""

    def write(fh: IO[Any]) -> None:
        fh.write(json.dumps(obj, indent=indent, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False))
        fh.write("\n")

    return write


def jsonl_body(rows: Iterable[Any]) -> Callable[[IO[Any]], None]:
    """A writer for `write_file_set`: one canonical JSON object per line, as `write_jsonl` writes them."""

    def write(fh: IO[Any]) -> None:
        for row in rows:
            fh.write(canonical_json(row))
            fh.write("\n")

    return write
