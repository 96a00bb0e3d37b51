"""Perceive many videos into one world folder: one episode per video, resumable, in ``jobs`` processes.

An episode is named after its video (``<stem>``; ``<parent>_<stem>`` when two videos share a stem). A
finished episode made with the same settings is skipped; one made with other settings is refused unless
``force``. Each episode is written under the build-in-progress marker (`egoworld.core.folders.loader.begin_write`),
so a killed run leaves a folder every reader refuses and the next run makes again; a refused input removes
the episode's half-made folder (no marker left behind).
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.folders.loader import WRITING, begin_write, end_write
from egoworld.perception.video.perceive_kitchen import perceive_kitchen
from egoworld.perception.video.perceive_walk import PerceiveSettings, Say, perceive_walk

PERCEIVERS: dict[str, Callable[[Path, Path, PerceiveSettings, Say], Path]] = {
    "walk": perceive_walk,
    "kitchen": perceive_kitchen,
}


@dataclass(frozen=True)
class Outcome:
    episode: str
    folder: Path
    status: str  # "made" or "skipped"
    seconds: float


def episode_names(videos: list[Path]) -> list[str]:
    """One episode id per video (see the module docstring), safe as a folder name."""
    stems = [v.stem for v in videos]
    names = [f"{v.parent.name}_{v.stem}" if stems.count(v.stem) > 1 else v.stem for v in videos]
    names = [re.sub(r"[^A-Za-z0-9._-]+", "_", n) for n in names]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise InputFileError(f"{sorted(dup)[0]}: two videos would make the same episode; rename one of them")
    return names


def status(folder: Path, settings: PerceiveSettings) -> str:
    """'missing' (or unfinished: it carries the in-progress marker), 'complete' (same settings), 'different',
    or 'foreign' (files egoworld did not write: never removed)."""
    header = folder / "episode.json"
    if not folder.exists() or (folder / WRITING).exists():
        return "missing"
    if not header.is_file():
        return "missing" if folder.is_dir() and not any(folder.iterdir()) else "foreign"
    try:
        stored = read_json(header).get("meta", {}).get("perception", {}).get("settings")
    except InputFileError:
        return "different"
    return "complete" if stored == settings.to_json() else "different"


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def perceive_one(video: Path, folder: Path, settings: PerceiveSettings, quiet: bool = False) -> Outcome:
    """Perceive one video into ``folder`` (made afresh, under the marker). A refusal of the input (a file
    that is not a video, a malformed trajectory or camera file, …) removes the half-made folder, marker and
    all: nothing of it is worth keeping and the rerun starts afresh; a crash leaves the marker (readers
    refuse the folder, the next run makes it again)."""
    start = time.perf_counter()
    if folder.exists():
        shutil.rmtree(folder)
    begin_write(folder, "world perceive")
    try:
        PERCEIVERS[settings.kind](video, folder, settings, (lambda _m: None) if quiet else _say)
    except (InputFileError, ValueError):
        shutil.rmtree(folder, ignore_errors=True)
        raise
    end_write(folder)
    return Outcome(folder.name, folder, "made", time.perf_counter() - start)


def perceive_videos(
    videos: list[Path], out: Path, settings: PerceiveSettings, *, jobs: int = 1, force: bool = False
) -> list[Outcome]:
    """Perceive every video (see the module docstring); outcomes in video order."""
    from egoworld.core.process.pool import map_processes

    settings.check()
    if not videos:
        raise InputFileError("no videos given; pass one or more video files")
    for v in videos:
        if not v.is_file():
            raise InputFileError(f"{v}: no such video file")
    names = episode_names(videos)
    out.mkdir(parents=True, exist_ok=True)
    todo, outcomes = [], {}
    for video, name in zip(videos, names, strict=True):
        state = status(out / name, settings)
        if state == "complete" and not force:
            outcomes[name] = Outcome(name, out / name, "skipped", 0.0)
        elif state == "foreign":
            raise InputFileError(f"{out / name}: holds files egoworld did not write (no episode.json, no {WRITING} "
                                 "marker), which perceiving would replace; choose another --out folder, or move "
                                 "them away")  # fmt: skip
        elif state == "different" and not force:
            raise InputFileError(f"{out / name}: this episode was perceived with other settings; choose another "
                                 "--out folder, or pass --force to perceive it again")  # fmt: skip
        else:
            todo.append((video.resolve(), out / name, settings, False))
    for o in map_processes(perceive_one, todo, workers=jobs):
        outcomes[o.episode] = o
        _say(f"perceived {o.episode} in {o.seconds:.1f} s")
    return [outcomes[n] for n in names]
