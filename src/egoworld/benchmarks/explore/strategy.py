"""Inference strategies: one-go, or stepwise by ``segment_num`` / ``window_size`` in one turn or many.

* ``one-go``: one request with every action; the reply is the final scene.
* ``stepwise`` + ``single`` turn: one request lists the segments and asks for a JSON list with one scene per
  segment (the last is the final scene).
* ``stepwise`` + ``multi`` turn: one request per segment; turn 1 uses the one-go prompt on segment 1, turn k
  carries the description returned by turn k−1 and re-sends the initial image.

Segments: ``segment_num`` equal parts (size n // k, the last takes the remainder) or windows of
``window_size`` actions (the last may be shorter). Unlike the public code, a sequence shorter than
``segment_num`` is split into one-action segments instead of leading empty segments.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from egoworld.benchmarks.explore.instances import split_actions


@dataclass(frozen=True)
class Strategy:
    kind: Literal["one-go", "stepwise"] = "one-go"
    segment_num: int | None = None
    window_size: int | None = None
    turns: Literal["single", "multi"] = "single"

    def __post_init__(self) -> None:
        if self.kind not in ("one-go", "stepwise"):
            raise ValueError(f"strategy {self.kind!r}: expected one-go or stepwise")
        if self.turns not in ("single", "multi"):
            raise ValueError(f"turns {self.turns!r}: expected single or multi")
        if self.kind == "one-go":
            if self.segment_num not in (None, 1) or self.window_size is not None:
                raise ValueError("one-go takes no segment_num / window_size (use --option strategy=stepwise)")
            return
        if (self.segment_num is None) == (self.window_size is None):
            raise ValueError("stepwise needs exactly one of segment_num (≥ 2) or window_size (≥ 1)")
        if self.segment_num is not None and self.segment_num < 2:
            raise ValueError(f"segment_num must be at least 2, got {self.segment_num}")
        if self.window_size is not None and self.window_size < 1:
            raise ValueError(f"window_size must be at least 1, got {self.window_size}")

    def describe(self) -> dict[str, Any]:
        if self.kind == "one-go":
            return {"kind": "one-go"}
        out: dict[str, Any] = {"kind": "stepwise", "turns": self.turns}
        if self.segment_num is not None:
            out["segment_num"] = self.segment_num
        else:
            out["window_size"] = self.window_size
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Strategy:
        d = d or {"kind": "one-go"}
        return cls(
            kind=d.get("kind", "one-go"),
            segment_num=d.get("segment_num"),
            window_size=d.get("window_size"),
            turns=d.get("turns", "single"),
        )

    @property
    def label(self) -> str:
        if self.kind == "one-go":
            return "one-go"
        split = f"seg{self.segment_num}" if self.segment_num else f"win{self.window_size}"
        return f"stepwise-{split}-{self.turns}"

    def segments(self, actions_text: str) -> list[str]:
        """The ``|``-joined action string of each step (one step for one-go)."""
        if self.kind == "one-go":
            return [actions_text]
        acts = split_actions(actions_text)
        if self.window_size is not None:
            groups = [acts[i : i + self.window_size] for i in range(0, len(acts), self.window_size)]
        else:
            k = min(int(self.segment_num or 1), len(acts))
            size = len(acts) // k
            groups = [acts[i * size : (i + 1) * size] for i in range(k - 1)] + [acts[(k - 1) * size :]]
        return ["|".join(g) for g in groups]

    def step_ends(self, actions_text: str) -> list[int]:
        """Number of actions done at the end of each step."""
        ends, done = [], 0
        for seg in self.segments(actions_text):
            done += len(split_actions(seg))
            ends.append(done)
        return ends


def step_labels(strategy: Strategy, actions_text: str) -> list[str]:
    """Store labels (the ``permutation`` column) of a sample's requests, in order."""
    if strategy.kind == "one-go":
        return ["one-go"]
    if strategy.turns == "single":
        return ["list"]
    return [f"turn-{i:03d}" for i in range(1, len(strategy.segments(actions_text)) + 1)]


# -- replies --------------------------------------------------------------------------------------------------
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*([\s\S]*?)\s*```")
_SCENE_HEAD = re.compile(r"(?im)^\s*[#*\s]*scene\s*(\d+)\s*[:.)\-–]*\**\s*")


def clean_reply(text: str) -> str:
    """Drop reasoning (``<think>…</think>`` or anything before a lone ``</think>``) and answer wrappers."""
    text = _THINK.sub("", text)
    if "</think>" in text:
        text = text.split("</think>", 1)[1]
    for tag in ("<|begin_of_box|>", "<|end_of_box|>", "<answer>", "</answer>"):
        text = text.replace(tag, "")
    return text.strip()


def _balanced_lists(text: str) -> list[str]:
    """Every top-level ``[...]`` span, with brackets inside JSON strings ignored."""
    spans, depth, start, in_str, esc = [], 0, -1, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == "[":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "]" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _as_strings(value: Any) -> list[str] | None:
    if not isinstance(value, list) or not value:
        return None
    out = []
    for v in value:
        if isinstance(v, str):
            out.append(v.strip())
        elif isinstance(v, dict) and len(v) == 1 and isinstance(next(iter(v.values())), str):
            out.append(next(iter(v.values())).strip())  # [{"Scene 1": "..."}] — tolerated
        else:
            return None
    return out


def _load_list(text: str) -> list[str] | None:
    fixed = re.sub(r",\s*\]", "]", text.replace("“", '"').replace("”", '"'))
    for loader in (json.loads, ast.literal_eval):
        try:
            got = _as_strings(loader(fixed))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if got is not None:
            return got
    return None


def parse_scene_list(text: str) -> tuple[list[str] | None, str]:
    """Scene descriptions from a stepwise single-turn reply, and the rule that found them.

    Tries, in order: a fenced code block, each balanced top-level list (JSON, then Python literal, with smart
    quotes and trailing commas repaired), then "Scene 1: … Scene 2: …" headings. Returns (None, "failed") when
    nothing parses.
    """
    text = clean_reply(text)
    candidates = [m[1] for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        for span in sorted(_balanced_lists(cand), key=len, reverse=True):
            got = _load_list(span)
            if got is not None:
                return got, "json"
    heads = list(_SCENE_HEAD.finditer(text))
    if len(heads) >= 2:
        parts = [
            text[h.end() : (heads[i + 1].start() if i + 1 < len(heads) else len(text))]
            for i, h in enumerate(heads)
        ]
        parts = [p.strip().strip('"').strip() for p in parts]
        if all(parts):
            return parts, "headings"
    return None, "failed"
