"""Question templates (paper Table 3), answer labels, and the prompt layout of the paper (Supp. 9.2).

``[TIME]`` is ``<TIME HH:MM:SS.s video 1>``; ``[OBJECT]`` the target's name; ``[REF]`` the visible
reference object (marked in red in the query frame). A sample's ``metadata["cue"]`` (the temporal-cues
variant) is put before the question as "Temporal cue: …".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from egoworld.benchmarks.beyond3d import (
    LAST_PLACEMENT,
    LAST_VISIBLE,
    NEAREST_FIXTURE,
    OC_DIRECTION,
    OC_DISTANCE,
    OO_DIRECTION,
    OO_DISTANCE,
    VISIBILITY,
)
from egoworld.benchmarks.beyond3d.build.time_choices import time_token
from egoworld.core.permutations import Permutation
from egoworld.core.prompts import PromptBuilder, letters
from egoworld.core.schema import Sample
from egoworld.geometry.directions import CLOCK_RANGE_LABELS, DISTANCE_LABELS, QUADRANT_NAMES
from egoworld.scoring import timepoint

#: the official harness's system prompt (``oos_videoqa_multi_turn.yaml``), the same in every setting
SYSTEM = (
    "You are a helpful assistant trained to answer spatial and visual questions based on egocentric videos. "
    "The videos are captured from a first-person perspective and may contain various objects and interactions. "
    "Use the video to answer the question. The video is sampled at 1 frame per second."
)
INSTRUCTION = "Select the best option and output only its letter."
#: the official instruction of the open time + point steps 2/3 (two spaces before "The x" are the official's)
TIME_POINT_INSTRUCTION = (
    "Estimate the requested event time and its image location at that point. "
    "Output exactly one line in this format: <TIME HH:MM:SS.s video 1>; Point=(<x>, <y>).  "
    "The x and y coordinates must be normalized to the range [0, 1]. "
    "Example format: <TIME 00:00:12.3 video 1>; Point=(0.45, 0.62)"
)
VISIBILITY_CHOICES = ("No", "Yes")
#: Table 3 order of the object–camera directions
QUADRANT_ORDER = ("FR", "BR", "FL", "BL")
DIRECTION_LABELS = {q: QUADRANT_NAMES[q] for q in QUADRANT_ORDER}
DISTANCE_CHOICES = tuple(d[0].upper() + d[1:] for d in DISTANCE_LABELS)
CLOCK_CHOICES = CLOCK_RANGE_LABELS
ASSUME = "At {time}, assuming the previously moved {obj} remains at its last known position,"

TEMPLATES = {
    VISIBILITY: "At {time}, is the previously moved {obj} visible in the current frame?",
    LAST_VISIBLE: "Which timestamp is closest to when the {obj} was last visible?",
    LAST_PLACEMENT: "The {obj} was moved earlier in the video. Which timestamp is closest to when it last stopped being moved?",
    NEAREST_FIXTURE
    + ":type": "At {time}, based on the last known position of the {obj} that was moved earlier, which fixture type is closest to it?",
    NEAREST_FIXTURE
    + ":counter": "At {time}, based on the last known position of the {obj} that was moved earlier, which counter area is closest to it?",
    OC_DIRECTION: ASSUME + " in which direction is the {obj} from your viewpoint?",
    OC_DISTANCE: ASSUME + " what is the distance between the camera and where the {obj} was left?",
    OO_DIRECTION: ASSUME
    + " where is it relative to the {ref} (marked in red in the current frame) from your viewpoint?",
    OO_DISTANCE: ASSUME + " how far is it relative to the {ref} (marked in red in the current frame)?",
}


def question_text(
    task: str, *, query_s: float, obj: str, ref: str | None = None, variant: str | None = None
) -> str:
    """The Table 3 question for ``task`` (``variant`` "type" / "counter" for Nearest Fixture)."""
    key = f"{task}:{variant}" if task == NEAREST_FIXTURE else task
    return TEMPLATES[key].format(time=time_token(query_s), obj=obj, ref=ref)


def cue_text(kind: str, obj: str, intervals: Sequence[Sequence[float]]) -> str:
    """The temporal cue: movement intervals (``moves``, the paper's) or sightings (``sightings``)."""
    spans = "; ".join(f"{time_token(a)} to {time_token(b)}" for a, b in intervals) or "none"
    if kind == "moves":
        head = f"The camera wearer moved the {obj} during these time intervals: {spans}."
    elif kind == "sightings":
        head = f"The {obj} was visible during these time intervals: {spans}."
    else:
        raise ValueError(f"cue kind {kind!r}: expected moves or sightings")
    return f"Temporal cue: {head} Focus on these intervals when tracking the object."


_TOKEN_POINT = re.compile(
    r"(<TIME\s+\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+video\s+\d+>)\s*;\s*Point=\(\s*([-+]?\d*\.?\d+)\s*,\s*([-+]?\d*\.?\d+)\s*\)",
    re.I,
)


def _time_point_sentence(sample: Sample, reply: str) -> str:
    """ "<object> was last visible at <TIME …>, at normalized image coordinates (x=…, y=…), …" (official)."""
    m = _TOKEN_POINT.search(reply)
    if not m:
        return reply
    obj = str((sample.metadata.get("official") or {}).get("object_a_name") or "the object")
    verb = "was last visible at" if sample.task == LAST_VISIBLE else "stopped moving at"
    return (
        f"{obj} {verb} {m.group(1)}, at normalized image coordinates (x={m.group(2)}, y={m.group(3)}), "
        "where x and y are in [0, 1]."
    )


class Beyond3DPromptBuilder(PromptBuilder):
    """The official layout (``oos_doc_to_text``): system prompt, blank line, optional cue, ``Question: …``,
    ``Options:`` with ``A. …`` lines and the instruction — or the time + point instruction for open steps."""

    def question_text(self, sample: Sample, choices: Sequence[str] | None) -> str:
        parts = [SYSTEM, ""]
        cue = sample.metadata.get("cue")
        if cue:
            parts += [str(cue), ""]
        parts.append(f"Question: {sample.question}")
        if choices:
            parts.append("Options:")
            parts += [f"{ch}. {text}" for ch, text in zip(letters(len(choices)), choices, strict=True)]
            parts.append(INSTRUCTION)
        elif sample.answer_type == "time_point":
            parts.append(TIME_POINT_INSTRUCTION)
        return "\n".join(parts)

    def gold_reply(self, sample: Sample, perm: Permutation | None) -> str | None:
        if sample.answer_type == "time_point":
            return timepoint.gold_reply(sample)
        return super().gold_reply(sample, perm)

    def answer_text(self, sample: Sample, value: int | float | None) -> str:
        """As the official ``_history_answer_from_step``: the option text, or a sentence for time + point."""
        if sample.answer_type == "time_point":  # gold: the answer itself; pred: the model's reply text
            if value is None:
                return "(no answer)"
            reply = value if isinstance(value, str) else timepoint.gold_reply(sample)
            return _time_point_sentence(sample, reply)
        return super().answer_text(sample, value)

    def with_history(self, text: str, steps: Sequence[tuple[Sample, str]]) -> str:
        """The official ``oos_doc_to_text`` with history: after the system prompt, "Conversation history:"
        and a ``USER:`` (question and options) / ``ASSISTANT:`` (answer) pair per earlier step."""
        if not steps or not text.startswith(SYSTEM + "\n\n"):
            return super().with_history(text, steps)
        blocks = [SYSTEM, "Conversation history:"]
        for dep, answer in steps:
            question = dep.question
            if dep.choices:
                options = "\n".join(
                    f"{ch}. {c}" for ch, c in zip(letters(len(dep.choices)), dep.choices, strict=True)
                )
                question = f"{question}\nOptions:\n{options}"
            blocks += [f"USER: {question}", f"ASSISTANT: {answer}"]
        return "\n\n".join(blocks) + text[len(SYSTEM) :]
