"""Decisions where egoworld's extractor and the official harnesses differ (each documented in the README),
and `--scoring official`, which reproduces the official per-sample rules."""

from __future__ import annotations

import pytest

from egoworld.benchmarks.beyond3d.official import b3d_choice_index, b3d_time_point
from egoworld.benchmarks.vsi_wild.official import vsi_letter
from egoworld.core.schema import Sample
from egoworld.scoring.extract import extract_choice, extract_number
from egoworld.scoring.official import official_score
from egoworld.scoring.timepoint import TimePoint, parse_time_point, score_time_point, time_token

DIRECTIONS = ("left", "right", "forward", "back")


def _vsi(answer_type: str, answer: object, choices: tuple[str, ...] | None = None) -> Sample:
    return Sample(
        id="q", benchmark="vsi_wild", task="VMR" if choices else "VOC", question="?",
        answer_type=answer_type, choices=choices, answer=answer,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "ours", "official"),
    [
        ("A or B", None, 0),  # hedge: we refuse, the official takes the leading letter
        (
            "D. forward",
            None,
            3,
        ),  # letter contradicts its option text: we refuse, the official trusts the letter
        ("C. forward", 2, 2),
        ("A. No wait, option C", 0, 2),  # the official's OPTION X anywhere comes before the leading letter
        ("The answer is (B).", 1, 1),
        (
            "I think it goes back.",
            3,
            None,
        ),  # an option text alone: ours reads it, the official needs a letter
    ],
)
def test_vsi_choice_decisions(reply: str, ours: int | None, official: int | None) -> None:
    assert extract_choice(reply, DIRECTIONS).value == ours
    letter = vsi_letter(reply)
    assert (ord(letter) - ord("A") if letter else None) == official
    res = official_score(_vsi("choice", 2, DIRECTIONS), reply, DIRECTIONS)
    assert res.value == official and res.parsed == (official is not None)


@pytest.mark.parametrize(
    ("reply", "ours", "official"),
    [
        ("2 or 3", None, 2),  # hedged counts: unparsed for us (as hedged letters), first number officially
        ("7-9", None, 7),
        ("about 5 to 6 cups", None, 5),
        (
            "53.5",
            None,
            53,
        ),  # a non-integer count: unparsed for us (no rounding), the digits before "." officially
        ("-63", None, 63),  # a negative count: unparsed for us, the sign dropped officially
        ("1,000", 1000, 1),  # thousands separator: 1000 for us, the first run of digits (1) officially
        ("There are 12 chairs.", 12, 12),
        ("no idea", None, 0),  # no number: unparsed (0) for us, 0 officially
    ],
)
def test_vsi_count_decisions(reply: str, ours: int | None, official: int) -> None:
    assert extract_number(reply).value == ours
    res = official_score(_vsi("integer", 10), reply, None)
    assert res.value == official
    assert res.score == pytest.approx(max(0.0, 1 - abs(official - 10) / 10))


def test_beyond3d_official_choice_rules() -> None:
    assert b3d_choice_index("C. close", ["far", "medium", "close"]) == 2
    assert b3d_choice_index("C. close", ["close", "medium", "far"]) == 2  # the letter wins over the text
    assert b3d_choice_index("Yes, it is.", ["No", "Yes"]) == 1
    assert b3d_choice_index("Final answer: (B)", ["x", "y", "z"]) == 1
    assert b3d_choice_index("reasoning</think> ignored", ["x", "y"]) == -1
    assert b3d_choice_index("far\nQuestion: echo A", ["close", "medium", "far"]) == 2
    assert b3d_choice_index("Front-left", ["Back-left", "Front-left"]) == 1
    assert b3d_choice_index("zzz", ["close", "far"]) == -1
    s = Sample(id="q", benchmark="beyond3d", task="visibility", question="?", answer_type="choice",
               choices=("No", "Yes"), answer=1)  # fmt: skip
    assert official_score(s, "B", s.choices).value == 1


ANSWER = {
    "candidates": [{"time_s": 39.4667, "x": 0.8717, "y": 0.8015}, {"time_s": 42.0, "x": 1.0498, "y": 0.6576}],
    "time_tolerance_s": 3.0,
    "point_tolerance": 0.2,
}


def test_time_point_parsing_and_tolerances() -> None:
    assert time_token(39.4666) == "<TIME 00:00:39.5 video 1>"
    assert time_token(3725.0) == "<TIME 01:02:05.0 video 1>"
    tp = parse_time_point("<think>(0.1, 0.1)</think><TIME 00:00:40.0 video 1>; Point=(0.85, 0.75)")
    assert tp == TimePoint(40.0, 0.85, 0.75)
    assert score_time_point(tp, ANSWER).score == 1.0
    # exactly on the tolerances is inside; just past is outside; any candidate may match
    edge = {"candidates": [{"time_s": 40.0, "x": 0.5, "y": 0.5}, {"time_s": 50.0, "x": 0.25, "y": 0.25}],
            "time_tolerance_s": 3.0, "point_tolerance": 0.25}  # fmt: skip
    assert score_time_point(TimePoint(43.0, 0.75, 0.25), edge).score == 1.0
    assert score_time_point(TimePoint(43.5, 0.5, 0.5), edge).score == 0.0
    assert score_time_point(TimePoint(40.0, 0.5, 0.76), edge).score == 0.0
    hit = score_time_point(TimePoint(52.0, 0.3, 0.3), edge)
    assert hit.score == 1.0 and hit.matched == 1 and hit.time_error_s == 2.0
    assert score_time_point(TimePoint(None, 0.87, 0.80), ANSWER).score == 0.0
    time_only = ANSWER | {"time_only": True}
    assert score_time_point(TimePoint(41.0, None, None), time_only).score == 1.0
    # MM:SS inside the token: parsed by ours (the error still counts), unparsed by the official parser
    reply = "<TIME 00:38.0 video 1>; Point=(0.81, 0.47)"
    assert parse_time_point(reply) == TimePoint(38.0, 0.81, 0.47)
    assert b3d_time_point(reply, time_only=False) == TimePoint(None, 0.81, 0.47)
    assert score_time_point(parse_time_point(reply), ANSWER).score == 0.0  # point is 0.33 off
    # the official parser's fallbacks: "Time: 12 s" and a bare float triple
    assert b3d_time_point("Time: 12 s, Point=(0.1, 0.2)", time_only=False) == TimePoint(12.0, 0.1, 0.2)
    assert b3d_time_point("12.0 0.1 0.2", time_only=False) == TimePoint(12.0, 0.1, 0.2)


def test_official_rules_come_from_the_benchmark_plugin() -> None:
    """`--scoring official` calls the plug-in's ``official_score`` hook; a benchmark without one is refused."""
    from egoworld.core.plugin import plugin_for

    assert plugin_for("vsi_wild").official_score is not None
    assert plugin_for("beyond3d").official_score is not None
    s = Sample(id="q", benchmark="toy", task="T", question="?", answer_type="integer", answer=3)
    with pytest.raises(ValueError, match="no official rules are known for benchmark 'toy'"):
        official_score(s, "3", None)
