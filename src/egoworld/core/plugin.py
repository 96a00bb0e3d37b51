"""Benchmark plug-ins: what a benchmark may customise without touching the runner or the metrics.

A plug-in lives in ``egoworld.benchmarks.<name>.plugin`` and exposes ``PLUGIN``; a benchmark without one
uses the defaults (the standard prompt layout, accuracy for choices, linear MRA for numbers).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from egoworld.core.prompts import PromptBuilder


@dataclass(frozen=True)
class ReportSection:
    """A titled block a plug-in adds to `egoworld report`: the same content as markdown and as HTML."""

    title: str
    markdown: str
    html: str


@dataclass
class BenchmarkPlugin:
    name: str
    prompt: PromptBuilder = field(default_factory=PromptBuilder)
    #: extra metric functions by name: f(sample, value) -> score in [0, 1]; value is the extracted answer
    metrics: dict[str, Any] = field(default_factory=dict)
    #: report column order and labels, when they differ from the manifest's task order
    report_columns: tuple[str, ...] | None = None
    #: scores a whole run folder itself (benchmarks with free-form answers, e.g. a judge-based scorer):
    #: ``f(run_dir, *, bench, manifest, options, write) -> scores.json summary``; `score_run` calls it
    score_run: Any = None
    #: extra report sections (analyses): ``f(summaries, run_dirs, labels, out_dir) -> list[ReportSection]``
    #: for this benchmark's runs (scores.json summaries, run folders, row labels); plots go in ``out_dir/plots``
    report_sections: Any = None
    #: the official harness's aggregates beside ours: ``f(bench, scores.jsonl rows) -> dict`` (scores.json "official")
    official_aggregates: Any = None


_CACHE: dict[str, BenchmarkPlugin] = {}


def plugin_for(name: str) -> BenchmarkPlugin:
    """The plug-in of benchmark ``name`` (the default plug-in when the benchmark has none)."""
    if name not in _CACHE:
        try:
            module = importlib.import_module(f"egoworld.benchmarks.{name}.plugin")
            _CACHE[name] = module.PLUGIN
        except ModuleNotFoundError as exc:
            if exc.name not in (f"egoworld.benchmarks.{name}", f"egoworld.benchmarks.{name}.plugin"):
                raise
            _CACHE[name] = BenchmarkPlugin(name=name)
    return _CACHE[name]
