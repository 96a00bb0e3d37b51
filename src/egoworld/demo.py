"""The embedded default, end to end: import the official VSI-Super-Wild questions, run the three baselines
text-only with Shuffle24 on a fixed subset (the first N questions of each task), score and report."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa
from egoworld.common.files import InputFileError
from egoworld.report.build import build_report
from egoworld.report.tables import summary_line
from egoworld.runner.config import RunConfig
from egoworld.runner.run import run_benchmark
from egoworld.scoring.score import score_run

DEMO_MODELS = ("random", "prior", "oracle")


def run_demo(*, out: Path, data: Path, per_task: int = 250) -> Path:
    console = Console(stderr=True)
    qa = Path(data) / "vsi-super-wild" / "vsi_super_wild_qa.jsonl"
    if not qa.is_file():
        raise InputFileError(f"{qa}: not found — pass --data with the folder that holds vsi-super-wild/")
    out = Path(out)
    bench_dir = out / "bench" / "vsi_wild_official"
    console.rule("import VSI-Super-Wild")
    bench = import_vsi_wild_qa(qa, bench_dir)
    console.print(f"{len(bench.samples)} questions → {bench_dir}")
    runs = []
    for model in DEMO_MODELS:
        console.rule(f"run {model} (text only, shuffle24, {per_task} questions per task)")
        run_dir = out / "runs" / f"vsi_wild_{model}"
        cfg = RunConfig(
            bench=bench_dir,
            model=model,
            out=run_dir,
            permutations="shuffle24",
            per_task=per_task,
            seed=0,
            concurrency=4,
        )
        console.print(run_benchmark(cfg).line())
        console.print(summary_line(score_run(run_dir)))
        runs.append(run_dir)
    console.rule("report")
    return build_report(runs, out / "report")
