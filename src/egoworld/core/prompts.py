"""Prompt text. The default layout follows the VSI-Super-Wild task: the question, "Options:" with
"A) …" lines, then one instruction line; media parts always come before the text.

A benchmark plug-in may register its own `PromptBuilder` (see `egoworld.core.plugin`).
"""

from __future__ import annotations

from collections.abc import Sequence

from egoworld.core.history import history_block
from egoworld.core.letters import letters_for as letters  # the one letter helper
from egoworld.core.permutations import Permutation
from egoworld.core.schema import Sample


def letter_instruction(n: int) -> str:
    """ "Answer with only the letter (A, B, C, or D)." for 4 options; "(A or B)" for 2."""
    ls = letters(n)
    listed = f"{ls[0]} or {ls[1]}" if n == 2 else ", ".join(ls[:-1]) + f", or {ls[-1]}"
    return f"Answer with only the letter ({listed})."


class PromptBuilder:
    """Turns a sample (with its options in a given order) into prompt text and the gold reply."""

    integer_instruction = "Answer with only a single integer number."
    number_instruction = "Answer with only a single number."

    def presented_choices(self, sample: Sample, perm: Permutation | None) -> tuple[str, ...] | None:
        if sample.choices is None:
            return None
        order = perm if perm is not None else range(len(sample.choices))
        return tuple(sample.choices[i] for i in order)

    def question_text(self, sample: Sample, choices: Sequence[str] | None) -> str:
        if sample.answer_type == "choice" and choices:
            options = "\n".join(
                f"{ch}) {text}" for ch, text in zip(letters(len(choices)), choices, strict=True)
            )
            return f"{sample.question}\n\nOptions:\n{options}\n\n{letter_instruction(len(choices))}"
        if sample.answer_type == "integer":
            return f"{sample.question}\n\n{self.integer_instruction}"
        if sample.answer_type == "number":
            return f"{sample.question}\n\n{self.number_instruction}"
        return sample.question

    def gold_reply(self, sample: Sample, perm: Permutation | None) -> str | None:
        """The correct reply in the form the prompt asks for (the oracle's answer)."""
        if sample.answer_type == "choice":
            order = list(perm) if perm is not None else list(range(len(sample.choices or ())))
            position = min(order.index(i) for i in sample.correct_indices)
            return letters(len(order))[position]
        if sample.answer_type == "integer":
            return str(int(sample.answer))
        if sample.answer_type == "number":
            return f"{float(sample.answer):g}"
        return sample.answer if isinstance(sample.answer, str) else None

    def with_history(self, text: str, steps: Sequence[tuple[Sample, str]]) -> str:
        """The prompt with earlier trajectory steps and their answers (``--history gold|pred``)."""
        return history_block(steps) + text

    def answer_text(self, sample: Sample, value: int | float | None) -> str:
        """How an answer is written back into a trajectory history (option text, not a letter)."""
        if value is None:
            return "(no answer)"
        if sample.answer_type == "choice" and sample.choices is not None:
            return sample.choices[int(value)]
        return f"{value:g}" if isinstance(value, float) else str(value)
