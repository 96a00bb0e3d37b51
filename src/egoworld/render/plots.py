"""PNG plots (matplotlib, Agg backend): per-task bars with SEM and Shuffle24 Top-K / Pass@K curves. Tasks
are named by their papers' titles, each model drawn in its report-wide colour (`egoworld.render.palette`),
legends sit outside the axes (they never hide a line or a bar)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from egoworld.render.palette import model_of, run_styles  # noqa: E402
from egoworld.render.tables import task_columns, task_title  # noqa: E402


def section_plot_path(out: Path, stem: str, run_dirs: Sequence[str | Path]) -> Path:
    """``out/plots/STEM_<digest>.png``: one name per set of runs, so two report sections of one benchmark
    (two builds, two settings) never overwrite each other's plot."""
    import hashlib

    digest = hashlib.sha256("\n".join(str(Path(d).resolve()) for d in run_dirs).encode()).hexdigest()[:10]
    path = Path(out) / "plots" / f"{stem}_{digest}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def task_bars(summaries: Sequence[dict[str, Any]], labels: Sequence[str], path: Path) -> Path:
    """Per-task bars with the 95 % cluster-bootstrap CI as error bars (± SEM where a summary has no CI) and
    each task's chance level as a dashed line."""
    cols = [*task_columns(summaries), "Overall"]
    width = 0.8 / max(1, len(summaries))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(cols)), 4))
    x = np.arange(len(cols))
    styles = run_styles([model_of(s) for s in summaries])
    for i, (s, label, style) in enumerate(zip(summaries, labels, styles, strict=True)):
        vals, lows, highs = [], [], []
        for t in cols:
            if t == "Overall":
                v, sem, ci = s["overall"], s.get("overall_sem"), s.get("overall_ci95")
            else:
                e = s["tasks"].get(t) or {}
                v, sem, ci = e.get(e.get("metric", "")), e.get("sem"), e.get("ci95")
            v = v or 0.0
            if ci and ci[0] is not None and ci[1] is not None:
                lo, hi = max(0.0, v - ci[0]), max(0.0, ci[1] - v)
            else:
                lo = hi = sem or 0.0
            vals.append(v)
            lows.append(lo)
            highs.append(hi)
        ax.bar(
            x + i * width - 0.4 + width / 2,
            vals,
            width,
            yerr=[lows, highs],
            capsize=2,
            label=label,
            color=style.colour,
            hatch=style.hatch,
            edgecolor="white" if style.hatch else None,
        )
    chance_drawn = False
    for j, t in enumerate(cols):
        chance = next((s["tasks"][t].get("chance") for s in summaries if t in s.get("tasks", {})), None)
        if chance is not None:
            ax.hlines(
                chance,
                j - 0.45,
                j + 0.45,
                colors="k",
                linestyles="dashed",
                linewidth=1,
                label=None if chance_drawn else "chance",
            )
            chance_drawn = True
    names = [c if c == "Overall" else task_title(summaries, c) for c in cols]
    long_names = max(len(c) for c in names) > 8
    ax.set_xticks(x, names, rotation=30 if long_names else 0, ha="right" if long_names else "center")
    ax.set_ylabel("score (%)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title("Per-task scores (95 % CI; dashed: chance)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def shuffle_curves(summaries: Sequence[dict[str, Any]], labels: Sequence[str], path: Path) -> Path | None:
    """Top-K and Pass@K over the 24 option orders, one column of two panels per task."""
    tasks = [t for t in task_columns(summaries) if any(t in (s.get("shuffle24") or {}) for s in summaries)]
    if not tasks:
        return None
    fig, axes = plt.subplots(2, len(tasks), figsize=(3.6 * len(tasks), 6), squeeze=False)
    styles = run_styles([model_of(s) for s in summaries])
    for j, task in enumerate(tasks):
        for s, label, style in zip(summaries, labels, styles, strict=True):
            st = (s.get("shuffle24") or {}).get(task)
            if not st:
                continue
            k = np.arange(1, len(st["top_k"]) + 1)
            kw = {"marker": ".", "label": label, "color": style.colour, "linestyle": style.linestyle}
            axes[0][j].plot(k, st["top_k"], **kw)
            axes[1][j].plot(k, st["pass_at_k"], **kw)
        title = task_title(summaries, task)
        axes[0][j].set_title(f"{title}: Top-K")
        axes[1][j].set_title(f"{title}: Pass@K")
        for row in (0, 1):
            axes[row][j].set_xlabel("K (orders)")
            axes[row][j].set_ylim(-2, 102)
            axes[row][j].grid(alpha=0.3)
    axes[0][0].set_ylabel("% questions")
    axes[1][0].set_ylabel("% questions")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
