"""What `egoworld view` shows: benchmark folders and run folders found under the given paths, read from
their files (``manifest.json``, ``samples.jsonl``, ``run.json``, ``scores.jsonl``, ``responses.sqlite``)
through the viewer's indexes (`egoworld.view.bench_index`, `egoworld.view.run_index`): a benchmark's samples are
parsed only when a page shows them.

Runs that were never scored (or whose store changed since) are scored first, as `egoworld report` does.
Each question of each run gets one result (`egoworld.view.results`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import MANIFEST
from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.run_config import RUN_MANIFEST
from egoworld.view.bench_index import GROUP_KEYS, IndexedBenchmark, open_benchmark
from egoworld.view.results import QuestionResult, RunResults, load_run_results, summarise

__all__ = [
    "GROUP_KEYS",
    "VERDICTS",
    "BenchView",
    "QuestionResult",
    "RunView",
    "Workspace",
    "load_run_results",
    "summarise",
]
VERDICTS = ("correct", "wrong", "unparsed", "error")
_SCAN_DEPTH = 4


@dataclass
class RunView:
    id: str
    dir: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    label: str
    results: RunResults

    @property
    def model_spec(self) -> str:
        return str(self.manifest.get("model_spec", "?"))


@dataclass
class BenchView:
    id: str
    bench: IndexedBenchmark
    runs: list[RunView] = field(default_factory=list)
    _columns: dict[str, tuple[str, str]] | None = field(default=None, repr=False)
    _disagree: frozenset[str] | None = field(default=None, repr=False)

    _title: str | None = field(default=None, repr=False)

    @property
    def title(self) -> str:
        """``VSI-Super-Wild — official release``: the paper's name and what the build is
        (`egoworld.render.build_names`); the workspace adds the short hash where two builds share it."""
        if self._title is None:
            from egoworld.render.build_names import build_title

            m = self.bench.manifest
            self._title = build_title(self.bench.name, m.builder, m.source)
        return self._title

    @property
    def detail(self) -> str:
        """``build 46c49c56 · folder bench``: the hash and folder, printed beside the title."""
        from egoworld.render.build_names import build_detail

        return build_detail(self.bench.hash, self.bench.root.name)

    def task_title(self, task: str) -> str:
        """A task as its paper names it (the plug-in's title, else the manifest's)."""
        from egoworld.core.plugin import plugin_for

        info = self.bench.manifest.tasks.get(task)
        return plugin_for(self.bench.name).task_title(task, info.title if info else None)

    def groups(self) -> dict[str, list[str]]:
        """Metadata groups present in this benchmark: key → sorted values."""
        return self.bench.groups()

    def columns(self) -> dict[str, tuple[str, str]]:
        """Sample id → (task, video) of every sample, in file order (from the index, without parsing)."""
        if self._columns is None:
            self._columns = {sid: (task, video) for _, sid, task, video in self.bench.ids()}
        return self._columns

    def disagreeing(self) -> frozenset[str]:
        """The questions two runs answered differently (their first predictions, where scored)."""
        if self._disagree is None:
            preds: dict[str, set[str | None]] = defaultdict(set)
            for r in self.runs:
                for sid, pred in r.results.pred_texts():
                    preds[sid].add(pred)
            self._disagree = frozenset(sid for sid, p in preds.items() if len(p) > 1)
        return self._disagree


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "x"


def _find(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """Run folders and benchmark folders at or below ``paths`` (a few levels deep), in a stable order."""
    runs: list[Path] = []
    benches: list[Path] = []
    for p in paths:
        p = Path(p)
        if not p.exists():
            raise InputFileError(
                f"{p}: no such folder (give benchmark folders, run folders or a folder of them)"
            )
        if (p / RUN_MANIFEST).is_file():
            runs.append(p)
            continue
        if (p / MANIFEST).is_file():
            benches.append(p)
            continue
        found = False
        for depth in range(1, _SCAN_DEPTH + 1):
            pattern = "/".join(["*"] * depth)
            for q in sorted(p.glob(pattern)):
                if (q / RUN_MANIFEST).is_file() and q.parent / RUN_MANIFEST not in runs:
                    runs.append(q)
                    found = True
                elif (q / MANIFEST).is_file() and not (q / RUN_MANIFEST).is_file():
                    benches.append(q)
                    found = True
        if not found:
            raise InputFileError(
                f"{p}: holds no benchmark folder (manifest.json) or run folder (run.json) within "
                f"{_SCAN_DEPTH} levels"
            )
    return runs, benches


class Workspace:
    """Everything `egoworld view` serves, loaded once at start (``reload()`` re-reads)."""

    def __init__(self, paths: list[Path]):
        self.paths = [Path(p) for p in paths]
        self.benches: dict[str, BenchView] = {}
        self.runs: dict[str, RunView] = {}
        self.reload()

    def reload(self) -> None:
        from egoworld.render.tables import run_label
        from egoworld.scoring.score import ensure_scored

        run_dirs, bench_dirs = _find(self.paths)
        by_root: dict[Path, BenchView] = {}

        def bench_view(root: Path) -> BenchView:
            key = root.resolve()
            if key not in by_root:
                bench = open_benchmark(root)
                bid = slug(f"{bench.name}-{root.name}")
                while any(b.id == bid for b in by_root.values()):
                    bid += "_"
                by_root[key] = BenchView(id=bid, bench=bench)
            return by_root[key]

        for b in bench_dirs:
            bench_view(b)
        runs: dict[str, RunView] = {}
        for rd in run_dirs:
            manifest = read_json(rd / RUN_MANIFEST)
            summary = ensure_scored(rd)
            bv = bench_view(Path(manifest["benchmark_path"]))
            rid = slug(rd.name)
            while rid in runs:
                rid += "_"
            run = RunView(
                id=rid,
                dir=rd,
                manifest=manifest,
                summary=summary,
                label=run_label(summary),
                results=load_run_results(rd),
            )
            runs[rid] = run
            bv.runs.append(run)
        titles = [bv.title for bv in by_root.values()]
        for bv in by_root.values():
            if titles.count(bv.title) > 1:  # two builds of one kind: the short hash tells them apart
                bv._title = f"{bv.title} (build {bv.bench.hash[:8]})"
        for bv in by_root.values():
            labels = [r.label for r in bv.runs]
            for r in bv.runs:
                if labels.count(r.label) > 1:
                    r.label = f"{r.label} [{r.dir.name}]"
        self.benches = {b.id: b for b in by_root.values()}
        self.runs = runs

    def bench(self, bench_id: str) -> BenchView:
        if bench_id not in self.benches:
            raise KeyError(bench_id)
        return self.benches[bench_id]

    def bench_of(self, run: RunView) -> BenchView:
        return next(b for b in self.benches.values() if run in b.runs)
