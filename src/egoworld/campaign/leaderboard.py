"""A leaderboard over run folders: rows = runs, columns = tasks + macro mean (percent, one decimal), over the
questions every run shares; best in bold, second best underlined. Markdown, CSV and LaTeX (booktabs)."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.files import iter_jsonl, read_json_object
from egoworld.core.run_config import SCORES_JSONL


def _rows(run: Path) -> dict[str, tuple[str, float]]:
    """Sample id → (task, its score averaged over epochs and option orders)."""
    acc: dict[str, tuple[str, list[float]]] = {}
    for _, r in iter_jsonl(run / SCORES_JSONL):
        acc.setdefault(r["sample"], (r["task"], []))[1].append(float(r.get("score") or 0.0))
    return {k: (task, sum(v) / len(v)) for k, (task, v) in acc.items()}


def table(runs: list[Path]) -> tuple[list[str], list[tuple[str, list[float]]], int, int]:  # noqa: D103
    """(columns, [(run name, values)], shared questions, questions left out) over the shared keys."""
    scored = {run.name: _rows(run) for run in runs}
    shared = set.intersection(*(set(s) for s in scored.values()))
    dropped = len(set.union(*(set(s) for s in scored.values()))) - len(shared)
    if not shared:
        raise ValueError("the runs share no questions; compare runs of the same benchmark")
    tasks = sorted({scored[runs[0].name][k][0] for k in shared})
    body = []
    for run in runs:
        per: dict[str, list[float]] = {t: [] for t in tasks}
        for k in shared:
            task, score = scored[run.name][k]
            per[task].append(score)
        values = [100.0 * sum(v) / len(v) for v in per.values()]
        body.append((run.name, [round(x, 1) for x in values] + [round(sum(values) / len(values), 1)]))
    return [*tasks, "Macro"], body, len(shared), dropped


def by_benchmark(runs: list[Path]) -> dict[str, list[Path]]:
    """Runs grouped by the benchmark folder they ran (its path in run.json), one leaderboard each."""
    groups: dict[str, list[Path]] = {}
    for run in runs:
        meta = read_json_object(run / "run.json")
        groups.setdefault(str(meta.get("benchmark_path") or meta.get("benchmark")), []).append(run)
    return groups


def _ranks(body: list[tuple[str, list[float]]], col: int) -> tuple[float | None, float | None]:
    values = sorted({v[col] for _, v in body}, reverse=True)
    return values[0], (values[1] if len(values) > 1 else None)


def markdown(runs: list[Path]) -> str:
    cols, body, shared, dropped = table(runs)
    lines = []
    if dropped:
        lines.append(
            f"> **Warning: the runs cover different questions; {dropped} left out, {shared} compared.**\n"
        )
    lines += ["| run | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for name, values in body:
        cells = []
        for i, v in enumerate(values):
            best, second = _ranks(body, i)
            cells.append(f"**{v:.1f}**" if v == best else f"<u>{v:.1f}</u>" if v == second else f"{v:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def latex(runs: list[Path]) -> str:
    cols, body, _, _ = table(runs)
    esc = lambda s: s.replace("_", r"\_")  # noqa: E731
    lines = [
        r"\begin{tabular}{l" + "r" * len(cols) + "}",
        r"\toprule",
        "Run & " + " & ".join(esc(c) for c in cols) + r" \\",
        r"\midrule",
    ]
    for name, values in body:
        cells = []
        for i, v in enumerate(values):
            best, second = _ranks(body, i)
            cells.append(
                rf"\textbf{{{v:.1f}}}"
                if v == best
                else rf"\underline{{{v:.1f}}}"
                if v == second
                else f"{v:.1f}"
            )
        lines.append(esc(name) + " & " + " & ".join(cells) + r" \\")
    return "\n".join([*lines, r"\bottomrule", r"\end{tabular}"]) + "\n"
