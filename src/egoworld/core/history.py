"""Trajectory histories: how earlier steps of a multi-step trajectory are shown to later steps.

Modes: ``none`` (each step alone), ``gold`` (earlier questions with their correct answers) and ``pred``
(earlier questions with the model's own parsed answers — errors propagate, as in Beyond3D's analyses).
"""

from __future__ import annotations

from collections.abc import Sequence

from egoworld.core.schema import Sample

HISTORY_MODES = ("none", "gold", "pred")


def history_block(steps: Sequence[tuple[Sample, str]]) -> str:
    """Text shown before the current question: each earlier question and its answer text."""
    if not steps:
        return ""
    lines = ["Earlier questions and their answers:"]
    for i, (sample, answer) in enumerate(steps, start=1):
        lines.append(f"Q{i}: {sample.question}")
        lines.append(f"A{i}: {answer}")
    return "\n".join(lines) + "\n\n"
