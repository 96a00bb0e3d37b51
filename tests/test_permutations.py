"""Option orders and prompts under permutation."""

from __future__ import annotations

import itertools

import pytest

from egoworld.core.permutations import (
    all_orders,
    order_index,
    orders_for,
    parse_mode,
    parse_permutation_id,
    permutation_id,
)
from egoworld.core.prompts import PromptBuilder, letter_instruction
from egoworld.core.schema import Sample


def test_all_orders_are_lexicographic_and_ranked():
    orders = all_orders(4)
    assert len(orders) == 24 and orders[0] == (0, 1, 2, 3) and orders[-1] == (3, 2, 1, 0)
    assert [order_index(p) for p in orders] == list(range(24))
    assert list(orders) == list(itertools.permutations(range(4)))


def test_modes():
    assert orders_for(4, "none", 0, "s") == [(0, 1, 2, 3)]
    assert len(orders_for(4, "shuffle24", 0, "s")) == 24
    assert orders_for(None, "shuffle24", 0, "s") == [None]
    assert len(orders_for(2, "shuffle24", 0, "s")) == 2
    assert orders_for(5, "shuffle24", 0, "s") == [(0, 1, 2, 3, 4)]
    assert len(orders_for(5, "all", 0, "s")) == 120
    with pytest.raises(ValueError):
        parse_mode("sometimes")


def test_sampled_orders_are_distinct_deterministic_and_per_sample():
    a = orders_for(4, 6, 0, "q1")
    assert len(set(a)) == 6 and a == orders_for(4, 6, 0, "q1")
    assert a != orders_for(4, 6, 0, "q2") or a != orders_for(4, 6, 1, "q1")
    assert len(orders_for(4, 30, 0, "q1")) == 24
    big = orders_for(12, 5, 0, "q1")
    assert len(set(big)) == 5 and all(sorted(p) == list(range(12)) for p in big)


def test_permutation_ids_round_trip():
    for p in [(0, 1, 2, 3), (3, 1, 0, 2), tuple(range(12))[::-1], None]:
        assert parse_permutation_id(permutation_id(p)) == p


def test_prompt_and_gold_follow_the_order():
    s = Sample(
        id="s",
        benchmark="b",
        task="t",
        question="Which way?",
        answer_type="choice",
        choices=("forward", "left", "backward", "right"),
        answer=2,
    )
    pb = PromptBuilder()
    perm = (2, 0, 3, 1)
    shown = pb.presented_choices(s, perm)
    assert shown == ("backward", "forward", "right", "left")
    text = pb.question_text(s, shown)
    assert text == (
        "Which way?\n\nOptions:\nA) backward\nB) forward\nC) right\nD) left\n\n"
        "Answer with only the letter (A, B, C, or D)."
    )
    assert pb.gold_reply(s, perm) == "A"
    assert pb.gold_reply(s, (0, 1, 2, 3)) == "C"
    assert letter_instruction(2) == "Answer with only the letter (A or B)."
    assert letter_instruction(5) == "Answer with only the letter (A, B, C, D, or E)."
    n = Sample(id="n", benchmark="b", task="t", question="How many?", answer_type="integer", answer=4)
    assert pb.question_text(n, None).endswith("Answer with only a single integer number.")
    assert pb.gold_reply(n, None) == "4"
