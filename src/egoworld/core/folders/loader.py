"""The one folder loader: a JSON header file + JSON Lines row files, read and validated with errors that name
the file and line, hashed, media-confined, and saved atomically with the header written last.

A benchmark folder (`egoworld.core.folders.bench_folder`: ``manifest.json`` + ``samples.jsonl``) and a world episode
folder (`egoworld.world.episode_folder`: ``episode.json`` + ``poses.jsonl``, ``objects.jsonl`` …) are both a
`FolderKind`; they differ only in their models and in the checks that follow loading.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from egoworld.core.folders.confine import MediaRoots
from egoworld.core.folders.files import (
    InputFileError,
    input_error,
    iter_jsonl,
    read_json,
    remove_stale_temp_files,
    validate_row,
    write_json,
    write_jsonl,
)
from egoworld.core.folders.hashing import sha256_file

M = TypeVar("M", bound=BaseModel)

#: the build-in-progress marker: written before a command's first write into a folder, removed after its last
WRITING = ".egoworld-writing"


def begin_write(root: str | Path, command: str = "") -> Path:
    """Mark ``root`` as being written (created if needed) before anything in it changes: a command killed at
    any later point leaves a folder every reader refuses (`check_not_writing`) until a rerun completes."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    for tmp in root.glob(".*.tmp"):  # temporary files of an earlier killed write
        tmp.unlink(missing_ok=True)
    # written in place, not renamed: the marker counts from its first byte (its content is only a note)
    (root / WRITING).write_text(json.dumps({"command": command, "pid": os.getpid()}) + "\n", encoding="utf-8")
    return root


def end_write(root: str | Path) -> None:
    """Remove the marker of `begin_write`: the folder is whole (call after its last file is written)."""
    marker = Path(root) / WRITING
    marker.unlink(missing_ok=True)


def check_not_writing(root: str | Path, fix: str = "rerun the command that wrote it") -> None:
    """Refuse a folder whose writing began but never finished (a killed or failed build, import or export)."""
    marker = Path(root) / WRITING
    if marker.exists():
        raise input_error(
            root,
            f"incomplete — its writing began but never finished ({WRITING} is still there: the command was "
            "killed or failed, or is still running)",
            fix=fix,
        )


@dataclass(frozen=True)
class MediaRef:
    """A media path a folder names, and where: the file (and line) and the field that holds it."""

    path: str
    where: str
    field: str


@dataclass(frozen=True)
class FolderKind:
    """One kind of folder: its header file and the words its errors use."""

    header: str  #: the header file's name, written last (``manifest.json``)
    noun: str  #: what the folder holds (``benchmark``), as in "outside the benchmark folder"
    holds: str  #: the files it holds (``manifest.json and samples.jsonl``)
    create: str  #: the commands that make one
    resave: str = "re-save the folder"  #: the fix for a folder written incompletely

    def header_path(self, root: str | Path) -> Path:
        return Path(root) / self.header

    def hash(self, root: str | Path) -> str:
        """sha256 of the header file (which holds what identifies the rows)."""
        return sha256_file(self.header_path(root))

    def read_header(self, root: str | Path, model: type[M]) -> M:
        """The header file validated as ``model``; a missing one says what the folder should hold."""
        path = self.header_path(root)
        check_not_writing(root, fix=f"rerun the command that wrote it ({self.create})")
        if not path.is_file():
            article = "an" if self.noun[:1] in "aeiou" else "a"
            raise InputFileError(
                f"{path}: not found — {article} {self.noun} folder holds {self.holds} "
                f"(create one with {self.create})"
            )
        header: M = validate_row(model, read_json(path), path)
        return header

    def read_rows(
        self, path: Path, model: type[M], *, expected: int | None = None, optional: bool = False
    ) -> tuple[list[M], list[int]]:
        """The rows of a JSON Lines file validated as ``model``, and their line numbers.

        ``optional``: a missing file is no rows (unless the header's count ``expected`` says otherwise);
        ``expected``: the number of rows the header counts (a folder whose writing was interrupted)."""
        items: list[M] = []
        lines: list[int] = []
        if optional and not path.exists():
            if expected:
                raise InputFileError(
                    f"{path}: missing, but {self.header} counts {expected} rows — {self.resave}"
                )
            return items, lines
        for lineno, row in iter_jsonl(path):
            items.append(validate_row(model, row, path, lineno))
            lines.append(lineno)
        if expected is not None and expected != len(items):
            raise InputFileError(
                f"{path}: {len(items)} rows but {self.header} counts {expected} — the folder was not written "
                f"completely; {self.resave}"
            )
        return items, lines

    def check_hash(self, path: Path, expected: str, *, field: str, fix: str) -> None:
        """Refuse a rows file whose sha256 is not the one the header recorded in ``field``."""
        if expected and sha256_file(path) != expected:
            raise InputFileError(
                f"{path}: its sha256 differs from {self.header}'s {field} — the file was changed after the "
                f"{self.noun} was written; {fix}"
            )

    def confine(self, roots: MediaRoots, refs: Iterable[MediaRef], *, cached: bool = False) -> None:
        """Refuse the first media path that resolves outside the folder and its declared roots."""
        for ref in refs:
            roots.resolve(ref.path, where=ref.where, field=ref.field, what=self.noun, cached=cached)

    def save(
        self,
        root: str | Path,
        rows: Mapping[str, Iterable[Any]],
        header: Callable[[dict[str, int]], dict[str, Any]],
        *,
        sort_keys: bool = True,
    ) -> dict[str, int]:
        """Write each rows file (name → JSON objects), then the header ``header(counts)`` makes from the row
        counts, each atomically; temporary files a killed writer left are removed first. Returns the counts.

        The folder is marked as being written (`begin_write`; a builder that writes media first marks it
        itself, earlier) and the mark is removed once the header is written: a kill at any point leaves a
        folder every reader refuses, never rows of two writes read as whole."""
        root = begin_write(root) if not (Path(root) / WRITING).exists() else Path(root)
        remove_stale_temp_files(root, [*rows, self.header])
        counts = {name: write_jsonl(root / name, items) for name, items in rows.items()}
        write_json(self.header_path(root), header(counts), sort_keys=sort_keys)
        end_write(root)
        return counts
