"""Import the official Beyond3D release (``vqa_baseline.jsonl`` / ``vqa_temporal_cues.jsonl``, HF
``Ffffangzhu/BEYOND3D``) as a benchmark folder.

A record is a trajectory (``mode: multi_turn`` with ``steps``) or one question with its fields at the top
level. Each unskipped step becomes a sample whose id is the official one
(``<doc_id or trajectory_id>__step_<step>``), exactly as the official harness expands it; the cluster is
the source video; every producer field is kept in ``metadata["official"]``. Choice steps use
``choices`` / ``correct_idx`` / ``acceptable_idxs``; the older open time + point steps 2/3 become
``time_point`` answers with the official launcher's tolerances (3 s, 0.2) unless told otherwise.

`doc_to_sample` also reads the flat question docs the official harness logs (``oos_score`` of an
lmms-eval log line), so `egoworld.interchange` builds benchmarks from logs with the same code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from egoworld.benchmarks.beyond3d import (
    BENCHMARK_NAME,
    LAST_PLACEMENT,
    LAST_VISIBLE,
    NEAREST_FIXTURE,
    OC_DIRECTION,
    OC_DISTANCE,
    OO_DIRECTION,
    OO_DISTANCE,
    TASK_ORDER,
    TASK_TITLES,
    TIME_TASKS,
    VISIBILITY,
)
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError, iter_jsonl
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import begin_write
from egoworld.core.schema import FrameInput, Media, Sample, TaskInfo, Trajectory, VideoInput

#: the official ``step_question_class`` of each task
CLASS_TO_TASK = {
    "oos_step1_visibility": VISIBILITY,
    "oos_step2_last_visible": LAST_VISIBLE,
    "oos_step3_last_placement": LAST_PLACEMENT,
    "oos_step4_fixture": NEAREST_FIXTURE,
    "oos_branch_object_camera_relative_position": OC_DIRECTION,
    "oos_branch_object_camera_distance": OC_DISTANCE,
    "oos_branch_object_object_relation": OO_DIRECTION,
    "oos_branch_object_object_distance": OO_DISTANCE,
}
TASK_TO_CLASS = {t: c for c, t in CLASS_TO_TASK.items()}
#: questions that mark the visible reference object in red in the query frame
MARKED_TASKS = (OO_DIRECTION, OO_DISTANCE)
VIDEOS_DIR = "videos"
_STEP = re.compile(r"^(\d+)([A-Za-z]*)$")
#: fields the official harness adds when it scores a doc (its verdict), not producer fields
VERDICT_FIELDS = frozenset(
    [
        "prediction",
        "clean_prediction",
        "pred_idx",
        "pred_choice",
        "gold_idx",
        "gold_choice",
        "gold_idxs",
        "gold_choices",
        "accuracy",
        "parsed",
        "scorable",
        "pred_time_sec",
        "pred_point_x",
        "pred_point_y",
        "matched_gold_time_sec",
        "matched_gold_point_x",
        "matched_gold_point_y",
        "matched_gold_source",
        "gold_time_sec",
        "gold_point_x",
        "gold_point_y",
        "all_gold_time_point_candidates",
        "time_tolerance_sec",
        "coord_tolerance_norm",
        "time_error_sec",
        "coord_error_linf",
        "time_within_tolerance",
        "coord_within_tolerance",
        "video_context",
        "stream3d_query_time_sec",
    ]
)


@dataclass(frozen=True)
class ReleaseSettings:
    """Scoring of open steps 2/3 (the official launcher's defaults) and the marker's pixel frame.

    ``video_size``: the size of the preprocessed videos (the official harness scales the normalised
    anchor pixel by ``OOS_VIDEO_WIDTH`` × ``OOS_VIDEO_HEIGHT``, 448 × 448)."""

    time_tolerance_s: float = 3.0
    point_tolerance: float = 0.2
    time_only: bool = False
    video_size: tuple[int, int] = (448, 448)
    videos: bool = False

    def describe(self) -> dict[str, Any]:
        return {
            "time_tolerance_s": self.time_tolerance_s,
            "point_tolerance": self.point_tolerance,
            "step23_mode": "time_only" if self.time_only else "time_point",
            "marker_video_size": list(self.video_size),
            "history": "none (the official protocol: previous answers are never added to prompts)",
        }


def _where(where: str, field: str) -> str:
    return f"{where}: field '{field}'"


def step_number(step: Any, where: str) -> tuple[int, str]:
    """``"5b"`` → (5, "5b"); a step id must start with a number."""
    label = str(step).strip()
    m = _STEP.match(label)
    if not m:
        raise InputFileError(f"{_where(where, 'step')}: {step!r} is not a step id such as 1, 2, 5a")
    return int(m.group(1)), label


def expand_record(record: Any, where: str) -> Iterator[dict[str, Any]]:
    """The flat question docs of one release record, as the official ``process_docs`` expands them."""
    if not isinstance(record, dict):
        raise InputFileError(f"{where}: a record is a JSON object, got {type(record).__name__}")
    if record.get("mode") == "multi_turn" and isinstance(record.get("steps"), list):
        base = record.get("doc_id", record.get("trajectory_id"))
        if base in (None, ""):
            raise InputFileError(
                f"{_where(where, 'trajectory_id')}: a trajectory needs 'doc_id' or 'trajectory_id'"
            )
        common = {k: v for k, v in record.items() if k != "steps"}
        common["mode"] = "multi_turn"
        common.setdefault("trajectory_id", base)
        common["source_video_id"] = record.get("video_id", record.get("source_video_id"))
        for i, step in enumerate(record["steps"]):
            at = f"{where}, steps[{i}]"
            if not isinstance(step, dict):
                raise InputFileError(f"{at}: a step is a JSON object")
            if step.get("skipped"):
                continue
            if "step" not in step:
                raise InputFileError(f"{_where(at, 'step')}: missing")
            _, label = step_number(step["step"], at)
            doc = dict(common) | {k: v for k, v in step.items()}
            doc["step"] = label
            doc["id"] = doc["doc_id"] = f"{base}__step_{label}"
            doc["depends_on_steps"] = [str(d).strip() for d in step.get("depends_on_steps") or []]
            doc["_where"] = at
            yield doc
    elif record.get("mode") == "multi_turn":
        raise InputFileError(f"{_where(where, 'steps')}: mode multi_turn needs a list of steps")
    else:
        doc = dict(record)
        doc["id"] = record.get("doc_id", record.get("id", record.get("trajectory_id")))
        if doc["id"] in (None, ""):
            raise InputFileError(f"{_where(where, 'doc_id')}: a question needs 'doc_id'")
        doc["source_video_id"] = record.get("source_video_id", record.get("video_id"))
        doc["_where"] = where
        yield doc


def _choice_answer(doc: dict[str, Any], n: int, where: str) -> int | list[int]:
    """``acceptable_idxs`` when given (the official gold set), else ``correct_idx``."""
    field = "correct_idx" if "correct_idx" in doc else "answer_idx"
    idx = doc.get(field)
    acceptable = doc.get("acceptable_idxs") or doc.get("acceptable_answer_idxs") or []
    for name, value in ((field, idx), *(("acceptable_idxs", a) for a in acceptable)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise InputFileError(f"{_where(where, name)}: {value!r} is not an option index 0..{n - 1}")
    return sorted(set(acceptable)) if acceptable else int(idx)  # type: ignore[arg-type]


def _time_point_answer(doc: dict[str, Any], task: str, settings: ReleaseSettings, where: str) -> dict:
    """Candidates as the official harness collects them: ``acceptable_answer_metadata``, else the default."""
    meta = doc.get("answer_metadata") or {}
    if not isinstance(meta, dict):
        raise InputFileError(f"{_where(where, 'answer_metadata')}: expected an object")
    time_only = settings.time_only
    cands = []
    for item in meta.get("acceptable_answer_metadata") or []:
        t, xy = item.get("time_sec"), item.get("normalized_projected_pixel")
        has_xy = isinstance(xy, list) and len(xy) >= 2
        if _num(t) and (time_only or has_xy):
            c = {"time_s": float(t), "source": item.get("reference_source")}
            if has_xy and not time_only:
                c |= {"x": float(xy[0]), "y": float(xy[1])}
            cands.append(c)
    if not cands:
        key = "sampled_last_visible_time_sec" if task == LAST_VISIBLE else "last_placement_time_sec"
        t, xy = meta.get(key), meta.get("normalized_projected_pixel")
        if not _num(t) or (not time_only and not (isinstance(xy, list) and len(xy) >= 2)):
            raise InputFileError(
                f"{_where(where, 'answer_metadata')}: an open step-2/3 answer needs "
                f"acceptable_answer_metadata or {key} + normalized_projected_pixel"
            )
        c = {"time_s": float(t), "source": "default_single_gold"}
        if not time_only:
            c |= {"x": float(xy[0]), "y": float(xy[1])}
        cands.append(c)
    tol_t = doc.get("time_tolerance_sec", settings.time_tolerance_s)
    tol_p = doc.get("coord_tolerance_norm", settings.point_tolerance)
    return {
        "candidates": cands,
        "time_tolerance_s": float(tol_t),
        "point_tolerance": float(tol_p),
        "time_only": time_only,
    }


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _media(doc: dict[str, Any], task: str, settings: ReleaseSettings, where: str) -> Media:
    """The video up to the query-time frame (the official prefix) and, for marked questions, that frame
    with the red anchor marker at the official pixel."""
    if not settings.videos:
        return Media()
    path = doc.get("video_path") or f"{doc.get('video_id')}.mp4"
    query = doc.get("query_time_sec")
    if not _num(query) or query < 0:
        raise InputFileError(f"{_where(where, 'query_time_sec')}: {query!r} is not a time in seconds")
    # the official prefix is ffmpeg ``-t query+1`` (end exclusive): the frames up to the query-time one
    video = VideoInput(path=f"{VIDEOS_DIR}/{Path(str(path)).name}", start_s=0.0, end_s=float(query))
    frames: tuple[FrameInput, ...] = ()
    xy = (doc.get("answer_metadata") or {}).get("object_y_normalized_projected_pixel")
    if (
        task in MARKED_TASKS
        and isinstance(xy, list)
        and len(xy) >= 2
        and all(0 <= float(v) <= 1 for v in xy[:2])
    ):
        w, h = settings.video_size
        marker = (min(float(xy[0]) * w, w - 1.0), min(float(xy[1]) * h, h - 1.0))
        frames = (FrameInput(time_s=float(query), role="last_frame", marker=marker),)
    return Media(video=video, frames=frames)


def doc_to_sample(
    doc: dict[str, Any], settings: ReleaseSettings, earlier: set[str], *, where: str | None = None
) -> Sample:
    """One flat official question doc → a sample. ``earlier``: ids already converted (for dependencies)."""
    where = where or doc.get("_where") or "record"
    cls = str(doc.get("step_question_class") or doc.get("question_class") or "").strip().lower()
    task = CLASS_TO_TASK.get(cls)
    if task is None:
        raise InputFileError(
            f"{_where(where, 'step_question_class')}: {cls or None!r} is not a Beyond3D class "
            f"(known: {', '.join(CLASS_TO_TASK)})"
        )
    question = doc.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InputFileError(f"{_where(where, 'question')}: missing or empty")
    choices = doc.get("choices") or []
    if choices:
        if not isinstance(choices, list) or not all(isinstance(c, str) and c.strip() for c in choices):
            raise InputFileError(f"{_where(where, 'choices')}: expected a list of non-empty strings")
        answer: Any = _choice_answer(doc, len(choices), where)
        kind = "choice"
    elif task in TIME_TASKS:
        answer, kind = _time_point_answer(doc, task, settings, where), "time_point"
    else:
        raise InputFileError(f"{_where(where, 'choices')}: task {task} is asked as a choice and has none")
    sid = str(doc["id"])
    trajectory = None
    if doc.get("mode") == "multi_turn" and doc.get("trajectory_id") not in (None, ""):
        number, label = step_number(doc.get("step"), where)
        base = sid.rsplit("__step_", 1)[0]
        deps = [f"{base}__step_{d}" for d in doc.get("depends_on_steps") or []]
        trajectory = Trajectory(
            id=str(doc["trajectory_id"]),
            step=number,
            label=None if label == str(number) else label,
            depends_on=tuple(d for d in deps if d in earlier),
        )
    official = {k: v for k, v in doc.items() if not k.startswith("_") and k not in VERDICT_FIELDS}
    cluster = doc.get("source_video_id") or doc.get("video_id")
    try:
        return Sample(
            id=sid,
            benchmark=BENCHMARK_NAME,
            task=task,
            episode=str(doc.get("trajectory_id") or sid),
            cluster=None if cluster is None else str(cluster),
            question=question,
            answer_type=kind,
            choices=tuple(choices) if choices else None,
            answer=answer,
            media=_media(doc, task, settings, where),
            trajectory=trajectory,
            metadata={"official": official},
        )
    except ValueError as exc:
        raise InputFileError(f"{where} (id {sid}): {exc}") from exc


def docs_to_samples(docs: Iterable[dict[str, Any]], settings: ReleaseSettings) -> list[Sample]:
    samples: list[Sample] = []
    seen: set[str] = set()
    for doc in docs:
        s = doc_to_sample(doc, settings, seen)
        if s.id in seen:
            raise InputFileError(f"{doc.get('_where', 'record')}: id {s.id!r} appears twice")
        seen.add(s.id)
        samples.append(s)
    return samples


def task_infos(samples: list[Sample]) -> dict[str, TaskInfo]:
    """Tasks present, in paper order; one answer type per task; chance of a uniform guess for choices."""
    kinds: dict[str, set[str]] = {}
    odds: dict[str, list[float]] = {}
    for s in samples:
        kinds.setdefault(s.task, set()).add(s.answer_type)
        if s.answer_type == "choice":
            odds.setdefault(s.task, []).append(len(s.correct_indices) / len(s.choices or ()))
    infos = {}
    for t in TASK_ORDER:
        if t not in kinds:
            continue
        if len(kinds[t]) > 1:
            raise InputFileError(
                f"task {t} ({TASK_TO_CLASS[t]}) mixes answer forms {sorted(kinds[t])}; import open and "
                "choice versions of steps 2/3 as separate benchmarks"
            )
        kind = kinds[t].pop()
        chance = round(100.0 * sum(odds[t]) / len(odds[t]), 4) if kind == "choice" else None
        metric = "accuracy" if kind == "choice" else "time_point"
        infos[t] = TaskInfo(answer_type=kind, metric=metric, title=TASK_TITLES[t], chance=chance)  # type: ignore[arg-type]
    return infos


def import_beyond3d_qa(
    qa_file: str | Path,
    out: str | Path,
    *,
    videos: str | Path | None = None,
    settings: ReleaseSettings = ReleaseSettings(),
) -> Benchmark:
    """Import a release file into ``out``; ``videos`` (optional) is linked as ``out/videos``."""
    from egoworld.benchmarks.vsi_wild.importer import link_videos

    qa_file, out = Path(qa_file), Path(out)
    settings = replace(settings, videos=videos is not None)
    docs = (doc for n, rec in iter_jsonl(qa_file) for doc in expand_record(rec, f"{qa_file}, line {n}"))
    samples = docs_to_samples(docs, settings)
    if not samples:
        raise InputFileError(f"{qa_file}: no questions found (every step skipped, or an empty file)")
    begin_write(out, "beyond3d release")
    if videos is not None:
        link_videos(out, videos)
    return save_benchmark(
        out,
        name=BENCHMARK_NAME,
        tasks=task_infos(samples),
        samples=samples,
        builder={"importer": "beyond3d-qa", **settings.describe(), "videos_dir": VIDEOS_DIR},
        source={"file": qa_file.name, "sha256": sha256_file(qa_file), "origin": "Ffffangzhu/BEYOND3D"},
        description="Beyond3D, official release records",
        media_roots=(VIDEOS_DIR,) if videos is not None else (),
        check_media=True,
    )


#: trajectory-level fields of an expanded official doc (the rest belong to its step)
TRAJECTORY_FIELDS = [
    "trajectory_id",
    "video_id",
    "video_path",
    "query_time_sec",
    "query_time_in_clip_sec",
    "clip_start_time_sec",
    "clip_end_time_sec",
    "clip_duration_sec",
    "horizon_sec",
    "object_a_assoc_id",
    "object_a_name",
    "generation_info",
    "include_gold_history",
    "mode",
]
_STEP_RENAMES = {
    "answer_idx": "correct_idx",
    "acceptable_answer_idxs": "acceptable_idxs",
    "answer": "target_text",
}
_DERIVED = {"id", "doc_id", "source_video_id", "question_class", "group_id", "history_messages", "_where"}


def docs_to_records(docs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Release records rebuilt from expanded official docs (e.g. the ``oos_score`` of log lines): one
    trajectory record per ``trajectory_id`` with its steps in order; the inverse of `expand_record`."""
    records: dict[str, dict[str, Any]] = {}
    singles: list[dict[str, Any]] = []
    for doc in docs:
        clean = {k: v for k, v in doc.items() if k not in VERDICT_FIELDS}
        if clean.get("mode") != "multi_turn":
            singles.append({k: v for k, v in clean.items() if k not in _DERIVED} | {"doc_id": clean["id"]})
            continue
        tid = str(clean["trajectory_id"])
        rec = records.setdefault(
            tid, {"doc_id": tid} | {k: clean.get(k) for k in TRAJECTORY_FIELDS} | {"steps": []}
        )
        step = {
            _STEP_RENAMES.get(k, k): v
            for k, v in clean.items()
            if k not in TRAJECTORY_FIELDS and k not in _DERIVED
        }
        rec["steps"].append(step)
    return [*records.values(), *singles]
