"""VSI-Super-Wild's official inputs (``--option protocol=official``): what the official lmms-eval task
(``THUSI-Lab/VSI-Super-Wild``, ``tasks/vsi_super_wild/utils.py``: ``doc_to_visual``, ``doc_to_text``) sends.

* VPO: 12 context frames ``linspace(0, total − 1, 12)`` (truncated to integers) over the whole video, then
  the 4 query frames in the listed order, as unlabelled images; the text starts with "The first 12 images are
  uniformly sampled from the video; the next 4 are Frame 1, Frame 2, Frame 3, and Frame 4 (in order).";
* VMR, VOO, VOC: the whole video file as one video part (the server samples it, as the lmms-eval model
  wrapper does with the video path); VMR's indicated frame is not sent;
* the question with the official clean-up of streaming phrasings, then egoworld's (identical) options and
  instruction.
"""

from __future__ import annotations

import re

import numpy as np

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.input_protocol import Inputs, MediaSource
from egoworld.core.schema import Sample

CONTEXT_FRAMES = 12
_CHOICE_INSTRUCTION = "Answer with only the letter (A, B, C, or D)."
_CLEANUPS = (
    (
        re.compile(
            r"\.\s*At each checkpoint,\s*report the cumulative count up to that point as a single integer\."
        ),
        ". Report the total count up to this point as a single integer.",
    ),
    (re.compile(r"\.\s*At each checkpoint,\s*arrange all seen objects"), ". Arrange all seen objects"),
)


def clean_question(question: str) -> str:
    """The question as the official prompt prints it (streaming checkpoint phrasings made single-query)."""
    for pattern, replacement in _CLEANUPS:
        question = pattern.sub(replacement, question)
    return question.replace("From the video you have watched so far, here are", "Here are")


def context_indices(total: int) -> list[int]:
    """VPO's context frames: ``min(12, total)`` indices spread over the whole video."""
    return np.linspace(0, total - 1, min(CONTEXT_FRAMES, total), dtype=int).tolist()


def _labels(count: int) -> str:
    labels = [f"Frame {k}" for k in range(1, count + 1)]
    if len(labels) <= 2:
        return " and ".join(labels) or "the next images"
    return ", ".join(labels[:-1]) + f", and {labels[-1]}"


def vpo_intro(total: int, queries: int) -> str:
    """The text before a VPO question: how many images are context and which are the query frames."""
    context = min(CONTEXT_FRAMES, total) if total > 0 else CONTEXT_FRAMES
    return (
        f"The first {context} images are uniformly sampled from the video; "
        f"the next {queries} are {_labels(queries)} (in order).\n\n"
    )


def official_text(sample: Sample, text: str, prefix: str = "") -> str:
    """The official prompt text from egoworld's (the same options and instruction)."""
    if not text.startswith(sample.question):
        raise ValueError(f"sample {sample.id}: the official protocol takes no --history")
    if sample.choices is not None and not text.endswith(_CHOICE_INSTRUCTION):
        raise ValueError(f"sample {sample.id}: the official prompt offers exactly 4 options")
    return prefix + clean_question(sample.question) + text[len(sample.question) :]


def official_inputs(bench: Benchmark, sample: Sample, text: str, setting: str, media: MediaSource) -> Inputs:
    """The plug-in hook: a sample's official media parts and text."""
    if setting != "frames":
        raise ValueError(
            f"--option protocol=official sends VSI-Super-Wild's official media: use --setting frames, not {setting}"
        )
    queries = [f.index for f in sample.media.frames if f.role == "query" and f.index is not None]
    if sample.task == "VPO" and queries:
        total = media.frame_count(bench, sample)
        if total > 0:
            clamped = [min(max(0, i), total - 1) for i in queries]
            parts = media.frames_at(bench, sample, context_indices(total), "context")
            parts += media.frames_at(bench, sample, clamped, "query")
            return Inputs(tuple(parts), official_text(sample, text, vpo_intro(total, len(queries))))
    return Inputs((media.video_file(bench, sample),), official_text(sample, text))
