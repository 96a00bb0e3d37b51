"""EXPLORE instances from EPIC-KITCHENS-100 action segments (real, time-ordered atomic actions).

These sequences have no final-scene annotation: they serve inference and cost studies (requests, tokens,
stepwise splitting on real action lists), not S_obj / S_att / S_rel. Narrations ("take plate") are written in
EXPLORE's style ("C takes plate"). Each partition gets ``per_partition`` windows of consecutive actions whose
video, length and start are drawn from sha256(seed, partition, index): the same inputs give the same folder.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from egoworld.benchmarks.explore.build.builder import save_instances
from egoworld.benchmarks.explore.instances import Instance
from egoworld.benchmarks.explore.partitions import PARTITIONS, TINY_SIZE
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError, open_text
from egoworld.core.folders.hashing import sha256_file, stable_int

ACTIONS_FILE = "EPIC_100_validation.csv"
_REQUIRED = {"narration_id", "video_id", "start_frame", "stop_frame", "start_timestamp", "narration"}


@dataclass(frozen=True)
class EpicAction:
    narration_id: str
    video_id: str
    start_frame: int
    stop_frame: int
    start_s: float
    stop_s: float
    narration: str


def _seconds(ts: str) -> float:
    h, m, s = ts.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def third_person(narration: str) -> str:
    """``"put down plate"`` → ``"C puts down plate"`` (the first word is the verb)."""
    words = narration.strip().split()
    if not words:
        return "C"
    v = words[0]
    if v.endswith(("s", "x", "z", "ch", "sh", "o")):
        v += "es"
    elif v.endswith("y") and len(v) > 1 and v[-2] not in "aeiou":
        v = v[:-1] + "ies"
    else:
        v += "s"
    return " ".join(["C", v, *words[1:]])


def load_epic_actions(folder: str | Path) -> dict[str, list[EpicAction]]:
    """Actions per video, sorted by start frame (then stop frame, then narration id)."""
    path = Path(folder) / ACTIONS_FILE
    if not path.is_file():
        raise InputFileError(f"{path}: not found — pass the epic-kitchens-100 folder holding {ACTIONS_FILE}")
    videos: dict[str, list[EpicAction]] = {}
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        missing = _REQUIRED - set(reader.fieldnames or ())
        if missing:
            raise InputFileError(f"{path}: missing column(s) {sorted(missing)}")
        for lineno, row in enumerate(reader, start=2):
            try:
                act = EpicAction(
                    narration_id=row["narration_id"],
                    video_id=row["video_id"],
                    start_frame=int(row["start_frame"]),
                    stop_frame=int(row["stop_frame"]),
                    start_s=_seconds(row["start_timestamp"]),
                    stop_s=_seconds(row.get("stop_timestamp") or row["start_timestamp"]),
                    narration=row["narration"],
                )
            except (ValueError, KeyError) as exc:
                raise InputFileError(f"{path}, line {lineno}: {exc}") from exc
            videos.setdefault(act.video_id, []).append(act)
    for acts in videos.values():
        acts.sort(key=lambda a: (a.start_frame, a.stop_frame, a.narration_id))
    return videos


def epic_instances(folder: str | Path, *, per_partition: int = 20, seed: int = 0) -> list[Instance]:
    """``per_partition`` windows per partition (short / medium / long) drawn from videos long enough."""
    videos = load_epic_actions(folder)
    names = sorted(videos)
    out: list[Instance] = []
    seen: set[tuple[str, int, int]] = set()
    for part, lo, hi in PARTITIONS:
        eligible = [v for v in names if len(videos[v]) >= lo]
        if not eligible:
            continue
        for k in range(per_partition):
            for attempt in range(50):
                video = eligible[stable_int(seed, "epic", part, k, attempt, "video") % len(eligible)]
                acts = videos[video]
                top = min(hi, len(acts))
                length = lo + stable_int(seed, "epic", part, k, attempt, "len") % (top - lo + 1)
                start = stable_int(seed, "epic", part, k, attempt, "start") % (len(acts) - length + 1)
                if (video, start, length) not in seen:
                    break
            else:
                continue
            seen.add((video, start, length))
            window = acts[start : start + length]
            sid = f"{video}_a{start:05d}_n{length:03d}"
            out.append(
                Instance(
                    start_frame=sid,
                    actions_text="|".join(third_person(a.narration) for a in window),
                    final=None,
                    cluster=video,
                    extra={
                        "source": "epic-kitchens-100",
                        "video_id": video,
                        "first_narration_id": window[0].narration_id,
                        "video_frame": window[0].start_frame,
                        "start_s": window[0].start_s,
                        "end_s": window[-1].stop_s,
                    },
                )
            )
    return out


def build_epic(
    folder: str | Path,
    out: str | Path,
    *,
    per_partition: int = 20,
    seed: int = 0,
    tiny_size: int = TINY_SIZE,
) -> Benchmark:
    """Write an unannotated EXPLORE benchmark from EPIC-KITCHENS-100 action segments."""
    instances = epic_instances(folder, per_partition=per_partition, seed=seed)
    src = Path(folder) / ACTIONS_FILE
    return save_instances(
        out,
        instances,
        builder={"builder": "explore-epic", "per_partition": per_partition},
        seed=seed,
        tiny_size=tiny_size,
        source={"file": ACTIONS_FILE, "sha256": sha256_file(src)},
        description="EXPLORE-style action sequences from EPIC-KITCHENS-100 (no final annotation: cost studies)",
    )
