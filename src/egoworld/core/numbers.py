"""One validated numeric type for every number egoworld reads from a file.

A number is accepted only when it is what its field means: ``true`` is not 1, ``3.7`` is not a count of 3,
``-5`` is not a count, NaN and ±Infinity are not numbers, and an integer beyond ±2**53 (where JSON readers
start losing digits) is refused. `check_number` is the rule; the pydantic types below (`Count`,
`PositiveCount`, `Seconds`, `PositiveFloat`, `Finite`, `WholeNumber`) apply it to schema fields, and `parse_number` to CSV cells.
JSON itself is read with `strict_loads`, which refuses the non-standard tokens ``NaN`` / ``Infinity`` and
literals that overflow a float, naming the line and column.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from functools import partial
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BeforeValidator

#: largest integer magnitude accepted: exact in a float64 and in every JSON reader
MAX_INT = 2**53
#: longest integer literal `strict_loads` reads (beyond that, a number is a mistake or an attack)
MAX_INT_DIGITS = 30

Kind = Literal["int", "float"]


def check_number(
    value: Any,
    *,
    kind: Kind = "float",
    ge: float | None = None,
    gt: float | None = None,
    allow_str: bool = False,
) -> int | float:
    """``value`` as an int (``kind="int"``) or float, or `ValueError` saying why it is not one.

    Refused: booleans, non-numbers (strings unless ``allow_str``), NaN, ±Infinity, magnitudes above
    `MAX_INT`, a fractional value where a whole number belongs, and values below ``ge`` / not above ``gt``.
    """
    if isinstance(value, str) and allow_str:
        value = _from_text(value, kind)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        what = "a boolean" if isinstance(value, bool | np.bool_) else type(value).__name__
        raise ValueError(f"expected a number, got {what} {json.dumps(value, default=str)}")
    number: int | float = int(value) if isinstance(value, numbers.Integral) else float(value)  # numpy too
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(f"{number} is not a finite number (NaN and ±Infinity are refused)")
    if abs(number) > MAX_INT:
        raise ValueError(f"{_short(number)} is too large (limit ±2**53)")
    if kind == "int":
        if isinstance(number, float):
            if not number.is_integer():
                raise ValueError(f"{number} is not a whole number (it would be truncated to {int(number)})")
            number = int(number)
    else:
        number = float(number)
    if ge is not None and number < ge:
        raise ValueError(f"{number} is below the minimum {ge:g}")
    if gt is not None and number <= gt:
        raise ValueError(f"{number} must be greater than {gt:g}")
    return number


def parse_number(
    text: str, *, kind: Kind = "float", ge: float | None = None, gt: float | None = None
) -> int | float:
    """A CSV cell as a number (`check_number` rules; surrounding spaces are ignored)."""
    return check_number(text, kind=kind, ge=ge, gt=gt, allow_str=True)


def _from_text(text: str, kind: Kind) -> int | float:
    t = text.strip()
    if kind == "int" and re.fullmatch(r"[+-]?\d+", t):
        if len(t.lstrip("+-")) > MAX_INT_DIGITS:
            raise ValueError(f"{_short(t)} is too large (limit ±2**53)")
        return int(t)
    try:
        return float(t)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


def _short(value: Any) -> str:
    s = str(value)
    return s if len(s) <= 24 else f"{s[:12]}…({len(s)} digits)"


def _field(kind: Kind, ge: float | None = None, gt: float | None = None) -> BeforeValidator:
    return BeforeValidator(partial(check_number, kind=kind, ge=ge, gt=gt))


#: a count or index: a whole number ≥ 0
Count = Annotated[int, _field("int", ge=0)]
#: a size in pixels or items: a whole number > 0
PositiveCount = Annotated[int, _field("int", gt=0)]
#: a whole number of either sign
WholeNumber = Annotated[int, _field("int")]
#: seconds, a distance or any magnitude ≥ 0
Seconds = Annotated[float, _field("float", ge=0)]
#: a rate or scale > 0
PositiveFloat = Annotated[float, _field("float", gt=0)]
#: any finite number
Finite = Annotated[float, _field("float")]


# -- JSON at the door --------------------------------------------------------------------------------------
class _BadLiteral(ValueError):
    def __init__(self, literal: str, reason: str):
        super().__init__(reason)
        self.literal, self.reason = literal, reason


def _constant(literal: str) -> Any:
    raise _BadLiteral(literal, f"{literal} is not a JSON number (NaN and ±Infinity are refused)")


def _float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _BadLiteral(literal, f"{_short(literal)} overflows a 64-bit float")
    return value


def _int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise _BadLiteral(literal, f"integer {_short(literal)} is too long (at most {MAX_INT_DIGITS} digits)")
    return int(literal)


def strict_loads(text: str) -> Any:
    """`json.loads` that refuses NaN, ±Infinity, float overflow and absurdly long integers with a
    `json.JSONDecodeError` pointing at the literal (so callers report line and column as for bad syntax)."""
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except _BadLiteral as exc:
        m = re.search(r"(?<![\w.\"])" + re.escape(exc.literal) + r"(?![\w.])", text)
        err = json.JSONDecodeError(exc.reason, text, m.start() if m else 0)
        err.field = _field_of(text)  # type: ignore[attr-defined]
        raise err from None


class _Bad:
    """Where a refused literal was, when the text is parsed again leniently."""


def _field_of(text: str) -> str | None:
    """The dotted path (``answer``, ``media.video.end_s``, ``time_segment.1``) of the first refused number."""
    bad = _Bad()

    def lenient(literal: str) -> Any:
        try:
            return _float(literal) if any(c in literal for c in ".eE") else _int(literal)
        except _BadLiteral:
            return bad

    try:
        doc = json.loads(text, parse_constant=lambda _: bad, parse_float=lenient, parse_int=lenient)
    except ValueError:
        return None

    def find(node: Any, at: tuple[str, ...]) -> tuple[str, ...] | None:
        if node is bad:
            return at
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            got = find(value, (*at, str(key)))
            if got is not None:
                return got
        return None

    path = find(doc, ())
    return ".".join(path) if path else None
