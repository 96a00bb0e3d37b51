"""``--scoring official``: the official harnesses' per-sample rules, reproduced exactly, so numbers can be
reported comparably with the papers'. Our own extractor (`egoworld.scoring.extract`) is the default.

Each benchmark brings its rules as its plug-in's ``official_score`` hook (`egoworld.core.plugin`).
"""

from __future__ import annotations

from collections.abc import Sequence

from egoworld.core.plugin import OfficialResult, plugin_for
from egoworld.core.schema import Sample


def official_score(sample: Sample, raw: str, choices: Sequence[str] | None) -> OfficialResult:
    """Score one reply with the official rules of the sample's benchmark."""
    rules = plugin_for(sample.benchmark).official_score
    if rules is None:
        raise ValueError(
            f"--scoring official: no official rules are known for benchmark {sample.benchmark!r}"
        )
    return rules(sample, raw, choices)
