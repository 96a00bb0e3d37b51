"""Beyond3D audit marks in the browser: a reviewer sees an episode's frame at a sampled time and marks
whether a named object is visible in it. Marks are appended to the CSV that `egoworld beyond3d audit
--marks FILE` reads (``episode, time_s, object, visible, reviewer``); reopening resumes.

The (episode, object, time) items are drawn per episode with a seeded generator: the same worlds, count
and seed give the same items in the same order.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from egoworld.core.folders.files import InputFileError, open_text
from egoworld.core.folders.hashing import seeded_rng

COLUMNS = ("episode", "time_s", "object", "visible", "reviewer")


@dataclass(frozen=True)
class AuditItem:
    episode: str
    folder: Path
    video: Path
    time_s: float
    object_id: str
    object_name: str
    category: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.episode, f"{self.time_s:.3f}", self.object_id)


def sample_items(worlds: list[Path], per_episode: int, seed: int) -> list[AuditItem]:
    """``per_episode`` (object, time) pairs from every episode with a video and objects."""
    from egoworld.world.episode_folder import find_episodes, load_episode

    items: list[AuditItem] = []
    for root in worlds:
        folders = find_episodes(root)
        if not folders:
            raise InputFileError(f"{root}: no episode folders (episode.json) here — pass world folders")
        for folder in folders:
            ep = load_episode(folder)
            if not ep.objects or not ep.media.video:
                continue
            rng = seeded_rng(seed, ep.id, "audit")
            for _ in range(per_episode):
                obj = ep.objects[rng.randrange(len(ep.objects))]
                t = round(rng.uniform(0.0, ep.duration_s * 0.999), 1)
                items.append(
                    AuditItem(ep.id, folder, folder / ep.media.video, t, obj.id, obj.name, obj.category)
                )
    if not items:
        raise InputFileError("no episode with a video and objects to audit in the given worlds")
    return items


class AuditSession:
    """The items to mark and the marks CSV (appended, one flushed line per mark)."""

    def __init__(
        self, worlds: list[Path], reviewer: str, marks: Path, *, per_episode: int = 20, seed: int = 0
    ):
        self.items = sample_items(worlds, per_episode, seed)
        self.reviewer = reviewer
        self.marks = Path(marks)
        self._engine = None
        if self.marks.exists():
            header = next(csv.reader(self._read()), [])
            if tuple(header[: len(COLUMNS)]) != COLUMNS:
                raise InputFileError(f"{self.marks}: not a marks file written by egoworld (header {header})")

    def done(self) -> set[tuple[str, str, str]]:
        if not self.marks.exists():
            return set()
        return {
            (r["episode"], f"{float(r['time_s']):.3f}", r["object"])
            for r in csv.DictReader(self._read())
            if r.get("reviewer") == self.reviewer
        }

    def _read(self) -> IO[str]:
        """The marks file through the one file rule (a folder, an empty or a non-UTF-8 file is named)."""
        return open_text(self.marks, "marks file (CSV written by `egoworld view --audit`)", empty_ok=False)

    def next_item(self) -> tuple[int, AuditItem] | None:
        done = self.done()
        return next(((i, it) for i, it in enumerate(self.items) if it.key not in done), None)

    def mark(self, index: int, visible: bool) -> None:
        item = self.items[index]
        new = not self.marks.is_file()
        self.marks.parent.mkdir(parents=True, exist_ok=True)
        with self.marks.open("a", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            if new:
                w.writerow(COLUMNS)
            w.writerow(
                [item.episode, f"{item.time_s:.3f}", item.object_id, "1" if visible else "0", self.reviewer]
            )

    def frame(self, index: int) -> tuple[bytes, str]:
        """The video frame at the item's time (native size up to 640 × 480), as encoded image bytes."""
        from egoworld.media.cache import FrameCache
        from egoworld.media.engine import MediaEngine
        from egoworld.media.prep import Prep

        if self._engine is None:
            self._engine = MediaEngine(FrameCache())
        item = self.items[index]
        video = self._engine.video(item.video)
        i = video.index.nearest(item.time_s)
        (enc,) = self._engine.frames(video, [(i, Prep(max_pixels=640 * 480))])
        return self._engine.load(enc), enc.mime

    def progress(self) -> tuple[int, int]:
        done = self.done()
        return sum(it.key in done for it in self.items), len(self.items)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.cache.close()
