"""Commands: ``egoworld view`` (the browser app) and ``egoworld bench filter`` (keep reviewed questions),
registered in pyproject.toml. Heavy imports stay inside the command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error, fail

LOCAL = "127.0.0.1"


@exit_on_user_error
def view_cmd(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Folders that hold benchmark and run folders (searched 4 levels deep).", show_default=False
        ),
    ] = None,
    bench: Annotated[
        list[Path] | None, typer.Option("--bench", help="Benchmark folder (repeatable).")
    ] = None,
    run: Annotated[list[Path] | None, typer.Option("--run", help="Run folder (repeatable).")] = None,
    world: Annotated[
        list[Path] | None,
        typer.Option("--world", help="--audit: episode folder, or a folder of them (repeatable)."),
    ] = None,
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8765,
    host: Annotated[
        str,
        typer.Option(help="Address to bind; anything but 127.0.0.1 requires the printed ?token= in the URL."),
    ] = LOCAL,
    review: Annotated[
        str | None,
        typer.Option(
            help="Review the questions of the one benchmark (--bench) as NAME: accept / reject / flag."
        ),
    ] = None,
    review_file: Annotated[
        Path | None, typer.Option(help="Review log (SQLite); default BENCH/reviews/NAME.sqlite.")
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option(
            help="Answer the questions of the one benchmark (--bench) blind as NAME (model human:NAME)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Run folder of the human answers (--answer); default human-NAME."),
    ] = None,
    tasks: Annotated[str | None, typer.Option(help="--answer: comma-separated tasks (default: all).")] = None,
    per_task: Annotated[
        int | None, typer.Option(help="--answer: the first N questions of each task.")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="--answer: the first N questions.")] = None,
    audit: Annotated[
        str | None,
        typer.Option(help="Mark object visibility in the world folders (--world) as NAME (Beyond3D audit)."),
    ] = None,
    marks: Annotated[
        Path | None, typer.Option(help="--audit: marks CSV to append to (default marks-NAME.csv).")
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="The compare page's baseline: one of the --run folders (default: the first run).",
        ),
    ] = None,
    per_episode: Annotated[int, typer.Option(help="--audit: items sampled per episode.")] = 20,
    seed: Annotated[int, typer.Option(help="--audit: seed of the sampled items.")] = 0,
    scene: Annotated[
        Path | None,
        typer.Option(
            "--scene", help="Correct an annotated scene folder (`scene annotate`) as --review NAME."
        ),
    ] = None,
) -> None:
    """Look at benchmarks and runs in the browser: overview with CIs, sample list with filters, each sample's
    exact inputs and every reply, run comparison; review questions (--review), answer them (--answer), or
    mark object visibility for the Beyond3D audit (--audit; then `egoworld beyond3d audit --marks FILE`).

    Example: egoworld view demo-out --port 8765
    """
    import importlib.util
    import secrets

    given = [*(world or [])] if audit else [*(bench or []), *(run or [])]
    paths = [*given, *(paths or [])]
    if not paths and scene is None:
        fail("give --bench DIR, --run DIR (repeatable) or a folder that holds them (--audit: --world DIR)")

    missing = [m for m in ("starlette", "uvicorn", "jinja2") if importlib.util.find_spec(m) is None]
    if missing:
        fail(RuntimeError(f"egoworld view needs {', '.join(missing)}: pip install 'egoworld[view]'"))
    if scene is not None:
        _serve_scene(scene, review, review_file, host, port)
        return
    from egoworld.view.app import ViewApp, create_app

    if sum(x is not None for x in (review, answer, audit)) > 1:
        raise ValueError("--review, --answer and --audit are separate sessions: pass one")
    token = None if host in (LOCAL, "localhost") else secrets.token_urlsafe(16)
    if audit:
        from egoworld.view.audit_marks import AuditSession

        session = AuditSession(
            list(paths), audit, marks or Path(f"marks-{audit}.csv"), per_episode=per_episode, seed=seed
        )
        view = ViewApp(None, audit=session, token=token)
        where = "/audit"
    elif answer:
        from egoworld.view.human import HumanRun

        if len(paths) != 1:
            raise ValueError("--answer takes exactly one benchmark folder")
        chosen = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
        human = HumanRun(
            paths[0], answer, out or Path(f"human-{answer}"), tasks=chosen, per_task=per_task, limit=limit
        )
        view = ViewApp(None, human=human, token=token)
        where = "/answer"
    else:
        from egoworld.view.workspace import Workspace

        ws = Workspace(paths)
        log = bench_id = None
        if review:
            from egoworld.view.review import ReviewLog, default_review_file

            if len(paths) != 1 or not (paths[0] / "manifest.json").is_file():
                raise ValueError("--review takes exactly one benchmark folder (with manifest.json)")
            (bv,) = ws.benches.values()
            log = ReviewLog(
                review_file or default_review_file(bv.bench.root, review),
                reviewer=review,
                bench_hash=bv.bench.hash,
            )
            bench_id = bv.id
        if baseline is not None and not (baseline / "run.json").is_file():
            raise ValueError(f"--baseline {baseline}: not a run folder (no run.json)")
        shown = {Path(r.dir).resolve() for bv in ws.benches.values() for r in bv.runs}
        if baseline is not None and baseline.resolve() not in shown:
            raise ValueError(f"--baseline {baseline}: not among the runs shown; pass it with --run too")
        view = ViewApp(ws, review=log, review_bench=bench_id, token=token, baseline=baseline)
        where = f"/b/{bench_id}/samples" if review else "/"
    serve(create_app(view), host, port, where, token)


def _serve_scene(folder: Path, review: str | None, log: Path | None, host: str, port: int) -> None:
    import secrets

    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.scene_routes import SceneSession

    if not review:
        fail("--scene needs --review NAME (the reviewer; the log is SCENE/reviews/NAME.sqlite)")
    session = SceneSession(folder, review, log)
    token = None if host in (LOCAL, "localhost") else secrets.token_urlsafe(16)
    serve(create_app(ViewApp(None, scene=session, token=token)), host, port, "/scene", token)


def serve(app: object, host: str, port: int, where: str, token: str | None) -> None:
    """Run uvicorn; prints the URL once the socket is bound."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise SystemExit(f"error: cannot listen on {host}:{port} ({exc}); pick another --port") from exc
    sock.listen(128)
    bound = sock.getsockname()[1]
    query = f"?token={token}" if token else ""
    print(f"egoworld view: http://{host}:{bound}{where}{query}  (Ctrl-C stops)", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)  # type: ignore[arg-type]
    uvicorn.Server(config).run(sockets=[sock])


@exit_on_user_error
def bench_filter_cmd(
    review: Annotated[
        Path,
        typer.Option("--review", help="Review log written by `egoworld view --bench BENCH --review NAME`."),
    ],
    out: Annotated[Path, typer.Option("--out", help="New benchmark folder with the accepted questions.")],
    bench: Annotated[Path, typer.Option("--bench", help="Benchmark folder that was reviewed.")],
    keep_flagged: Annotated[bool, typer.Option(help="Keep flagged questions too.")] = False,
) -> None:
    """Write the accepted questions of a reviewed benchmark as a new benchmark folder; its manifest records
    the review (file, sha256, reviewers, counts).

    Example: egoworld bench filter --bench bench/b3d --review bench/b3d/reviews/ana.sqlite --out bench/b3d-reviewed
    """
    from egoworld.view.review import filter_benchmark

    counts = filter_benchmark(bench, review, out, keep_flagged=keep_flagged)
    typer.echo(
        f"wrote {out}: {counts['kept']} questions kept ({counts['accepted']} accepted, {counts['rejected']} "
        f"rejected, {counts['flagged']} flagged, {counts['unreviewed']} not reviewed)"
    )


@exit_on_user_error
def world_fix_cmd(
    world: Annotated[
        Path, typer.Argument(help="World folder (episode folders) the reviewed benchmark was built from.")
    ],
    review: Annotated[
        list[Path],
        typer.Option("--review", help="Review log whose rejections name causes (repeatable)."),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the fixed world here (default: fix WORLD in place).")
    ] = None,
) -> None:
    """Apply the causes a review names (a corrected appearance interval, place visit, pose flag, fixture or
    object field) to the world; list the causes that need a human (no corrected value, a count, entries that
    disagree) and exit 3 when there are any. Each changed episode records the review (file, sha256, entries);
    rebuild the benchmark afterwards: its manifest lists the reviews it includes.

    Example: egoworld world fix worlds/walks --review bench/vsi/reviews/ana.sqlite --out worlds/walks-fixed
    """
    from egoworld.core.errors import EXIT_INCOMPLETE
    from egoworld.core.folders.files import InputFileError
    from egoworld.view.causes import review_fixes
    from egoworld.world.fix import apply_fixes

    fixes, records = [], []
    for log in review:
        found, record = review_fixes(log)
        fixes += found
        records.append(record)
    if not fixes:
        raise InputFileError(f"{', '.join(map(str, review))}: no rejection names a cause — nothing to fix")
    rep = apply_fixes(world, fixes, out=out, review={"reviews": records} if len(records) > 1 else records[0])
    for f in rep.applied:
        typer.echo(f"applied: {f.ref.label()} → {f.value}  ({f.entry})")
    for f in rep.already:
        typer.echo(f"already so: {f.ref.label()}  ({f.entry})")
    typer.echo(
        f"wrote {rep.out}: {len(rep.applied)} fixes applied to {len(rep.episodes)} episodes, "
        f"{len(rep.already)} already so, {len(rep.needs_human)} need a human"
    )
    if rep.needs_human:
        for f, why in rep.needs_human:
            typer.echo(f"needs a human: {f.ref.label()} — {why}  ({f.entry})", err=True)
        fail(
            f"{len(rep.needs_human)} causes need a human (listed above); rebuild after deciding them",
            EXIT_INCOMPLETE,
        )
    typer.echo("now rebuild the benchmark from the fixed world (e.g. `egoworld build vsi-wild --world …`)")
