"""What `egoworld view` shows: benchmark folders and run folders found under the given paths, read from
their files (``manifest.json``, ``samples.jsonl``, ``run.json``, ``scores.jsonl``, ``responses.sqlite``).

Runs that were never scored (or whose store changed since) are scored first, as `egoworld report` does.
Each question of each run gets one record: its score (mean over orders and epochs), its verdict
(``correct`` / ``wrong`` / ``unparsed`` / ``error``) and the predicted option of its first answered row.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.bench_folder import MANIFEST, Benchmark, load_benchmark
from egoworld.core.files import InputFileError, iter_jsonl, read_json
from egoworld.core.run_config import RUN_MANIFEST, SCORES_JSONL

#: metadata keys that group questions (filters of the sample list, when a benchmark has them)
GROUP_KEYS = ("duration_group", "horizon_bucket", "query_bucket", "partition", "order_by", "option_set")
VERDICTS = ("correct", "wrong", "unparsed", "error")
_SCAN_DEPTH = 4


@dataclass
class QuestionResult:
    """One question in one run."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    score: float | None = None
    verdict: str = "error"
    pred: Any = None

    def finish(self) -> None:
        answered = [r for r in self.rows if r.get("score") is not None]
        if not answered:
            self.verdict = "error"
            return
        self.score = sum(float(r["score"]) for r in answered) / len(answered)
        first = answered[0]
        self.pred = first.get("pred")
        if not any(r.get("parsed", True) for r in answered):
            self.verdict = "unparsed"
        else:
            scale = 100.0 if self.score > 1.0 else 1.0  # judge-scored benchmarks report 0–100
            self.verdict = "correct" if self.score >= scale - 1e-9 else "wrong"


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
    bench: Benchmark
    runs: list[RunView] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.bench.name} ({self.bench.root.name})"

    def groups(self) -> dict[str, list[str]]:
        """Metadata groups present in this benchmark: key → sorted values."""
        out: dict[str, set[str]] = defaultdict(set)
        for s in self.bench.samples:
            for k in GROUP_KEYS:
                if k in s.metadata and s.metadata[k] is not None:
                    out[k].add(str(s.metadata[k]))
        return {k: sorted(v) for k, v in out.items()}


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


def load_run_results(run_dir: Path, bench: Benchmark) -> dict[str, QuestionResult]:
    results: dict[str, QuestionResult] = {}
    path = run_dir / SCORES_JSONL
    if path.is_file():
        for _, row in iter_jsonl(path):
            sid = row.get("sample")
            if sid is None:
                continue
            results.setdefault(sid, QuestionResult()).rows.append(row)
    for r in results.values():
        r.finish()
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
                bench = load_benchmark(root)
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
