"""`egoworld sweep CONFIG.yaml` and `egoworld sweep status CAMPAIGN`: a campaign of runs and where it stands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import fail


def sweep(
    config: Annotated[Path, typer.Argument(help="Sweep file: models × benchmarks × settings (YAML).")],
    out: Annotated[Path, typer.Option("--out", help="Campaign folder; rerunning the sweep resumes it.")],
    budget: Annotated[int, typer.Option(help="Cells at once per server unless the model sets 'budget'.")] = 2,
) -> None:
    """Run every cell of a sweep file (each a run folder under OUT/runs), retrying failed cells."""
    from egoworld.campaign.matrix import load_sweep
    from egoworld.commands.run import run
    from egoworld.runner.config_file import schema

    plan = load_sweep(config, set(schema(run)))
    states = run_sweep_report(plan, out, budget)
    failed = [s for s in states if s["status"] != "done"]
    if failed:
        fail(f"{len(failed)} of {len(states)} cells failed; `egoworld sweep status {out}` lists why")


def run_sweep_report(plan, out: Path, budget: int) -> list[dict]:  # type: ignore[no-untyped-def]
    from egoworld.campaign.sweep import run_sweep

    states = run_sweep(plan, out, default_budget=budget)
    for s in states:
        print(
            f"{s['status']:>8}  {s['name']}  attempts={s['attempts']}"
            + (f"  {s['error']}" if s["error"] else "")
        )
    return states


def sweep_status(
    campaign: Annotated[Path, typer.Argument(help="Campaign folder written by `egoworld sweep`.")],
) -> None:
    """Done / running / failed cells of a campaign, with the error of each failed one."""
    from collections import Counter

    from egoworld.campaign.state import all_states

    states = all_states(campaign)
    if not states:
        fail(f"{campaign}: no cells there (is it a campaign folder written by `egoworld sweep`?)")
    for s in states:
        print(
            f"{s['status']:>11}  {s['name']}  attempts={s['attempts']}"
            + (f"  {s['error']}" if s["error"] else "")
        )
    counts = Counter(s["status"] for s in states)
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
