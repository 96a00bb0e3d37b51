"""The embedded default, end to end, on what this machine has: build → run → score → report for the three
benchmarks, with the built-in baselines.

1. VSI-Super-Wild, official questions: import, `random` / `prior` / `oracle` text-only with Shuffle24 on a
   fixed subset (the first N questions of each task).
2. Beyond3D from synthetic kitchens: text-only baselines on cheap synthetic kitchens, and on rendered sim
   kitchens in all three settings (text, video + text, last frame + text).
3. VSI-Super-Wild from a synthetic panoramic walk: 128 frames, Shuffle24 (when the builder is installed).
4. EXPLORE-Bench from synthetic action scenes: `copy-initial`, `replay` and `oracle`, scored with the built-in
   lexical judge (labelled as not comparable to the paper's LLM judge).

Each part writes ``OUT/<part>/{worlds,bench,runs}`` (``vsi-wild-official`` has no worlds: it imports the
released questions; ``beyond3d`` has two benchmarks, ``bench/all-settings`` and the smaller ``bench/video``);
one report over every run is ``OUT/report``. Parts that are already complete are reused on a rerun. The demo is the top
floor: it composes the stages below and names the benchmarks; `beyond3d` and `vsi_wild` hold those parts
(also run alone by ``egoworld beyond3d demo`` / ``egoworld vsi-wild demo``, `egoworld.demo.cli`).
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from egoworld.core.folders.files import InputFileError
from egoworld.core.run_config import RunConfig
from egoworld.demo.size import FULL, DemoSize

# the heavier parts (the report's plots load matplotlib) are imported where used: every `egoworld` command
# loads this package through the demo commands' entry points

DEMO_MODELS = ("random", "prior", "oracle")
QA_FILE = Path("vsi-super-wild") / "vsi_super_wild_qa.jsonl"


def data_candidates() -> list[Path]:
    """Where the shared data folder may be, in order: $EGOWORLD_DATA, ../shared/data from the current folder,
    and ../shared/data beside the egoworld checkout (so the demo finds it from any folder)."""

    import egoworld

    found = [Path(os.environ["EGOWORLD_DATA"])] if os.environ.get("EGOWORLD_DATA") else []
    checkout = Path(egoworld.__file__).resolve().parents[2]  # src/egoworld/__init__.py → the checkout
    return [*found, Path("../shared/data"), checkout.parent / "shared" / "data"]


def resolve_data(data: Path | None) -> Path:
    """``data`` if given, else the first candidate that holds the official questions; else a clear error."""
    if data is not None:
        return Path(data)
    tried = data_candidates()
    for folder in tried:
        if (folder / QA_FILE).is_file():
            return folder
    raise InputFileError(
        f"the shared data folder (holding {QA_FILE}) is not in any of: {', '.join(str(t) for t in tried)}. "
        "Pass --data DIR or set EGOWORLD_DATA=DIR; or leave the official questions out with "
        "--parts beyond3d,vsi-synthetic,explore"
    )


def vsi_official(out: Path, data: Path, per_task: int, say: Callable[[str], None]) -> list[Path]:
    qa = Path(data) / QA_FILE
    if not qa.is_file():
        raise InputFileError(
            f"{qa}: not found — pass --data with the folder that holds vsi-super-wild/ (or set EGOWORLD_DATA)"
        )
    from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa
    from egoworld.render.tables import summary_line
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    bench_dir = out / "bench"
    bench = import_vsi_wild_qa(qa, bench_dir)
    say(f"{len(bench.samples)} questions → {bench_dir}")
    runs = []
    for model in DEMO_MODELS:
        run_dir = out / "runs" / model
        cfg = RunConfig(
            bench=bench_dir,
            model=model,
            out=run_dir,
            permutations="shuffle24",
            per_task=per_task,
            seed=0,
            concurrency=4,
            progress=False,
        )
        say(run_benchmark(cfg).line(model))
        say(f"{model}: {summary_line(score_run(run_dir))}")
        runs.append(run_dir)
    return runs


def beyond3d(out: Path, say: Callable[[str], None], size: DemoSize = FULL) -> list[Path]:
    from egoworld.demo.beyond3d import demo_runs

    return demo_runs(
        out / "beyond3d", anchors=size.anchors, controls=size.anchors, sim=True, say=say, size=size
    )


def vsi_synthetic(out: Path, say: Callable[[str], None], size: DemoSize = FULL) -> list[Path]:
    if importlib.util.find_spec("egoworld.benchmarks.vsi_wild.build.builder") is None:
        say("VSI-Super-Wild builder not installed in this build: skipped")
        return []
    from egoworld.demo.vsi_wild import demo_runs

    return demo_runs(out / "vsi-wild-synthetic", say=say, per_task=size.walk_per_task, walks=size.walks)


def explore(out: Path, say: Callable[[str], None], *, episodes: int = 24) -> list[Path]:
    import egoworld.benchmarks.explore.baselines  # noqa: F401  (registers copy-initial and replay)
    from egoworld.benchmarks.explore.build.from_world import build_from_world
    from egoworld.runner.run import run_benchmark
    from egoworld.sim.actions.synth import ActionConfig
    from egoworld.sim.worldset import synth_world_set

    worlds = out / "explore" / "worlds"
    synth_world_set("actions", worlds, episodes, 0, ActionConfig())
    bench = out / "explore" / "bench"
    runs_dir = out / "explore" / "runs"
    built = build_from_world([worlds], bench, seed=0, tiny_size=min(episodes, 100))
    say(f"EXPLORE: {len(built.samples)} instances from {episodes} synthetic action scenes")
    runs = []
    for model in ("copy-initial", "replay", "oracle"):
        run_dir = runs_dir / model
        summary = run_benchmark(
            RunConfig(
                bench=bench,
                model=model,
                out=run_dir,
                setting="image",
                options={"strategy": "one-go"},
                progress=False,
            )
        )
        say(summary.line(model))
        runs.append(run_dir)
    return runs


def run_demo(
    *,
    out: Path,
    data: Path | None,
    per_task: int | None = None,
    parts: tuple[str, ...] | None = None,
    size: DemoSize = FULL,
) -> Path:
    """Run the demo parts into ``out`` at ``size`` and write one report; returns the path of its
    ``index.html`` (``per_task``: the official VSI-Super-Wild questions per task, else the size's)."""
    official_per_task = size.official_per_task if per_task is None else per_task
    console = Console(stderr=True)
    said: set[str] = set()

    def say(text: str) -> None:
        """Print ``text``; a warning line the demo printed before is left out (said once)."""
        lines = [ln for ln in text.split("\n") if not (ln.startswith("warning: ") and ln in said)]
        said.update(ln for ln in lines if ln.startswith("warning: "))
        if lines:
            console.print("\n".join(lines), highlight=False)

    out = Path(out)
    chosen = parts or ("vsi-official", "beyond3d", "vsi-synthetic", "explore")
    steps = {
        "vsi-official": (
            "VSI-Super-Wild, official questions (text only, Shuffle24)",
            lambda: vsi_official(out / "vsi-wild-official", resolve_data(data), official_per_task, say),
        ),
        "beyond3d": (
            "Beyond3D from synthetic kitchens (text, video + text, last frame + text)",
            lambda: beyond3d(out, say, size),
        ),
        "vsi-synthetic": (
            "VSI-Super-Wild from a synthetic panoramic walk (128 frames, Shuffle24)",
            lambda: vsi_synthetic(out, say, size),
        ),
        "explore": (
            "EXPLORE-Bench from synthetic action scenes (lexical judge)",
            lambda: explore(out, say, episodes=size.explore_scenes),
        ),
    }
    unknown = set(chosen) - set(steps)
    if unknown:
        raise ValueError(f"unknown demo part(s) {sorted(unknown)} (parts: {', '.join(steps)})")
    runs: list[Path] = []
    parts_of: list[tuple[str, Path]] = []
    timings: list[tuple[str, float, float]] = []
    for name in chosen:
        title, step = steps[name]
        console.rule(title)
        started = _clocks()
        made = step()
        runs += made
        parts_of += [(PART_TITLES[name], r) for r in made]
        timings.append((name, *_since(started)))
    console.rule("report")
    from egoworld.report.build import build_report

    started = _clocks()
    index = build_report(runs, out / "report")
    timings.append(("report", *_since(started)))
    console.print(stage_table(timings), highlight=False, soft_wrap=True)
    console.rule("results")
    console.print(results_table(parts_of), highlight=False, soft_wrap=True)
    return index


#: each demo part as the results table names it (which build of which benchmark)
PART_TITLES = {
    "vsi-official": "VSI-Super-Wild (official questions)",
    "beyond3d": "Beyond3D (synthetic kitchens)",
    "vsi-synthetic": "VSI-Super-Wild (synthetic walk)",
    "explore": "EXPLORE-Bench (synthetic scenes, lexical judge)",
}
#: the run setting as the papers name it
SETTING_TITLES = {
    "text": "text only",
    "frames": "video + text",
    "last-frame": "last frame + text",
    "image": "image",
}


def results_table(runs: list[tuple[str, Path]]) -> str:
    """One line per run: benchmark build, setting, model and its headline score (Beyond3D: the macro
    average over question types, as the paper's headline; the others: overall), from each run's
    ``scores.json``; a run without one says so."""
    from egoworld.core.folders.files import read_json_object

    rows = [("benchmark", "setting", "model", "score")]
    for part, run in runs:
        scores = run / "scores.json"
        if not scores.is_file():
            rows.append((part, "?", run.name, "not scored"))
            continue
        block = read_json_object(scores)
        metric = "macro" if block.get("benchmark") == "beyond3d" else "overall"
        value = block.get(metric)
        setting = str((block.get("inputs") or {}).get("setting", "text"))
        shown = f"{value:.1f} ({metric})" if isinstance(value, int | float) else "—"
        rows.append(
            (part, SETTING_TITLES.get(setting, setting), str(block.get("model_spec", run.name)), shown)
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def _clocks() -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, this process and its finished child processes)."""
    t = os.times()
    return time.perf_counter(), t.user + t.system + t.children_user + t.children_system


def _since(started: tuple[float, float]) -> tuple[float, float]:
    now = _clocks()
    return now[0] - started[0], now[1] - started[1]


def stage_table(timings: list[tuple[str, float, float]]) -> str:
    """The demo's per-stage wall-clock and CPU seconds as a small aligned table, with the total (a rerun that
    reuses finished parts shows how little it redid; CPU seconds hold on a loaded machine)."""
    width = max(len(name) for name, _, _ in [*timings, ("total", 0.0, 0.0)])
    lines = [f"{'stage':<{width}}  wall s   CPU s", f"{'-' * width}  ------  ------"]
    rows = [*timings, ("total", sum(t[1] for t in timings), sum(t[2] for t in timings))]
    lines += [f"{name:<{width}}  {wall:6.1f}  {cpu:6.1f}" for name, wall, cpu in rows]
    return "\n".join(lines)
