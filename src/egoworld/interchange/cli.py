"""Commands of the interchange package: ``import lmms-eval`` (registered in pyproject.toml). Heavy imports stay
inside the functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error


@exit_on_user_error
def import_lmms_eval_cmd(
    log: Annotated[
        Path,
        typer.Argument(
            help="An lmms-eval --log_samples JSONL file (oos_videoqa, vsi_super_wild, or a task from "
            "`egoworld export lmms-eval`)."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder for bench/ (unless --bench) and run/.")],
    bench: Annotated[
        Path | None,
        typer.Option(
            "--bench", help="Attach the replies to this benchmark folder instead of building OUT/bench."
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model name for the run (default: the log's folder name).")
    ] = None,
    task_dir: Annotated[
        Path | None,
        typer.Option(
            "--task-dir",
            help="The folder `egoworld export lmms-eval` wrote, for logs of its task (default: the one named "
            "in lmms-eval's results file beside the log, else --bench).",
        ),
    ] = None,
) -> None:
    """Import a colleague's lmms-eval run: OUT/bench is built from the question docs the log embeds
    (Beyond3D oos_videoqa, VSI-Super-Wild vsi_super_wild), OUT/run holds each logged reply as a response
    and the log's own verdict (run/reference.jsonl). Then `egoworld score --run OUT/run` scores the replies with
    egoworld's rules, keeps the log's verdict as reference_score and prints the agreement.

    A log of a task from `egoworld export lmms-eval` names questions by doc_id only: it attaches to the
    exported task folder (--task-dir, its docs.jsonl and benchmark/) or to the benchmark (--bench).

    Example: egoworld import lmms-eval logs/qwen3.6_27b/without_video.jsonl --out imported/qwen-text
    """
    from egoworld.interchange.lmms_eval_log import import_lmms_eval_log

    result = import_lmms_eval_log(log, out, bench=bench, model=model, task_dir=task_dir)
    where = "" if bench is not None or result.kind == "egoworld" else f"{out / 'bench'} and "
    typer.echo(
        f"wrote {where}{result.run}: {result.lines} logged {result.kind} replies of {result.model}; "
        f"score them with `egoworld score --run {result.run}`"
    )
