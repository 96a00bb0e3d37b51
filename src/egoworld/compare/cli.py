"""``egoworld world compare PERCEIVED TRUTH``: a perceived world measured against its truth (registered in
pyproject.toml under the ``world`` group; heavy imports stay inside the command)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def compare_cmd(
    perceived: Annotated[Path, typer.Argument(help="The perceived world (`egoworld world perceive --out`).")],
    truth: Annotated[Path, typer.Argument(help="The truth world (e.g. `egoworld world synth --out`).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the figures as JSON instead of the table.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the figures (JSON) to this file.")
    ] = None,
    anchors: Annotated[
        int, typer.Option("--anchors", min=1, help="Beyond3D anchors built per world.")
    ] = 1000,
    min_visible_px: Annotated[
        float,
        typer.Option(
            help="VSI-Super-Wild visibility rule, both worlds: largest visible size, px² at view size."
        ),
    ] = 64.0,
    min_visible_s: Annotated[
        float, typer.Option(help="VSI-Super-Wild visibility rule, both worlds: seconds visible in all.")
    ] = 1.0,
) -> None:
    """Compare a perceived world with its truth, episode by episode (paired by id): trajectory (evo ATE after
    Sim(3) alignment, % of path; RPE), places, tracking (TrackEval HOTA, motmetrics IDF1 / MOTA), count MRA per
    category, first / last appearance time error, and question agreement per task (VSI-Super-Wild VMR, VPO,
    VOO, VOC; Beyond3D types): gold agreement over the truth world's questions (one the perceived build does
    not ask counts against), coverage, and the matched-only figure, after the same visibility rule on both
    worlds (--min-visible-px, --min-visible-s). Questions without a twin are counted and said.

    Example: egoworld world compare worlds/perceived worlds/walks --out compare.json"""
    from egoworld.benchmarks.vsi_wild.build.config import VisibilityRules
    from egoworld.compare.worlds import compare_worlds, finite, render
    from egoworld.core.folders.files import write_json

    def say(text: str) -> None:
        console.print(text, highlight=False, soft_wrap=True)

    rules = VisibilityRules(min_visible_px=min_visible_px, min_visible_s=min_visible_s)
    res = finite(compare_worlds(perceived, truth, say, anchors, rules))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_json(out, res)
    if as_json:
        typer.echo(json.dumps(res, sort_keys=True, allow_nan=False))
    else:
        typer.echo(render(res), nl=False)
