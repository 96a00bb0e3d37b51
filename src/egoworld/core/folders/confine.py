"""Media confinement: the one rule for which files a benchmark folder may make egoworld read.

A sample's media path (video or image) must resolve — symlinks followed — inside the benchmark folder, or
inside one of the roots its manifest declares in ``media_roots``. A root is a path relative to the folder
(a link a builder or importer made: ``videos`` → the ``--videos DIR`` a user named, ``videos/<episode>.mp4``
→ a world's video) or an absolute folder (``build vsi-wild --media absolute``). Anything else — ``../x``,
``/etc/passwd``, a link to outside that no root declares — is refused with the file, line and field
before a byte of it is read.

A world episode follows the same rule: its media (``episode.json`` ``media``, scene-graph images) lie
inside the episode folder or inside the absolute folders ``media.roots`` declares (written by
``world import hd-epic --videos``); `egoworld.world.episode_folder.load_episode` checks them.

Names that become paths (a video id, an EXPLORE ``start_frame``) must be one plain path component
(`check_name`), so that an importer never writes or reads outside the folders it was given.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from egoworld.core.folders.files import InputFileError

FIX = (
    "keep media inside the benchmark folder, or link the folder that holds it with the importer's "
    "--videos / --images DIR (recorded in manifest.json's media_roots)"
)


WORLD_FIX = (
    "keep media inside the episode folder, or import the recording again with its --videos "
    "(recorded in episode.json's media.roots)"
)


class MediaOutsideError(InputFileError):
    """A media path that resolves outside the benchmark folder and its declared roots."""


def check_name(value: object, *, where: str, field: str) -> str:
    """``value`` if it is one plain path component (a file or folder name), else `InputFileError`."""
    if not isinstance(value, str) or not value.strip():
        raise InputFileError(f"{where}: field '{field}': must be a non-empty file name, got {value!r}")
    bad = (
        value in (".", "..")
        or "/" in value
        or "\\" in value
        or "\x00" in value
        or value != value.strip()
        or any(ord(c) < 32 for c in value)
    )
    if bad:
        raise InputFileError(
            f"{where}: field '{field}': {value!r} is not a plain file name (no '/', '\\', '..', control "
            "characters or surrounding spaces); egoworld uses it as a file or folder name and never lets "
            "it point elsewhere — fix the id in the input file"
        )
    return value


def check_root(entry: str) -> str:
    """A ``media_roots`` entry: relative without ``..``, or an absolute folder other than ``/``."""
    p = PurePosixPath(entry)
    if not entry or "\x00" in entry:
        raise ValueError(f"media root {entry!r} is empty or holds a NUL byte")
    if p.is_absolute():
        if len(p.parts) < 2:
            raise ValueError("media root '/' would allow every file; name the folder that holds the media")
    elif ".." in p.parts:
        raise ValueError(f"media root {entry!r} climbs out of the folder ('..'); declare the folder itself")
    return entry


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class MediaRoots:
    """Where a benchmark folder's media may live: the folder itself and its declared roots."""

    def __init__(self, folder: str | Path, declared: Sequence[str] = ()):
        self.folder = Path(folder)
        self.declared = tuple(declared)
        base = os.path.realpath(self.folder)
        self._roots = [base] + [os.path.realpath(os.path.join(base, check_root(d))) for d in self.declared]
        self._seen: dict[str, str | None] = {}

    def real(self, path: str, *, cached: bool = False) -> str | None:
        """The real path ``path`` (relative to the folder, or absolute) names, or None when outside;
        ``cached`` reuses an earlier answer (a whole-folder check), else the links are followed anew."""
        if cached and path in self._seen:
            return self._seen[path]
        if "\x00" in path:
            real = None
        else:
            full = path if os.path.isabs(path) else os.path.join(self.folder, path)
            real = os.path.realpath(full)
            real = real if any(_inside(real, r) for r in self._roots) else None
        self._seen[path] = real
        return real

    def resolve(
        self,
        path: str,
        *,
        where: str = "",
        field: str = "media path",
        what: str = "benchmark",
        cached: bool = False,
    ) -> Path:
        """The real path of a media file; `MediaOutsideError` (naming ``where`` and ``field``) if outside.
        Without ``cached`` the check is made at the time of use (a link swapped since loading is caught)."""
        real = self.real(path, cached=cached)
        if real is None:
            at = f"{where}: " if where else ""
            full = path if os.path.isabs(path) else os.path.join(self.folder, path)
            shown = "an invalid path (NUL byte)" if "\x00" in path else os.path.realpath(full)
            roots = ", ".join(self.declared) if self.declared else "none"
            raise MediaOutsideError(
                f"{at}field '{field}': {path!r} resolves to {shown}, outside the {what} folder "
                f"{self.folder} and its declared media roots ({roots}); refused before reading it. "
                f"fix: {FIX if what == 'benchmark' else WORLD_FIX}"
            )
        return Path(real)

    def describe(self) -> list[str]:
        """One line per declared root: ``entry → real folder``."""
        return [f"{d} → {r}" for d, r in zip(self.declared, self._roots[1:], strict=True)]
