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
    exported task folder (--task-dir, its docs.jsonl and benchmark/) or to the benchmark (--bench). So does a
    log of the official vsi_super_wild task written by lmms-eval 0.7 (which drops each line's doc): pass
    --bench with the folder `egoworld import vsi-wild-qa` made from the QA file the task ran on (doc_id is its row).

    Replies lmms-eval logged for failed requests ("[LMMS_EVAL_REQUEST_FAILED after N retries] …"; lmms-eval
    still exits 0) become error rows: never scored, counted in the summary; rerun those questions.

    Example: egoworld import lmms-eval logs/qwen/20260101_samples_vsi_super_wild.jsonl --bench benches/vsi-wild --out imported/qwen
    """
    from egoworld.interchange.lmms_eval_log import import_lmms_eval_log

    result = import_lmms_eval_log(log, out, bench=bench, model=model, task_dir=task_dir)
    where = "" if bench is not None or result.kind == "egoworld" else f"{out / 'bench'} and "
    typer.echo(
        f"wrote {where}{result.run}: {result.lines} logged {result.kind} replies of {result.model} "
        f"({result.lines - result.failed} replies, {result.failed} harness failures); "
        f"score them with `egoworld score --run {result.run}`"
    )
    if result.failed:
        typer.secho(
            f"WARNING: {result.failed} of {result.lines} lines of {log} are lmms-eval request failures "
            "([LMMS_EVAL_REQUEST_FAILED ...]), not replies: imported as error rows, never scored (the log's own "
            "score counted them as wrong); rerun those questions",
            err=True,
            fg="yellow",
            bold=True,
        )


def import_inspect_cmd(
    log: Annotated[
        Path, typer.Argument(help="An Inspect eval log (.eval or .json), e.g. from `inspect eval`.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder for run/.")],
    bench: Annotated[
        Path | None,
        typer.Option(
            "--bench",
            help="The benchmark folder whose questions the log's sample ids name (default: the one `egoworld export inspect` "
            "recorded, if unchanged).",
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model name for the run (default: the log's model).")
    ] = None,
    epoch: Annotated[
        int, typer.Option("--epoch", help="Which epoch of the log to import (Inspect counts from 1).")
    ] = 1,
    scorer: Annotated[
        str | None,
        typer.Option(
            "--scorer", help="The log's scorer kept as the reference verdict (default: the first by name)."
        ),
    ] = None,
) -> None:
    """Import an Inspect eval log as a run: OUT/run holds each sample's completion as a response (a sample
    with an error an error row, never scored) and the log's own score as run/reference.jsonl. Then `egoworld
    score --run OUT/run` scores the replies with egoworld's rules and prints the agreement with Inspect's.

    Sample ids name the benchmark's questions (logs from `egoworld export inspect` carry them in the
    metadata); a sample shown in a shuffled option order is refused.

    Example: egoworld import inspect logs/qwen.eval --bench benches/vsi-wild --out imported/qwen-inspect
    """
    from egoworld.core.errors import fail
    from egoworld.core.folders.files import InputFileError
    from egoworld.interchange.import_inspect import import_inspect_log

    try:
        result = import_inspect_log(log, out, bench=bench, model=model, epoch=epoch, scorer=scorer)
    except (InputFileError, ValueError, FileNotFoundError) as exc:
        fail(exc)
    kept = f"; the log's {result.scorer} scores kept as reference" if result.scorer else ""
    typer.echo(
        f"wrote {result.run}: {result.samples} samples of {result.model} ({result.failed} errors){kept}; "
        f"score them with `egoworld score --run {result.run}`"
    )
    if result.failed:
        typer.secho(
            f"WARNING: {result.failed} of {result.samples} samples of {log} ended in an error: imported as error "
            "rows, never scored; rerun those questions",
            err=True,
            fg="yellow",
            bold=True,
        )
