"""Prompt texts of EXPLORE-Bench and the reference-scene renderer used by the baselines.

The inference prompts (one-go, stepwise single-turn, stepwise multi-turn) and the judge prompts are the
paper's texts (public repository JackYu6/EXPLORE-Bench: ``infer/prompts.py`` and ``eval/utils/metric/utils.py``),
reproduced word for word so that scores stay comparable; the code around them is ours. Any edit here changes
request keys (and so invalidates caches), which is intended.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from egoworld.benchmarks.explore.instances import SceneObject

ONE_GO = """
You are given an image showing a initial scene.
Then, a sequence of atomic actions occurs:
'{atomic_actions}'

Notes:
- 'C' refers to the camera wearer (the person who is wearing or holding the camera).
- 'X' refers to someone other than the camera wearer.
- Each atomic action description is separated by the `|` character.
- The atomic actions happen in the given order, from left to right.

Your task:
1. Mentally apply this sequence of atomic actions to the initial scene in the image.
2. Imagine what the final scene would look like after all actions have occurred.
3. Describe the final scene in rich, concrete visual detail, as if you are describing the final image.

Requirements:
- Focus **only** on the final scene after all actions, not the intermediate steps.
- Do **not** explain your reasoning or mention the actions explicitly.
- Do **not** mention that you are imagining or predicting; just describe the final scene directly.
- Provide rich, concrete visual detail: entities, appearances, spatial relationships, and interactions.
- Avoid any meta-commentary (no phrases like "the image would show", "I imagine that", etc.).

Now, describe the final scene in detail.
"""

STEPWISE_SINGLE_TURN = """
You are given an image showing an initial scene.
Then a sequence of atomic actions occurs, provided in {segment_num} consecutive segments (Segment 1, Segment 2, ..., Segment {segment_num}). The full sequence is continuous in time, and the segments are in chronological order.

Atomic action segments:
{atomic_action_segments}

Notes:
- 'C' refers to the camera wearer (the person wearing/holding the camera).
- 'X' refers to someone other than the camera wearer.
- Within each segment, atomic actions are separated by the `|` character.
- Segments happen in order from Segment 1 to Segment {segment_num}. All actions within a segment happen before the next segment begins.

Your task:
- Starting from the initial scene in the image, mentally apply Segment 1’s actions and describe the resulting scene (Scene 1).
- Then, using your previously described Scene 1 as the current state (grounded by the initial image), mentally apply Segment 2’s actions and describe the resulting scene (Scene 2).
- Continue this process until Segment {segment_num}, producing Scene {segment_num}.
- Describe the scenes in rich, concrete visual detail, as if you are describing the images.

Description requirements for each scene:
- Describe **only** the scene after that segment’s actions are complete (do not describe intermediate steps).
- Do **not** explain your reasoning or mention the actions explicitly.
- Do **not** mention that you are imagining or predicting; describe the scene directly.
- Provide rich, concrete visual detail: entities, appearances, spatial relationships, and interactions.
- Avoid meta-commentary (no phrases like "the image would show", "I imagine that", etc.).

Output format (strict):
- Output a valid JSON list with exactly {segment_num} elements (no nested lists, no extra keys, no extra text outside the list).
- The i-th element must be the scene description after completing Segment i.
- Each element must be a single string enclosed in double quotes.

Now output the list of {segment_num} scene descriptions.
"""

STEPWISE_NEXT_TURN = """
You are given an image showing the previous initial scene.

You are also given the current scene state description (after previous actions):
"{previous_scene}"

Then, the following atomic actions occur next:
'{atomic_actions}'

Notes:
- 'C' refers to the camera wearer (the person who is wearing or holding the camera).
- 'X' refers to someone other than the camera wearer.
- Each atomic action description is separated by the `|` character.
- The atomic actions happen in the given order, from left to right.

Your task:
1. Treat the provided current scene description as the starting state (grounded by the initial image), mentally apply the new actions.
2. Imagine what the resulting scene would look like after all actions have occurred.
3. Describe the resulting scene in rich, concrete visual detail, as if you are describing the final image.

Requirements:
- Describe **only** the resulting scene after all actions (no intermediate steps).
- Do **not** explain your reasoning or mention the actions explicitly.
- Do **not** mention that you are imagining or predicting; describe the scene directly.
- Provide rich, concrete visual detail: entities, appearances, spatial relationships, and interactions.
- Avoid meta-commentary (no phrases like "the image would show", "I imagine that", etc.).

Now write the resulting scene description as plain text in detail.
"""

JUDGE_SYSTEM = (
    "You are a Natural Language Processing (NLP) expert. A curious human will give you a sentence and a phrase. "
    "The human want you to help with analyzing whether the sentence includes similar concept with the given "
    "phrase and rate the similarity on a scale from 0 to 5, with 0 being 'completely lacks similar concepts' and "
    "5 being 'extremely has similar concepts'. You need to give helpful and reliable answers to help the human."
)
_JUDGE_USER = (
    "Sentence: '{{sentence}}'. Phrase: '{{phrase}}'. Please check if the sentence contains parts that accurately "
    "describe the {what} referenced in the provided phrase and provide an integer score as a single number from "
    "0 to 5 without explanation."
)
#: judge user prompts by item kind (attribute = an object's description, relation, key_state)
JUDGE_USER = {
    "attribute": _JUDGE_USER.format(what="attributes"),
    "relation": _JUDGE_USER.format(what="relations"),
    "key_state": _JUDGE_USER.format(what="states"),
}

_LIST_ASK = re.compile(r"Output a valid JSON list with exactly (\d+) elements")


def one_go_prompt(actions_text: str) -> str:
    return ONE_GO.format(atomic_actions=actions_text)


def single_turn_prompt(segments: Sequence[str]) -> str:
    listed = "\n".join(f"Segment {i}: {seg}" for i, seg in enumerate(segments, start=1))
    return STEPWISE_SINGLE_TURN.format(segment_num=len(segments), atomic_action_segments=listed)


def next_turn_prompt(previous_scene: str, segment: str) -> str:
    return STEPWISE_NEXT_TURN.format(previous_scene=previous_scene, atomic_actions=segment)


def requested_list_length(prompt: str) -> int | None:
    """How many scene descriptions a stepwise single-turn prompt asks for (None: it asks for one scene)."""
    m = _LIST_ASK.search(prompt)
    return int(m[1]) if m else None


def describe_scene(objects: Sequence[SceneObject]) -> str:
    """A plain description of annotated objects: one sentence per description and per relation.

    Used by the ``oracle`` (final scene) and ``copy-initial`` (initial scene) baselines.
    """
    lines = []
    for o in objects:
        cat = o.category
        desc = o.description.rstrip(". ")
        lines.append(f"There is a {cat}: {desc}." if desc else f"There is a {cat}.")
        for rel in o.relations:
            r = rel.rstrip(". ")
            starts_with_subject = r.lower().startswith(
                (cat.lower(), f"the {cat.lower()}", f"a {cat.lower()}")
            )
            lines.append(f"{r[0].upper()}{r[1:]}." if starts_with_subject else f"The {cat} is {r}.")
        if o.key_state:
            lines.append(f"The {cat} is {o.key_state.rstrip('. ')}.")
    return " ".join(lines)


def describe_scene_list(scenes: Sequence[Sequence[SceneObject]]) -> str:
    """A stepwise single-turn reply: a JSON list of scene descriptions."""
    return json.dumps([describe_scene(s) for s in scenes], ensure_ascii=False)
