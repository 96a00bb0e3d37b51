"""`egoworld leaderboard CAMPAIGN | RUN …`: the papers' tables over scored runs (Markdown, CSV, LaTeX)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import EXIT_INCOMPLETE, console, exit_on_user_error, fail


@exit_on_user_error
def leaderboard(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Campaign folders (`egoworld sweep run`) or run folders.", show_default=False),
    ] = None,
    run: Annotated[list[Path] | None, typer.Option("--run", help="Run folder (repeatable).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="md | csv | latex | all (all needs --out).")] = "md",
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for leaderboard_BENCH.{md,csv,tex} (default: print).")
    ] = None,
    allow_different_questions: Annotated[
        bool,
        typer.Option(help="Compare runs that answered different questions on the ones they share (warned)."),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the paired cluster bootstrap that decides ties.")] = 0,
) -> None:
    """The benchmark's table as in its paper (Beyond3D: 8 types + macro and chance; VSI-Super-Wild: tasks,
    Overall ± SEM and duration groups; EXPLORE: S_obj / S_att / S_rel / S_uni per partition), one per
    benchmark, over the questions every run answered. Best bold, second underlined; runs whose difference is
    not significant under a paired cluster bootstrap share the mark. Runs that answered different questions
    are refused unless --allow-different-questions.

    Example: egoworld leaderboard campaigns/c1 --format all --out campaigns/c1/leaderboard
    """
    from egoworld.core.folders.files import write_text
    from egoworld.render import board_formats as render
    from egoworld.scoring.leaderboard import build_board, by_benchmark, gather

    fmt = {"markdown": "md", "tex": "latex"}.get(fmt, fmt)
    if fmt not in (*render.FORMATS, "all"):
        fail(f"--format {fmt!r}: expected md, csv, latex or all")
    if fmt == "all" and out is None:
        fail("--format all writes three files: give --out DIR")
    given = [*(paths or []), *(run or [])]
    if not given:
        fail("give a campaign folder or run folders (positional or --run RUN)")
    entries, unscored = gather(given)
    if unscored:
        console.print(
            f"[bold yellow]warning:[/] {len(unscored)} run folder(s) not scored, left out: {', '.join(unscored)}"
        )
    if not entries:
        fail(
            "no scored run folders among the given ones (score them: `egoworld score --run RUN`)",
            EXIT_INCOMPLETE,
        )
    formats = render.FORMATS if fmt == "all" else (fmt,)
    written = []
    for title, group in by_benchmark(entries).items():
        board = build_board(group, allow_different=allow_different_questions, seed=seed)
        if board.warning():
            console.print(f"[bold yellow]warning:[/] {title}: {board.warning()}", highlight=False)
        for f in formats:
            text = render.render(board, f)
            if out is None:
                head = {"md": f"## {title}\n\n", "latex": f"% {title}\n"}.get(f, "")
                typer.echo(head + text)
            else:
                slug = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in title)
                path = out / f"leaderboard_{slug}.{render.SUFFIX[f]}"
                write_text(path, text)
                written.append(path)
    for path in written:
        typer.echo(f"wrote {path}")
