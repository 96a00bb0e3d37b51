"""What `egoworld view` shows: benchmark folders and run folders found under the given paths, read from
their files (``manifest.json``, ``samples.jsonl``, ``run.json``, ``scores.jsonl``, ``responses.sqlite``)
through the viewer's indexes (`egoworld.view.bench_index`, `egoworld.view.index`): a benchmark's samples are
parsed only when a page shows them.

Runs that were never scored (or whose store changed since) are scored first, as `egoworld report` does.
Each question of each run gets one record: its score (mean over orders and epochs), its verdict
(``correct`` / ``wrong`` / ``unparsed`` / ``error``) and the predicted option of its first answered row.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.bench_folder import MANIFEST, Benchmark
from egoworld.core.files import InputFileError, read_json
from egoworld.core.run_config import RUN_MANIFEST
from egoworld.view.bench_index import GROUP_KEYS, IndexedBenchmark, open_benchmark

__all__ = ["GROUP_KEYS", "VERDICTS", "BenchView", "QuestionResult", "RunView", "Workspace"]
VERDICTS = ("correct", "wrong", "unparsed", "error")
_SCAN_DEPTH = 4


class QuestionResult:
    """One question in one run: score, verdict and first prediction at hand; its scored rows read from the
    run's index when first asked for (``loader``) or given."""

    def __init__(
        self,
        rows: list[dict[str, Any]] | None = None,
        *,
        loader: Callable[[], list[dict[str, Any]]] | None = None,
    ):
        self._rows = rows
        self._loader = loader
        self.score: float | None = None
        self.verdict = "error"
        self.pred: Any = None
        if rows is not None:
            self.score, self.verdict, self.pred = summarise(rows)

    @property
    def rows(self) -> list[dict[str, Any]]:
        if self._rows is None:
            self._rows = self._loader() if self._loader is not None else []
        return self._rows


def summarise(rows: list[dict[str, Any]]) -> tuple[float | None, str, Any]:
    """(score, verdict, first prediction) of a question's scored rows: the mean score over orders and
    epochs; ``correct`` / ``wrong`` / ``unparsed`` / ``error``; the prediction of the first answered row."""
    answered = [r for r in rows if r.get("score") is not None]
    if not answered:
        return None, "error", None
    score = sum(float(r["score"]) for r in answered) / len(answered)
    pred = answered[0].get("pred")
    if not any(r.get("parsed", True) for r in answered):
        return score, "unparsed", pred
    scale = 100.0 if score > 1.0 else 1.0  # judge-scored benchmarks report 0–100
    return score, "correct" if score >= scale - 1e-9 else "wrong", pred


@dataclass
class RunView:
    id: str
    dir: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    label: str
    results: dict[str, QuestionResult]

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

    @property
    def title(self) -> str:
        return f"{self.bench.name} ({self.bench.root.name})"

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
            preds: dict[str, set[str]] = defaultdict(set)
            for r in self.runs:
                for sid, res in r.results.items():
                    if res.score is not None:
                        preds[sid].add(repr(res.pred))
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


def load_run_results(run_dir: Path, bench: Benchmark | None = None) -> dict[str, QuestionResult]:
    """Each question's result of a run, from its index (`egoworld.view.index`; built or rebuilt first when
    ``scores.jsonl`` is new or changed); rows are read when a page asks for them."""
    from egoworld.view.index import RunIndex

    index = RunIndex(run_dir, summarise)
    results: dict[str, QuestionResult] = {}
    for sid, score, verdict, pred in index.summaries():
        res = QuestionResult(loader=lambda sid=sid: index.rows(sid))
        res.score, res.verdict, res.pred = score, verdict, pred
        results[sid] = res
    return results


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
                results=load_run_results(rd, bv.bench),
            )
            runs[rid] = run
            bv.runs.append(run)
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
