"""One colour per model across every plot of a report (or of one `egoworld view` session).

`model_colours` gives each model a colour in the order the models first appear (the run order);
`report_palette` makes such a map the active one while a report is written, and `run_styles` gives the
plots of any section the active map's colour of each run's model (a model the map lacks gets the next
unused colour). Two runs of one model in one plot share the colour and differ by `variant` (hatch or
line style)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

#: matplotlib's ``tab10``, as hex; the 11th model starts over
COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
HATCHES = ("", "//", "..", "xx", "\\\\", "++")
LINESTYLES = ("-", "--", ":", "-.")

_ACTIVE: ContextVar[Mapping[str, str] | None] = ContextVar("egoworld_palette", default=None)


def model_of(summary: Mapping[str, Any]) -> str:
    """The model a run's colour follows: its ``scores.json`` summary's ``model_spec`` (``?`` when absent)."""
    return str(summary.get("model_spec") or "?")


def model_colours(models: Iterable[str]) -> dict[str, str]:
    """Model → colour, in the order the models first appear."""
    out: dict[str, str] = {}
    for m in models:
        if m not in out:
            out[m] = COLOURS[len(out) % len(COLOURS)]
    return out


@contextlib.contextmanager
def report_palette(models: Iterable[str]) -> Iterator[dict[str, str]]:
    """Make the colours of ``models`` (in run order) the ones every plot uses until the block ends."""
    colours = model_colours(models)
    token = _ACTIVE.set(colours)
    try:
        yield colours
    finally:
        _ACTIVE.reset(token)


@dataclass(frozen=True)
class RunStyle:
    """How one run is drawn: its model's colour and, for a second run of that model in a plot, a variant."""

    colour: str
    variant: int

    @property
    def hatch(self) -> str:
        return HATCHES[self.variant % len(HATCHES)]

    @property
    def linestyle(self) -> str:
        return LINESTYLES[self.variant % len(LINESTYLES)]


def run_styles(models: Sequence[str]) -> list[RunStyle]:
    """The style of each run of a plot, given each run's model: the active map's colours (`report_palette`),
    else a map of these models in order."""
    colours = dict(_ACTIVE.get() or {})
    for m in models:
        if m not in colours:
            colours[m] = COLOURS[len(colours) % len(COLOURS)]
    seen: dict[str, int] = {}
    out = []
    for m in models:
        out.append(RunStyle(colours[m], seen.get(m, 0)))
        seen[m] = seen.get(m, 0) + 1
    return out
