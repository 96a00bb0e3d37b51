"""`egoworld sweep run CONFIG.yaml` and `egoworld sweep status CAMPAIGN`: a campaign of runs and where it stands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from egoworld.core.errors import exit_on_user_error, fail


@exit_on_user_error
def sweep(
    config: Annotated[Path, typer.Argument(help="Sweep file: models × benchmarks × settings (YAML).")],
    out: Annotated[Path, typer.Option("--out", help="Campaign folder; rerunning the sweep resumes it.")],
    budget: Annotated[int, typer.Option(help="Cells at once per server unless the model sets 'budget'.")] = 2,
    executor: Annotated[
        str, typer.Option(help="local (cells as processes here) | ray (each cell a Ray task).")
    ] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray address ('auto' = the running cluster); default: start Ray here.")
    ] = None,
    track: Annotated[
        str | None,
        typer.Option(
            help="Send each done cell to mlflow:URI | wandb[:DIR] (offline); a cell may set its own."
        ),
    ] = None,
) -> None:
    """Run every cell of a sweep file (each a run folder under OUT/runs), retrying failed cells."""
    from egoworld.campaign.experiment_trackers import parse_track
    from egoworld.campaign.matrix import load_sweep
    from egoworld.campaign.sweep import run_sweep
    from egoworld.commands.run import run
    from egoworld.runner.config_file import schema

    plan = load_sweep(config, set(schema(run)))
    for spec in {track, *(c.track for c in plan.cells)} - {None}:
        parse_track(str(spec))
    states = run_sweep(plan, out, default_budget=budget, executor=executor, address=address, track=track)
    _print_states(states)
    failed = [s for s in states if s["status"] != "done"]
    if failed:
        fail(f"{len(failed)} of {len(states)} cells failed; `egoworld sweep status {out}` lists why")


def _print_states(states: list[dict[str, Any]]) -> None:
    for s in states:
        print(
            f"{s['status']:>11}  {s['name']}  attempts={s['attempts']}"
            + (f"  tracked: {s['tracked_to']}" if s.get("tracked_to") else "")
            + (f"  {s['error']}" if s["error"] else "")
        )


@exit_on_user_error
def sweep_status(
    campaign: Annotated[Path, typer.Argument(help="Campaign folder written by `egoworld sweep`.")],
) -> None:
    """Done / running / failed cells of a campaign, with the error of each failed one."""
    from collections import Counter

    from egoworld.campaign.cell_state import all_states

    states = all_states(campaign)
    if not states:
        fail(f"{campaign}: no cells there (is it a campaign folder written by `egoworld sweep`?)")
    _print_states(states)
    counts = Counter(s["status"] for s in states)
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
