"""The leaderboard of scored run folders in the paper's layout (the benchmark plug-in's `leaderboard` hook).

Every number is a function of the runs' ``scores.jsonl`` alone: a question's value is the mean of a field over
its rows (option orders, epochs; rows without a value left out), a column the mean over the questions that
every compared run answered. Best and second best are marked per setting; a run whose difference from the
best (or second) is not significant under a paired cluster bootstrap (clusters: the benchmark's ``cluster``,
i.e. videos / episodes; seeded) shares the mark (a tie). The benchmark folder is read only for the clusters,
metadata filters, task order and chance levels.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.core.folders.files import InputFileError, iter_jsonl, read_json_object
from egoworld.core.plugin import LeaderboardColumn, plugin_for
from egoworld.core.run_config import RUN_MANIFEST, SCORES_JSON, SCORES_JSONL
from egoworld.metrics.stats import cluster_bootstrap_cis, mean_sem

N_BOOT = 2000
LEVEL = 0.95


class DifferentQuestions(InputFileError):
    """The compared runs answered different questions (the message lists how many each)."""


@dataclass
class RunEntry:
    """One run folder: its row label (model, setting) and per question the mean of each field."""

    dir: Path
    model: str
    setting: str
    benchmark: str
    bench_hash: str
    bench_path: str
    questions: dict[str, dict[str, Any]]
    judge: str | None = None  #: the judge that scored the run (judge-scored benchmarks), from scores.json

    @property
    def name(self) -> str:
        return self.dir.name


@dataclass
class Cell:
    value: float | None
    sem: float | None = None
    mark: str = ""  #: "best", "second" or ""


#: fewer clusters than this and the paired cluster bootstrap cannot separate runs: the board says so
MIN_CLUSTERS = 10


@dataclass
class Board:
    """One benchmark's leaderboard: columns, rows (run, cells), the chance row and the question accounting."""

    benchmark: str
    columns: list[LeaderboardColumn]
    rows: list[tuple[RunEntry, list[Cell]]]
    chance: list[float | None]
    shared: int
    answered: dict[str, int] = field(default_factory=dict)  #: run name → questions it answered
    clusters: str = "cluster"
    seed: int = 0

    @property
    def differ(self) -> bool:
        return any(n != self.shared for n in self.answered.values())

    judges: dict[str, str] = field(default_factory=dict)  #: run name → judge, where a judge scored it
    n_clusters: int | None = (
        None  #: distinct clusters among the shared questions (what the bootstrap resamples)
    )

    def warning(self) -> str:
        """'' when the runs are comparable as they stand, else the loud line(s)."""
        lines = []
        if self.n_clusters is not None and self.n_clusters < MIN_CLUSTERS and len(self.rows) > 1:
            lines.append(
                f"Warning: {self.shared} questions in {self.n_clusters} cluster(s) ({self.clusters}) are too few "
                f"for the paired bootstrap to separate runs (fewer than {MIN_CLUSTERS}): its ties say little."
            )
        if self.differ:
            counts = "; ".join(f"{k}: {v}" for k, v in self.answered.items())
            lines.append(
                f"Warning: the runs answered different questions ({counts}); only the {self.shared} "
                "questions all of them answered are compared."
            )
        if len(set(self.judges.values())) > 1:
            named = "; ".join(f"{k}: {v}" for k, v in self.judges.items())
            lines.append(
                f"Warning: different judges scored these runs ({named}); rescore them with one judge."
            )
        return " ".join(lines)


def _setting(manifest: dict[str, Any]) -> str:
    inputs = manifest.get("inputs") or {}
    bits = [str(inputs.get("setting", "text"))]
    if inputs.get("frames"):
        bits.append(f"{inputs['frames']} fr")
    if manifest.get("permutations") not in (None, "none"):
        bits.append(str(manifest["permutations"]))
    strategy = (manifest.get("explore") or {}).get("strategy")
    if isinstance(strategy, dict) and strategy.get("kind"):
        bits.append(str(strategy.get("label") or strategy["kind"]))
    return ", ".join(bits)


def load_run(run: Path, *, model: str | None = None, setting: str | None = None) -> RunEntry:
    """A scored run folder read from ``run.json`` and ``scores.jsonl``."""
    run = Path(run)
    if not (run / SCORES_JSONL).is_file():
        raise InputFileError(f"{run}: no {SCORES_JSONL}; score the run first (`egoworld score --run {run}`)")
    manifest = read_json_object(run / RUN_MANIFEST)
    acc: dict[str, dict[str, Any]] = {}
    for _, row in iter_jsonl(run / SCORES_JSONL):
        q = acc.setdefault(str(row["sample"]), {"task": row.get("task"), "_values": defaultdict(list)})
        for k, v in row.items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                q["_values"][k].append(float(v))
            elif isinstance(v, str) and k not in ("raw", "error", "prediction", "sample"):
                q.setdefault(k, v)
    questions = {}
    for sid, q in acc.items():
        values = q.pop("_values")
        if not values.get("score"):
            continue  # never answered (errors, missing rows): not a question this run covers
        questions[sid] = q | {k: float(np.mean(v)) for k, v in values.items()}
    judge = None
    if (run / SCORES_JSON).is_file():
        block = read_json_object(run / SCORES_JSON)
        judge = next((str(v["judge"]["label"]) for v in block.values() if _has_judge(v)), None)
    return RunEntry(
        judge=judge,
        dir=run,
        model=model or _model_label(manifest),
        setting=setting or _setting(manifest),
        benchmark=str(manifest.get("benchmark", "?")),
        bench_hash=str(manifest.get("benchmark_hash", "")),
        bench_path=str(manifest.get("benchmark_path", "")),
        questions=questions,
    )


def entry(run: Path) -> RunEntry:
    """A run folder's entry; a campaign's cell (``CAMPAIGN/runs/MODEL__BENCH__SETTING``) is labelled by the
    sweep's model and setting names."""
    run = Path(run)
    parts = run.name.split("__")
    if len(parts) == 3 and run.parent.name == "runs" and (run.parent.parent / "campaign.json").is_file():
        return load_run(run, model=parts[0], setting=parts[2])
    return load_run(run)


def _has_judge(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("judge"), dict) and "label" in value["judge"]


def campaign_runs(folder: Path) -> list[RunEntry]:
    """The scored runs of a campaign folder, in cell-name order."""
    runs = sorted(p for p in (folder / "runs").iterdir() if p.is_dir()) if (folder / "runs").is_dir() else []
    return [entry(run) for run in runs if scored(run)]


def scored(run: Path) -> bool:
    """Whether a run folder holds a finished scoring: ``scores.jsonl`` and ``scores.json`` (written last). Rows
    without their ``scores.json`` may be another scoring's, half written: never tabled."""
    return (run / SCORES_JSONL).is_file() and (run / SCORES_JSON).is_file()


def _model_label(manifest: dict[str, Any]) -> str:
    """The run's model spec; a ``prior`` fitted on the benchmark it is scored on says so (it saw the test
    answers: a blind-frequency row, not a baseline that generalises)."""
    label = str(manifest.get("model_spec", "?"))
    identity = manifest.get("model") or {}
    bench_name = Path(str(manifest.get("benchmark_path", ""))).name
    if identity.get("backend") == "prior" and bench_name and identity.get("split") == bench_name:
        label += " (fitted on these questions)"
    return label


def gather(paths: Sequence[Path]) -> tuple[list[RunEntry], list[str]]:
    """Run entries from campaign folders and run folders; the second list names folders with no scores."""
    entries: list[RunEntry] = []
    unscored: list[str] = []
    for p in paths:
        p = Path(p)
        if (p / RUN_MANIFEST).is_file():
            if scored(p):
                entries.append(entry(p))
            else:
                unscored.append(str(p))
        elif (p / "runs").is_dir():
            got = campaign_runs(p)
            unscored += [str(r) for r in sorted((p / "runs").iterdir()) if r.is_dir() and not scored(r)]
            entries += got
        else:
            raise InputFileError(f"{p}: neither a run folder (run.json) nor a campaign folder (runs/)")
    return entries, unscored


def by_benchmark(entries: Sequence[RunEntry]) -> dict[str, list[RunEntry]]:
    """Entries grouped by benchmark build (name and hash), one leaderboard each, in first-seen order."""
    groups: dict[tuple[str, str], list[RunEntry]] = {}
    for e in entries:
        groups.setdefault((e.benchmark, e.bench_hash), []).append(e)
    names = [name for name, _ in groups]
    out = {}
    for (name, h), group in groups.items():
        title = name if names.count(name) == 1 else f"{name} ({Path(group[0].bench_path).name or h[:8]})"
        out[title] = group
    return out


def default_layout(tasks: Sequence[str], titles: dict[str, str]) -> list[LeaderboardColumn]:
    """One column per task (``titles``: task → title) and, for several tasks, their macro average."""
    cols = [LeaderboardColumn(titles[t], tasks=(t,), key=t) for t in tasks]
    if len(cols) > 1:
        cols.append(LeaderboardColumn("Macro", combine=tuple((t, 1.0 / len(tasks)) for t in tasks)))
    return cols


@dataclass
class _Bench:
    tasks: list[str]
    chance: dict[str, float]
    clusters: dict[str, str]
    metadata: dict[str, dict[str, Any]]
    titles: dict[str, str]


def _bench_info(path: str, name: str) -> _Bench | None:
    from egoworld.core.folders.bench_folder import load_benchmark

    try:
        bench = load_benchmark(path)
    except (InputFileError, OSError):
        return None
    tasks = bench.manifest.tasks
    return _Bench(
        tasks=list(tasks),
        chance={t: float(i.chance) for t, i in tasks.items() if i.chance is not None},
        clusters={s.id: s.cluster_id for s in bench.samples},
        metadata={s.id: s.metadata for s in bench.samples},
        titles={t: i.title for t, i in tasks.items() if i.title},
    )


def _matches(col: LeaderboardColumn, q: dict[str, Any], meta: dict[str, Any]) -> bool:
    if col.tasks and q.get("task") not in col.tasks:
        return False
    return all(str(q.get(k, meta.get(k))) == v for k, v in col.where)


def _linear(cols: list[LeaderboardColumn]) -> list[dict[int, float]]:
    """Each column as weights over the plain (non-combined) columns, indices into ``cols``."""
    index = {c.id: i for i, c in enumerate(cols)}
    forms: list[dict[int, float]] = []
    for i, c in enumerate(cols):
        if not c.combine:
            forms.append({i: 1.0})
            continue
        form: dict[int, float] = defaultdict(float)
        for key, w in c.combine:
            if key not in index or index[key] >= i:
                raise ValueError(f"leaderboard column {c.title!r} combines {key!r}, not an earlier column")
            for j, wj in forms[index[key]].items():
                form[j] += w * wj
        forms.append(dict(form))
    return forms


def build_board(
    entries: Sequence[RunEntry],
    *,
    allow_different: bool = False,
    seed: int = 0,
    n_boot: int = N_BOOT,
    level: float = LEVEL,
) -> Board:
    """The leaderboard of runs of one benchmark build (see the module docstring)."""
    if not entries:
        raise InputFileError("no scored runs to put on a leaderboard")
    blocks = list(dict.fromkeys(e.setting for e in entries))
    entries = sorted(entries, key=lambda e: blocks.index(e.setting))  # rows in setting blocks, as the papers
    first = entries[0]
    answered = {e.name: len(e.questions) for e in entries}
    shared = sorted(set.intersection(*(set(e.questions) for e in entries)))
    if not shared:
        raise DifferentQuestions(
            f"{first.benchmark}: the runs share no answered question; compare runs of the same benchmark"
        )
    board_warn = any(n != len(shared) for n in answered.values())
    if board_warn and not allow_different:
        counts = "; ".join(f"{k}: {v}" for k, v in answered.items())
        raise DifferentQuestions(
            f"{first.benchmark}: the runs answered different questions ({counts}; {len(shared)} shared); "
            "rerun the missing ones, or pass --allow-different-questions to compare the shared ones"
        )
    labels = [(e.model, e.setting) for e in entries]
    entries = [
        replace(e, model=f"{e.model} [{e.name}]") if labels.count((e.model, e.setting)) > 1 else e
        for e in entries
    ]
    plugin = plugin_for(first.benchmark)
    info = _bench_info(first.bench_path, first.benchmark)
    seen = {first.questions[s]["task"] for s in shared}
    order = list(plugin.report_columns or ()) + (info.tasks if info else sorted(seen))
    tasks = [t for i, t in enumerate(order) if t in seen and t not in order[:i]]
    titles = {t: plugin.task_title(t, info.titles.get(t) if info else None) for t in tasks}
    cols = plugin.leaderboard(tasks) if plugin.leaderboard else default_layout(tasks, titles)
    forms = _linear(cols)
    clusters = {s: (info.clusters.get(s, s) if info else s) for s in shared}
    meta = {s: (info.metadata.get(s, {}) if info else {}) for s in shared}
    # per run and plain column: (question ids, values)
    values: list[list[tuple[list[str], np.ndarray]]] = []
    for e in entries:
        per = []
        for c in cols:
            ids = (
                [s for s in shared if _matches(c, e.questions[s], meta[s]) and c.field in e.questions[s]]
                if not c.combine
                else []
            )
            per.append((ids, np.array([e.questions[s][c.field] * c.scale for s in ids], dtype=float)))
        values.append(per)
    rows: list[tuple[RunEntry, list[Cell]]] = []
    for r, e in enumerate(entries):
        cells = []
        for i, c in enumerate(cols):
            means = {j: values[r][j][1] for j in forms[i]}
            if any(m.size == 0 for m in means.values()):
                cells.append(Cell(None))
                continue
            value = sum(w * float(means[j].mean()) for j, w in forms[i].items())
            sem = mean_sem(list(means[i]))[1] if c.sem and not c.combine else None
            cells.append(Cell(value, sem))
        rows.append((e, cells))
    for group in _setting_groups(entries):
        for i in range(len(cols)):
            _mark(group, i, rows, values, forms[i], clusters, seed, n_boot, level)
    chance = [_chance(c, forms[i], cols, info) for i, c in enumerate(cols)]
    keep = [i for i in range(len(cols)) if any(cells[i].value is not None for _, cells in rows)]
    return Board(
        benchmark=first.benchmark,
        columns=[
            cols[i] for i in keep
        ],  # a column no run has a value in (a duration group absent) is left out
        rows=[(e, [cells[i] for i in keep]) for e, cells in rows],
        chance=[chance[i] for i in keep],
        shared=len(shared),
        answered=answered,
        judges={e.name: e.judge for e in entries if e.judge is not None},
        n_clusters=len(set(clusters.values())),
        clusters="the benchmark's clusters (videos / episodes)"
        if info
        else "questions (no benchmark folder)",
        seed=seed,
    )


def _setting_groups(entries: Sequence[RunEntry]) -> list[list[int]]:
    groups: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        groups.setdefault(e.setting, []).append(i)
    return list(groups.values())


def _chance(
    col: LeaderboardColumn, form: dict[int, float], cols: list[LeaderboardColumn], info: _Bench | None
) -> float | None:
    if info is None:
        return None
    parts = []
    for j, w in form.items():
        c = cols[j]
        if len(c.tasks) != 1 or c.where or c.field != "score" or c.tasks[0] not in info.chance:
            return None
        parts.append(w * info.chance[c.tasks[0]] * c.scale / 100.0)
    return sum(parts)


def paired_interval(
    a: list[tuple[list[str], np.ndarray]],
    b: list[tuple[list[str], np.ndarray]],
    form: dict[int, float],
    clusters: dict[str, str],
    *,
    seed: int,
    n_boot: int = N_BOOT,
    level: float = LEVEL,
) -> tuple[float, float]:
    """Percentile CI of (column of run a − column of run b), clusters resampled with both runs' answers."""
    ids = sorted({clusters[s] for j in form for s in a[j][0]})
    where = {c: k for k, c in enumerate(ids)}
    table = np.zeros((len(ids), 2 * len(form)))
    for n, j in enumerate(form):
        va = dict(zip(a[j][0], a[j][1], strict=True))
        vb = dict(zip(b[j][0], b[j][1], strict=True))
        for s in va.keys() & vb.keys():
            table[where[clusters[s]], 2 * n] += va[s] - vb[s]
            table[where[clusters[s]], 2 * n + 1] += 1
    weights = np.array(list(form.values()))

    def stat(totals: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            means = totals[:, 0::2] / totals[:, 1::2]
        return (means @ weights)[:, None]

    ((lo, hi),) = cluster_bootstrap_cis(table, stat, n_boot=n_boot, level=level, seed=seed)
    return lo, hi


def _mark(
    group: list[int],
    col: int,
    rows: list[tuple[RunEntry, list[Cell]]],
    values: list[list[tuple[list[str], np.ndarray]]],
    form: dict[int, float],
    clusters: dict[str, str],
    seed: int,
    n_boot: int,
    level: float,
) -> None:
    """Bold the best of ``group`` in column ``col`` and every run not significantly below it; underline the
    best of the rest and its ties."""
    left = [r for r in group if rows[r][1][col].value is not None]
    for mark in ("best", "second"):
        if not left:
            return
        top = max(left, key=lambda r: rows[r][1][col].value or 0.0)
        tied = []
        for r in left:
            if r == top:
                tied.append(r)
                continue
            lo, hi = paired_interval(
                values[top], values[r], form, clusters, seed=seed, n_boot=n_boot, level=level
            )
            if np.isnan(lo) or lo <= 0.0 <= hi:
                tied.append(r)
        for r in tied:
            rows[r][1][col].mark = mark
        left = [r for r in left if r not in tied]
