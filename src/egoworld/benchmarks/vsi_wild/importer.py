"""Import the official VSI-Super-Wild question file (``vsi_super_wild_qa.jsonl``) as a benchmark folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import ValidationError

from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME, TASK_ORDER, VIEWS
from egoworld.core.folders.bench_folder import Benchmark, check_unique_ids, save_benchmark
from egoworld.core.folders.confine import check_name
from egoworld.core.folders.files import InputFileError, explain_validation, iter_jsonl
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import begin_write
from egoworld.core.numbers import check_number
from egoworld.core.schema import FrameInput, Media, Sample, TaskInfo, VideoInput

_OPTION = re.compile(r"^\s*([A-Z])\)\s*(.+?)\s*$")
_VIEW_SUFFIX = re.compile(r"_(" + "|".join(VIEWS) + r")$")
VIDEOS_DIR = "videos"

TASKS = {
    "VMR": TaskInfo(answer_type="choice", metric="accuracy", title="Motion orientation recall", chance=25.0),
    "VPO": TaskInfo(answer_type="choice", metric="accuracy", title="Place temporal ordering", chance=25.0),
    "VOO": TaskInfo(answer_type="choice", metric="accuracy", title="Object temporal ordering", chance=25.0),
    "VOC": TaskInfo(answer_type="integer", metric="mra", title="Continuous object counting"),
}
_KEYS = {"doc_id", "video_name", "task_type", "question", "answer", "frame_indices", "options"}


def panorama_id(video_name: str) -> str:
    """The source panorama of a view video: ``abc_front.mp4`` → ``abc``."""
    stem = Path(video_name).stem
    return _VIEW_SUFFIX.sub("", stem)


def _parse_options(options: list[str], where: str) -> list[str]:
    texts = []
    for i, opt in enumerate(options):
        m = _OPTION.match(opt)
        expected = chr(ord("A") + i)
        if not m or m.group(1) != expected:
            raise InputFileError(f"{where}: option {i + 1} {opt!r} does not read '{expected}) text'")
        texts.append(m.group(2))
    return texts


def row_to_sample(row: dict, where: str) -> Sample:
    """Convert one official row; ``where`` names the file and line for errors."""
    try:
        return _row_to_sample(row, where)
    except InputFileError:
        raise
    except ValidationError as exc:
        raise InputFileError(f"{where}: {explain_validation(exc)}") from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise InputFileError(
            f"{where}: a field has the wrong type ({exc}); see the official file's format "
            "(doc_id, video_name, task_type, question: strings; options: list of strings; frame_indices: "
            "list of integers)"
        ) from None


def _row_to_sample(row: dict, where: str) -> Sample:
    missing = _KEYS - set(row)
    if missing:
        raise InputFileError(f"{where}: missing keys {sorted(missing)}")
    task = row["task_type"]
    if task not in TASKS:
        raise InputFileError(f"{where}: unknown task_type {task!r} (expected one of {', '.join(TASK_ORDER)})")
    video = check_name(row["video_name"], where=where, field="video_name")
    frames: list[FrameInput] = []
    indices = row["frame_indices"] or []
    if not isinstance(indices, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in indices
    ):
        raise InputFileError(
            f"{where}, field 'frame_indices': {indices!r} has the wrong type (a list of integers)"
        )
    if task == "VMR":
        frames = [FrameInput(index=i, role="indicated_moment") for i in indices]
    elif task == "VPO":
        frames = [FrameInput(index=i, role="query", label=f"Frame {k + 1}") for k, i in enumerate(indices)]
    metadata: dict = {"video_name": video, "view": _view_of(video)}
    if indices:
        metadata["frame_indices"] = list(indices)
    if task == "VOO":
        metadata["order_by"] = "first" if "first_appearance" in row["doc_id"] else "last"
    if task == "VOC":
        try:
            answer: int | list[int] = check_number(row["answer"], kind="int", ge=0, allow_str=True)
        except ValueError as exc:
            raise InputFileError(
                f"{where}: field 'answer': a VOC count must be a whole number ≥ 0 ({exc}); fix the count"
            ) from exc
        choices = None
    else:
        choices = _parse_options(row["options"] or [], where)
        letter = str(row["answer"]).strip()
        if len(letter) != 1 or not 0 <= ord(letter) - ord("A") < len(choices):
            raise InputFileError(f"{where}: answer {letter!r} is not one of the option letters")
        answer = ord(letter) - ord("A")
    return Sample(
        id=row["doc_id"],
        benchmark=BENCHMARK_NAME,
        task=task,
        episode=Path(video).stem,
        cluster=panorama_id(video),
        question=row["question"],
        answer_type=TASKS[task].answer_type,
        choices=tuple(choices) if choices else None,
        answer=answer,
        media=Media(video=VideoInput(path=f"{VIDEOS_DIR}/{video}"), frames=tuple(frames)),
        metadata=metadata,
    )


def _view_of(video: str) -> str | None:
    m = _VIEW_SUFFIX.search(Path(video).stem)
    return m.group(1) if m else None


def import_vsi_wild_qa(
    qa_file: str | Path, out: str | Path, *, videos: str | Path | None = None
) -> Benchmark:
    """Import the official QA file into ``out``; ``videos`` (optional) is linked as ``out/videos``.

    Samples always name their video as ``videos/<video_name>`` so the benchmark files do not depend on
    where the videos live; a video setting checks that the files exist before a run starts.
    """
    qa_file, out = Path(qa_file), Path(out)
    rows = list(iter_jsonl(qa_file))
    samples = [row_to_sample(row, f"{qa_file}, line {n}") for n, row in rows]
    check_unique_ids(
        ((s.id, f"{qa_file}, line {n}") for s, (n, _) in zip(samples, rows, strict=True)),
        fix="each question needs its own doc_id",
    )
    if not samples:
        raise InputFileError(f"{qa_file}: no questions found")
    order = {t: i for i, t in enumerate(TASK_ORDER)}
    present = sorted({s.task for s in samples}, key=order.__getitem__)
    begin_write(out, "import vsi-wild-qa")
    if videos is not None:
        link_videos(out, videos)
    return save_benchmark(
        out,
        name=BENCHMARK_NAME,
        tasks={t: TASKS[t] for t in present},
        samples=samples,
        builder={"importer": "vsi-wild-qa", "videos_dir": VIDEOS_DIR},
        source={"file": qa_file.name, "sha256": sha256_file(qa_file), "origin": "THUSI-Lab/VSI-Super-Wild"},
        check_media=True,
        description="VSI-Super-Wild, official released questions",
        media_roots=(VIDEOS_DIR,),
    )


def link_videos(bench_root: str | Path, videos: str | Path) -> Path:
    """Point ``bench_root/videos`` at a folder of view videos (a symlink; replaced if present)."""
    videos = Path(videos).resolve()
    if not videos.is_dir():
        raise InputFileError(f"{videos}: not a folder of videos (pass the folder holding <id>_<view>.mp4)")
    link = Path(bench_root) / VIDEOS_DIR
    if link.is_symlink():
        link.unlink()
    elif link.exists():
        raise InputFileError(
            f"{link}: exists and is not a link; remove it or place the videos there yourself"
        )
    os.symlink(videos, link, target_is_directory=True)
    return link
