"""The answer extractor on realistic model replies (Qwen, GPT-4o, Gemini, InternVL styles)."""

from __future__ import annotations

import pytest

from egoworld.core.letters import letters_for
from egoworld.scoring.extract import (
    Extraction,
    extract_answer,
    extract_choice,
    extract_number,
    strip_reasoning,
)

# Option sets as presented (texts without letters), in the VSI-Super-Wild styles and others.
DIRS = ["forward", "left", "backward", "right"]  # VMR
DIRS_B = ["left", "backward", "right", "forward"]
DIAG = ["forward-right", "backward-left", "forward-left", "backward-right"]
MIXED = ["forward", "left", "forward-left", "right"]
FRAMES = [
    "Frame 3 → Frame 2 → Frame 1 → Frame 4",
    "Frame 1 → Frame 3 → Frame 4 → Frame 2",
    "Frame 4 → Frame 3 → Frame 1 → Frame 2",
    "Frame 1 → Frame 2 → Frame 3 → Frame 4",
]  # VPO
OBJECTS = [
    "sign → railing → kiosk → traffic cone",
    "traffic cone → sign → railing → kiosk",
    "sign → kiosk → traffic cone → railing",
    "kiosk → railing → traffic cone → sign",
]  # VOO
SIGNS = [
    "A-frame sign → kiosk → bench → tree",
    "kiosk → A-frame sign → tree → bench",
    "bench → tree → kiosk → A-frame sign",
    "tree → bench → A-frame sign → kiosk",
]
YES_NO = ["No", "Yes"]
YES_NO_B = ["yes", "no"]
TIMES = [
    "00:00:41 — 54 seconds before the end",
    "00:01:02 — 33 seconds before the end",
    "00:01:23 — 12 seconds before the end",
    "00:00:15 — 80 seconds before the end",
    "00:01:31 — 4 seconds before the end",
]
BINS = ["under 1 m", "1 to under 1.5 m", "1.5 m or more"]
CLOCK = ["12 to 4:30 o'clock", "4:30 to 9 o'clock", "9 to 12 o'clock"]

# (reply, answer_type, presented choices, expected value: choice index / number / None for unparsed)
CASES: list[tuple[str, str, list[str] | None, int | float | None]] = [
    # --- bare letters and letter formats
    ("B", "choice", DIRS, 1),
    ("(B)", "choice", DIRS, 1),
    ("B.", "choice", DIRS, 1),
    ("B)", "choice", DIRS, 1),
    ("[C]", "choice", DIRS, 2),
    ("A", "choice", DIRS, 0),
    ("b", "choice", DIRS, 1),
    ("**D**", "choice", DIRS, 3),
    ("Option B", "choice", DIRS, 1),
    ("  C \n", "choice", DIRS, 2),
    ("Answer: B", "choice", DIRS, 1),
    ("answer: (b)", "choice", DIRS, 1),
    ("The answer is B", "choice", DIRS, 1),
    ("the answer is c.", "choice", DIRS, 2),
    ("The correct answer is option B.", "choice", DIRS, 1),
    ("**Answer:** C", "choice", DIRS, 2),
    ("### Answer\nD", "choice", DIRS, 3),
    ("Final answer: C", "choice", DIRS, 2),
    ("I choose B.", "choice", DIRS, 1),
    ("I think it is B", "choice", DIRS, 1),
    ("It's D.", "choice", DIRS, 3),
    ("The best answer would be (D) because the camera backs away from the door.", "choice", DIRS, 3),
    ("C is the correct answer.", "choice", DIRS, 2),
    ("$\\boxed{A}$", "choice", DIRS, 0),
    # --- a letter with its option text
    ("B. left", "choice", DIRS, 1),
    ("**B) left**", "choice", DIRS, 1),
    ("D - right", "choice", DIRS, 3),
    ("C. sign → kiosk → traffic cone → railing", "choice", OBJECTS, 2),
    ("B. forward", "choice", DIRS, None),  # B is "left": letter and text disagree
    # --- wrong letters, articles, hedges
    ("E", "choice", DIRS, None),
    ("The answer is E.", "choice", DIRS, None),
    ("E", "choice", TIMES, 4),
    ("C", "choice", BINS, 2),
    ("D", "choice", BINS, None),
    ("A person is walking forward along the sidewalk.", "choice", DIRS_B, 3),
    ("Answer: A person walks to the left of the kiosk.", "choice", DIRS, 1),
    ("I would say A woman crosses to the right.", "choice", DIRS, 3),
    ("The answer is a bit unclear from these frames.", "choice", DIRS, None),
    ("It is not A, it is C.", "choice", DIRS, 2),
    ("Not A. It's C.", "choice", DIRS, 2),
    ("The answer is A. No wait, the answer is C.", "choice", DIRS, None),
    ("The answer is B or C.", "choice", DIRS, None),
    ("Answer: A, C", "choice", DIRS, None),
    ("The answer is B, C is wrong because the scene recedes.", "choice", DIRS, 1),
    ("The answer is A (forward).", "choice", DIRS, 0),
    ("Between A and C, I'd say C.", "choice", DIRS, 2),
    ("Option A is incorrect. Option C is correct.", "choice", DIRS, 2),
    # --- chatty multi-line replies
    (
        "To determine the direction, let's look at the frames.\n"
        "Initially the camera faces the kiosk. Then the kiosk drifts to the right of the frame, "
        "so the camera is turning left.\n\nTherefore, the correct answer is:\n\n**B. left**",
        "choice",
        DIRS,
        1,
    ),
    (
        "Based on the video, the person walks toward the camera's right side.\n\n**Answer:** D",
        "choice",
        DIRS,
        3,
    ),
    ("The answer is A.\nOn reflection, since the scene recedes, the answer is C.", "choice", DIRS, 2),
    ("Let me analyse the motion.\nThe scene grows larger over time.\n\nA", "choice", DIRS, 0),
    ("B\n\nThe camera pans left; it is not moving forward.", "choice", DIRS, 1),
    ("Looking at each option: A) forward does not fit, the scene recedes, so I choose C.", "choice", DIRS, 2),
    ("D - it moves right, not left.", "choice", DIRS, 3),
    ("A) forward\nB) left\nC) backward\nD) right", "choice", DIRS, None),  # echoed options
    ("A) forward\nB) left\nC) backward\nD) right\n\nAnswer: C", "choice", DIRS, 2),
    ("A. The camera keeps moving forward past the parked cars.", "choice", DIRS, 0),
    ("B. forward\n\nThe scene grows larger as the camera advances.", "choice", DIRS, None),
    # --- option text
    ("left", "choice", DIRS_B, 0),
    ("The camera moves backward.", "choice", DIRS_B, 1),
    ("The camera moves forward, then turns left.", "choice", DIRS, None),
    ("The camera moves forward-left.", "choice", MIXED, 2),
    ("The person moves forward left, toward the bench.", "choice", DIAG, 2),
    ("It moves forward left.", "choice", MIXED, 2),
    ("The camera moves forward-left.", "choice", DIRS, None),  # not an option here
    ("The answer is forward-left, not forward.", "choice", MIXED, 2),
    ("Frame 1 -> Frame 3 -> Frame 4 -> Frame 2", "choice", FRAMES, 1),
    ("The correct order is Frame 1 →  Frame 2→Frame 3 → Frame 4.", "choice", FRAMES, 3),
    ("Frame 1 shows the gate and Frame 3 the fountain, so the order is unclear.", "choice", FRAMES, None),
    ("The objects appear in this order: traffic cone → sign → railing → kiosk.", "choice", OBJECTS, 1),
    ("The answer is A-frame sign -> kiosk -> bench -> tree.", "choice", SIGNS, 0),
    ("I'd say A-frame sign first, then the kiosk.", "choice", SIGNS, None),
    ("First the sign, then the kiosk, the traffic cone and finally the railing.", "choice", OBJECTS, None),
    ("1.5 m or more", "choice", BINS, 2),
    ("It is about 1.2 m, so 1 to under 1.5 m.", "choice", BINS, 1),
    ("The gap is under 1 m.", "choice", BINS, 0),
    ("The hand points between 12 to 4:30 o’clock.", "choice", CLOCK, 0),
    ("B) 4:30 to 9 o'clock", "choice", CLOCK, 1),
    ("C. 00:01:23 - 12 seconds before the end", "choice", TIMES, 2),
    ("The event happens at 00:01:02, about half a minute before the end.", "choice", TIMES, 1),
    ("It happens 80 seconds before the end.", "choice", TIMES, 3),
    # --- yes / no
    ("Yes, it is visible.", "choice", YES_NO, 1),
    ("No.", "choice", YES_NO, 0),
    ("No the bench is gone by the end.", "choice", YES_NO, 0),
    ("no", "choice", YES_NO_B, 1),
    ("Yes", "choice", YES_NO_B, 0),
    ("No, the traffic cone does not appear again after the turn.", "choice", YES_NO, 0),
    ("It is not visible.", "choice", YES_NO, None),
    ("There is no doubt the sign is still there.", "choice", YES_NO, None),
    ("Looking at the last frames, the bench is still there. So the answer is yes.", "choice", YES_NO, 1),
    ("B", "choice", YES_NO, 1),
    # --- reasoning blocks
    ("<think>\nThe kiosk moves right in the frame, so the answer is A.\n</think>\n\nB", "choice", DIRS, 1),
    ("<think>\nLet me check each frame. The answer is C... wait, final answer: D", "choice", DIRS, 3),
    ("<think>The camera goes left, so B.</think>", "choice", DIRS, None),
    ("<think>I think it is B.</think>", "choice", DIRS, None),
    ("<think>So the answer is B.</think>\n\n", "choice", DIRS, 1),
    ("The scene recedes, the answer is A.</think>\n\nC", "choice", DIRS, 2),
    ("<thinking>Answer: A? No. The answer is backward.</thinking>", "choice", DIRS, 2),
    # --- refusals and empties
    ("I cannot determine this from the video.", "choice", DIRS, None),
    ("I'm sorry, I can't see the video, so I can't say whether it moved left.", "choice", DIRS, None),
    ("No, I cannot determine that from these frames.", "choice", YES_NO, None),
    ("", "choice", DIRS, None),
    ("   \n ", "choice", DIRS, None),
    # --- integers (VOC counting)
    ("42", "integer", None, 42),
    ("42.", "integer", None, 42),
    ("The answer is 42", "integer", None, 42),
    ("There are 7 traffic cones.", "integer", None, 7),
    ("**12**", "integer", None, 12),
    ("Count: 3", "integer", None, 3),
    ("seven", "integer", None, 7),
    ("Twelve.", "integer", None, 12),
    ("There are twenty-one stone blocks.", "integer", None, 21),
    ("one hundred and five", "integer", None, 105),
    ("zero", "integer", None, 0),
    ("a dozen", "integer", None, 12),
    ("1,234", "integer", None, 1234),
    ("about 15", "integer", None, 15),
    ("3.5", "integer", None, None),
    ("4.0", "integer", None, 4),
    ("-2", "integer", None, None),
    ("There are 3 chairs: 2 near the table and 1 by the window.", "integer", None, 3),
    ("I see 2 chairs near the table and 4 by the window.\nSo 6 chairs.", "integer", None, 6),
    ("There are 3 on the left and there are 4 on the right, so 7 cones in total.", "integer", None, 7),
    ("The 1st cone is by the gate and the 2nd by the kiosk. Total: 4", "integer", None, 4),
    ("Frame 2 shows 3 signs and frame 8 shows 2 more; the total number of signs is 5.", "integer", None, 5),
    ("I count three A-frame signs, one of which is folded.", "integer", None, 3),
    ("5 cones along the path, and the one by the gate is orange.", "integer", None, 5),
    ("I see 3 cones at the start and I see 4 more near the end: 7 cones.", "integer", None, 7),
    (
        "Throughout the video I observed the following stone blocks:\n"
        "- 4 near the entrance\n- 6 along the wall\n\nFinal answer: 10",
        "integer",
        None,
        10,
    ),
    ("I'd estimate roughly 15 people in the plaza.", "integer", None, 15),
    ("\\boxed{8}", "integer", None, 8),
    ("<think>4 on the left, 3 on the right, so the total is 7.</think>", "integer", None, 7),
    ("<think>There are 7 cones.</think>", "integer", None, None),
    ("<think>\nCounting... 1, 2, 3, 4", "integer", None, None),
    ("I cannot determine the number of chairs from only 2 frames.", "integer", None, None),
    ("I'm sorry, but I can't count objects in a video.", "integer", None, None),
    ("There are no traffic cones I can see.", "integer", None, None),
    ("", "integer", None, None),
    # --- real numbers
    ("3.5", "number", None, 3.5),
    ("The distance is about 2.5 meters.", "number", None, 2.5),
    ("-1.25", "number", None, -1.25),
    ("The answer is 4", "number", None, 4.0),
    ("The room is 3-4 m wide; the answer is 3.6 m.", "number", None, 3.6),
]


@pytest.mark.parametrize(("reply", "answer_type", "choices", "expected"), CASES)
def test_extract_table(
    reply: str, answer_type: str, choices: list[str] | None, expected: float | None
) -> None:
    ex = extract_answer(reply, answer_type, choices)
    assert ex.value == expected
    assert ex.parsed is (expected is not None)
    assert (ex.rule is None) is (expected is None)
    if expected is not None and answer_type in ("choice", "integer"):
        assert type(ex.value) is int
    if expected is not None and answer_type == "number":
        assert type(ex.value) is float


def test_table_is_large() -> None:
    assert len(CASES) >= 70


@pytest.mark.parametrize(
    ("reply", "choices", "value", "rule"),
    [
        ("B", DIRS, 1, "letter_whole"),
        ("B. left", DIRS, 1, "letter_option"),
        ("Final answer: (C)", DIRS, 2, "letter_final"),
        ("Final answer: backward", DIRS, 2, "option_final"),
        ("Some thoughts first.\nMore thoughts.\nC", DIRS, 2, "last_line"),
        ("The answer is C because the scene recedes.", DIRS, 2, "letter_explicit"),
        ("The correct answer is backward.", DIRS, 2, "option_explicit"),
        ("C) The scene recedes as the camera backs up.", DIRS, 2, "letter_leading"),
        ("Yes, the sign is visible.", YES_NO, 1, "yes_no"),
        ("The camera moves backward.", DIRS, 2, "option_text"),
        ("<think>so the answer is C", DIRS, 2, "reasoning_answer"),
    ],
)
def test_choice_rule_names(reply: str, choices: list[str], value: int, rule: str) -> None:
    assert extract_choice(reply, choices) == Extraction(value, True, rule)


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("7", "number_whole"),
        ("Seven.", "integer_word"),
        ("Final count: 7", "number_final"),
        ("The 2 frames show 3 and 4 cones, so the answer is 7.", "number_explicit"),
        ("There are 7 cones; 3 of them are orange.", "number_stated"),
        ("Probably 7 cones", "number_last"),
        ("<think>the total is 7</think>", "reasoning_answer"),
    ],
)
def test_number_rule_names(reply: str, rule: str) -> None:
    assert extract_number(reply) == Extraction(7, True, rule)


def test_unparsed_is_never_a_guess() -> None:
    assert extract_choice("I cannot determine this from the video.", DIRS) == Extraction(None, False, None)
    assert extract_number("I'm sorry, I can't see the video") == Extraction(None, False, None)


def test_letters_for() -> None:
    assert letters_for(4) == ["A", "B", "C", "D"]
    assert letters_for(2) == ["A", "B"]
    assert len(letters_for(26)) == 26
    with pytest.raises(ValueError):
        letters_for(27)


def test_extract_answer_dispatches() -> None:
    assert extract_answer("3.5", "number") == Extraction(3.5, True, "number_whole")
    assert extract_answer("3.5", "integer") == Extraction(None, False, None)
    assert extract_answer("C", "choice", DIRS) == extract_choice("C", DIRS)
    assert extract_answer("seven", "integer") == extract_number("seven", integer=True)


@pytest.mark.parametrize("answer_type", ["free", "text", "", "Choice"])
def test_extract_answer_rejects_unknown_types(answer_type: str) -> None:
    with pytest.raises(ValueError):
        extract_answer("B", answer_type, DIRS)


def test_choice_needs_choices() -> None:
    with pytest.raises(ValueError):
        extract_answer("B", "choice", None)
    with pytest.raises(ValueError):
        extract_choice("B", [])


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        ("<think>hmm, A?</think>\n\nB", "B"),
        ("<THINK>x</THINK> B <reasoning>y</reasoning>", "B"),
        ("<thinking>\nlong\n</thinking>\nAnswer: C", "Answer: C"),
        ("A\n<think>truncated reasoning that never ends", "A"),
        ("reasoning whose opening tag was in the prompt</think>\n\nD", "D"),
        ("no tags at all", "no tags at all"),
    ],
)
def test_strip_reasoning(text: str, stripped: str) -> None:
    assert strip_reasoning(text) == stripped


def test_reasoning_fallback_takes_last_explicit_statement_only() -> None:
    assert extract_choice("<think>The answer is A. Hmm, no: the answer is D.</think>", DIRS).value == 3
    # plain mentions are not enough, and an answer after the block wins over the block
    assert not extract_choice("<think>B looks plausible, maybe D.</think>", DIRS).parsed
    assert extract_choice("<think>the answer is A</think>C", DIRS).value == 2


def test_option_order_is_as_presented() -> None:
    assert extract_choice("left", DIRS).value == 1
    assert extract_choice("left", DIRS_B).value == 0
    assert extract_choice("B", list(reversed(FRAMES))).value == 1
