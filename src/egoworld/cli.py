"""The ``egoworld`` command line: a thin layer that parses options and calls library functions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from egoworld import __version__
from egoworld.core.errors import EXIT_BAD_INPUT, fail
from egoworld.runner.outcome import finish_run
from egoworld.scoring.outcome import check_scored

app = typer.Typer(
    help="egoworld — build, run, score and report benchmarks of world-state tracking for vision-language "
    "models (Beyond3D, VSI-Super-Wild, EXPLORE-Bench).\n\nStages: import/build → run → score → report; each "
    "stage reads the files the previous one wrote, so any stage can be re-run alone.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
import_app = typer.Typer(
    help="Import an official benchmark file as a benchmark folder.", no_args_is_help=True
)
bench_app = typer.Typer(help="Inspect and check benchmark folders.", no_args_is_help=True)
build_app = typer.Typer(help="Build a benchmark from worlds (recordings or synthetic).", no_args_is_help=True)
app.add_typer(import_app, name="import")
app.add_typer(bench_app, name="bench")

#: packages that add commands: each module has ``register(app, import_app, build_app)`` and keeps heavy
#: imports inside its command functions (so ``egoworld --help`` stays fast)
EXTENSIONS = (
    "egoworld.world.cli",
    "egoworld.media.cli",
    "egoworld.benchmarks.beyond3d.cli",
    "egoworld.benchmarks.vsi_wild.cli",
    "egoworld.benchmarks.explore.cli",
    "egoworld.interchange.cli",
    "egoworld.interchange.export_cli",
    "egoworld.runner.cli",  # after the packages whose run commands it extends (--config, --from)
    "egoworld.view.cli",
    "egoworld.demo.cli",  # after the benchmarks whose groups it adds ``demo`` to
)

console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        print(f"egoworld {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """egoworld command line."""


@import_app.command("vsi-wild-qa")
def import_vsi_wild_qa(
    file: Annotated[Path, typer.Argument(help="The official vsi_super_wild_qa.jsonl (6,980 questions).")],
    out: Annotated[
        Path, typer.Option("--out", help="Benchmark folder to write (manifest.json + samples.jsonl).")
    ],
    videos: Annotated[
        Path | None,
        typer.Option("--videos", help="Folder of the <youtube_id>_<view>.mp4 videos; linked as OUT/videos."),
    ] = None,
    durations: Annotated[
        Path | None,
        typer.Option(
            help="CSV of video_name, duration_s (or duration_min): enables the duration-group analyses."
        ),
    ] = None,
    probe_durations: Annotated[
        bool,
        typer.Option(help="Read each video's duration from --videos with PyAV (instead of --durations)."),
    ] = False,
) -> None:
    """Import the official VSI-Super-Wild questions: tasks VMR, VPO, VOO (choices) and VOC (integers).

    Choices come from the "A) …" strings, the answer is the option index (an integer for VOC) and the
    cluster is the source panorama (the video name without _front/_back/_left/_right). Without --videos the
    benchmark runs text-only; a video setting lists the missing files in one error. Durations (from a CSV
    or probed from the videos) add the paper's duration groups (0–10 … 120+ minutes) to the report.
    """
    from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa as do_import
    from egoworld.core.files import InputFileError

    try:
        if durations is not None and probe_durations:
            raise ValueError("give --durations CSV or --probe-durations, not both")
        if probe_durations and videos is None:
            raise ValueError("--probe-durations reads the videos: pass --videos DIR too")
        bench = do_import(file, out, videos=videos)
        if durations is not None or probe_durations:
            from egoworld.benchmarks.vsi_wild.durations import (
                add_durations,
                read_durations_csv,
                video_name,
            )
            from egoworld.benchmarks.vsi_wild.durations import (
                probe_durations as probe,
            )

            if durations is not None:
                table, origin = read_durations_csv(durations), f"csv {durations.name}"
            else:
                assert videos is not None
                table = probe(videos, sorted({video_name(s) for s in bench.samples}))
                origin = "probed with PyAV"
            bench = add_durations(out, table, origin)
    except (InputFileError, ValueError) as exc:
        fail(exc)
    counts = ", ".join(f"{t} {n}" for t, n in bench.manifest.counts.items())
    console.print(f"wrote {out}: {len(bench.samples)} samples ({counts})")


@bench_app.command("check")
def bench_check(folder: Annotated[Path, typer.Argument(help="Benchmark folder.")]) -> None:
    """Validate a benchmark folder and print its tasks and answer balance."""
    from egoworld.core.bench_folder import load_benchmark
    from egoworld.core.files import InputFileError

    try:
        bench = load_benchmark(folder)
    except (InputFileError, ValueError) as exc:
        fail(exc)
    m = bench.manifest
    print(f"{m.name} v{m.version}: {len(bench.samples)} samples, hash {bench.hash[:12]}")
    for line in bench.media_roots.describe():
        print(f"  media root: {line}")
    for task, info in m.tasks.items():
        dist = m.answer_distribution.get(task, {})
        shown = ", ".join(f"{k}:{v}" for k, v in list(dist.items())[:8]) + (" …" if len(dist) > 8 else "")
        print(f"  {task:<28} {m.counts.get(task, 0):>6}  {info.answer_type:<8} {info.metric:<10} {shown}")


@bench_app.command("rehash")
def bench_rehash(folder: Annotated[Path, typer.Argument(help="Benchmark folder.")]) -> None:
    """Accept hand edits of samples.jsonl: validate it and rewrite the manifest's counts and hash."""
    from egoworld.core.bench_folder import rehash_benchmark
    from egoworld.core.files import InputFileError

    try:
        manifest = rehash_benchmark(folder)
    except (InputFileError, ValueError) as exc:
        fail(exc)
    console.print(f"{folder}: manifest updated ({sum(manifest.counts.values())} samples)")


@app.command("models")
def models_list() -> None:
    """List model backends and their options."""
    from egoworld.models.spec import available_backends

    for name, help_text in available_backends().items():
        print(f"{name:<10} {help_text}")


@app.command("doctor")
def doctor(
    base_url: Annotated[str, typer.Option(help="Server URL, e.g. http://127.0.0.1:8000/v1.")],
    model: Annotated[
        str | None, typer.Option(help="Model name to check (default: the only one served).")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    timeout: Annotated[float, typer.Option(help="Seconds per check.")] = 30.0,
    frames: Annotated[
        int | None,
        typer.Option(
            help="Also send one request shaped like the run: this many frames (as `run --frames`), at "
            "--max-pixels in --image-format; a refusal is explained with the server flag that fixes it."
        ),
    ] = None,
    max_pixels: Annotated[
        int, typer.Option(help="Pixel budget per frame of the run-shaped request (as `run --max-pixels`).")
    ] = 448 * 448,
    image_format: Annotated[
        str, typer.Option(help="Frame encoding of the run-shaped request (as `run --image-format`).")
    ] = "png",
) -> None:
    """Check an OpenAI-compatible server before a long run: reachable, model listed, a text round trip,
    images accepted or not, context length, and with --frames one request as large as the run's (image
    limit, context length, body size). Exit code 1 if a required check fails.

    Example: egoworld doctor --base-url http://127.0.0.1:8000/v1 --frames 128 --max-pixels 200704
    """
    from egoworld.media.formats import canonical_image_format
    from egoworld.models.doctor import check_server

    try:
        image_format = canonical_image_format(image_format)
        if frames is not None and frames < 1:
            raise ValueError(f"--frames must be at least 1, got {frames}")
    except ValueError as exc:
        fail(exc)
    report = check_server(
        base_url,
        model,
        api_key_env=api_key_env,
        timeout=timeout,
        frames=frames,
        max_pixels=max_pixels,
        image_format=image_format,
    )
    for c in report.checks:
        mark = "ok " if c.ok else ("?  " if c.ok is None or not c.required else "FAIL")
        print(f"{mark:<4} {c.name:<15} {c.detail}")
    if not report.ok:
        raise typer.Exit(1)


@app.command("run")
def run(
    bench: Annotated[Path, typer.Option("--bench", help="Benchmark folder (manifest.json + samples.jsonl).")],
    model: Annotated[
        str, typer.Option("--model", help="random | prior | oracle | openai:<model> (see `egoworld models`).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Run folder; rerunning the same command resumes it.")],
    setting: Annotated[
        str,
        typer.Option(help="Inputs: text | frames | last-frame | image (EXPLORE: the initial scene image)."),
    ] = "text",
    frames: Annotated[
        int, typer.Option(help="Frames sampled from each video in the 'frames' setting.")
    ] = 128,
    frame_policy: Annotated[
        str,
        typer.Option(
            help="Frame sampling: uniform (VSI-Super-Wild rule, first and last frame included) | uniform-round "
            "| uniform-center | uniform-start | fps:R | fps-end:R (clip ends at the query time) | at:T1,T2 | last."
        ),
    ] = "uniform",
    max_pixels: Annotated[
        int,
        typer.Option(help="Pixel budget per frame (frames are shrunk as decoded); 0 keeps the video size."),
    ] = 448 * 448,
    overlays: Annotated[
        str,
        typer.Option(
            help="Burned-in overlays: timestamp, fisheye[=R] (comma-separated), e.g. fisheye,timestamp."
        ),
    ] = "",
    video_part: Annotated[
        bool, typer.Option(help="Send sampled frames as one MP4 video part (servers that accept video_url).")
    ] = False,
    image_format: Annotated[
        str,
        typer.Option(
            help="Frame encoding in requests: png (lossless) | jpeg[:Q] | webp[:Q], Q 1-100 (default 90); "
            "e.g. jpeg:85 makes requests several times smaller. Part of the request key."
        ),
    ] = "png",
    permutations: Annotated[
        str,
        typer.Option(
            help="Option orders: none | shuffle24 (all 24 orders of 4 options) | K (K sampled orders)."
        ),
    ] = "none",
    tasks: Annotated[str | None, typer.Option(help="Comma-separated tasks to run (default: all).")] = None,
    limit: Annotated[int | None, typer.Option(help="Run only the first N samples (file order).")] = None,
    per_task: Annotated[int | None, typer.Option(help="Run only the first N samples of each task.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for option orders and seeded baselines.")] = 0,
    epochs: Annotated[int, typer.Option(help="Repeat each request N times (for sampling models).")] = 1,
    history: Annotated[
        str, typer.Option(help="Trajectory steps see earlier steps: none | gold | pred.")
    ] = "none",
    concurrency: Annotated[
        int,
        typer.Option(
            help="Requests in flight at once (a server model backs off on 429 / 5xx and grows back)."
        ),
    ] = 8,
    cache: Annotated[
        Path | None,
        typer.Option(help="Response cache folder shared across runs (deterministic requests only)."),
    ] = None,
    price: Annotated[
        str | None,
        typer.Option(help="Cost in run.json: in=P,out=Q dollars per million tokens, e.g. in=2.5,out=10."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for openai:<model> (e.g. http://127.0.0.1:8000/v1).")
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            help="Generation limit for server models (default 256: short answers; EXPLORE runs want 2048)."
        ),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option(help="Sampling temperature for server models (default 0).")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(help="Seconds before a request times out (default 120).")
    ] = None,
    model_arg: Annotated[
        list[str] | None,
        typer.Option(
            "--model-arg", help="Backend options key=value (repeatable; 'a=1 b=2' too), e.g. stop=</s>."
        ),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            help="Environment variable holding the API key (default OPENAI_API_KEY), as for doctor."
        ),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    executor: Annotated[
        str, typer.Option(help="local (in-process) | ray (shards over a Ray cluster).")
    ] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray address ('auto' = the running cluster); default: start Ray here.")
    ] = None,
    shard_size: Annotated[int, typer.Option(help="Requests per Ray task (--executor ray).")] = 64,
    strategy: Annotated[
        str | None, typer.Option(help="EXPLORE inference strategy: one-go | stepwise.")
    ] = None,
    segment_num: Annotated[
        int | None, typer.Option(help="EXPLORE stepwise: number of equal segments.")
    ] = None,
    window_size: Annotated[int | None, typer.Option(help="EXPLORE stepwise: actions per window.")] = None,
    turns: Annotated[
        str | None,
        typer.Option(help="EXPLORE stepwise: single (one JSON-list reply) | multi (one turn per step)."),
    ] = None,
    subset: Annotated[
        str | None, typer.Option(help="EXPLORE samples: full | tiny | short | medium | long.")
    ] = None,
) -> None:
    """Run a model over a benchmark and store every response (SQLite, resumable).

    Each (question, option order, epoch) is one request, keyed by a hash of the model, its settings, the
    prompt, the media and the order; a benchmark may plan its own chains of requests instead (EXPLORE's
    --strategy, --setting image). A rerun of the same command skips what is done and retries what
    failed. Exit code 3 means some requests still failed (rerun to retry them).
    """
    from egoworld.core.files import InputFileError
    from egoworld.core.run_config import RunConfig, bench_options
    from egoworld.models.spec import model_args_with_flags
    from egoworld.runner.run import run_benchmark

    try:
        args = model_args_with_flags(
            model_arg,
            base_url=base_url,
            max_tokens=max_tokens,
            temperature=temperature,
            timeout=timeout,
            api_key_env=api_key_env,
        )
        cfg = RunConfig(
            bench=bench,
            model=model,
            out=out,
            model_args=args,
            setting=setting,
            frames=frames,
            frame_policy=frame_policy,
            max_pixels=max_pixels,
            overlays=overlays,
            video_part=video_part,
            image_format=image_format,
            permutations=permutations,
            seed=seed,
            epochs=epochs,
            history=history,
            tasks=[t.strip() for t in tasks.split(",") if t.strip()] if tasks else None,
            limit=limit,
            per_task=per_task,
            concurrency=concurrency,
            cache=cache,
            price=price,
            progress=progress,
            executor=executor,
            address=address,
            shard_size=shard_size,
            options=bench_options(
                strategy=strategy,
                segment_num=segment_num,
                window_size=window_size,
                turns=turns,
                subset=subset,
            ),
        )
        summary = run_benchmark(cfg)
    except (InputFileError, ValueError, RuntimeError) as exc:
        fail(exc)
    finish_run(summary, out)


@app.command("score")
def score(
    run_dir: Annotated[Path, typer.Argument(help="Run folder written by `egoworld run`.")],
    bench: Annotated[Path | None, typer.Option(help="Benchmark folder, if it moved since the run.")] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="Judge for free-form answers (EXPLORE): lexical | openai:<model>[,base_url=URL,…]."
        ),
    ] = None,
    scoring: Annotated[
        str,
        typer.Option(help="egoworld (our extractor) | official (the official harness's per-sample rules)."),
    ] = "egoworld",
) -> None:
    """Score a run offline: writes scores.jsonl (one row per question × order × epoch) and scores.json.
    A run imported from another harness's log also gets reference_score per row and reference_agreement.

    Example: egoworld score runs/qwen --scoring official"""
    from egoworld.core.files import InputFileError
    from egoworld.render.tables import reference_line, summary_line
    from egoworld.scoring.score import score_run

    try:
        summary = score_run(
            run_dir, bench_dir=bench, options={"judge": judge} if judge else None, scoring=scoring
        )
    except (InputFileError, ValueError, FileNotFoundError, RuntimeError) as exc:
        fail(exc)
    print(summary_line(summary))
    if (agreement := summary.get("reference_agreement")) is not None:
        print(reference_line(agreement))
    if summary.get("errors"):
        from egoworld.core.files import iter_jsonl
        from egoworld.core.progress import format_reasons, top_reasons
        from egoworld.core.run_config import SCORES_JSONL

        failed = [
            r.get("error") or "" for _, r in iter_jsonl(run_dir / SCORES_JSONL) if r.get("status") == "error"
        ]
        console.print(
            format_reasons(top_reasons(failed), len(failed)), highlight=False, markup=False, soft_wrap=True
        )
    check_scored(summary, run_dir)


@app.command("report")
def report(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run folders (scored or not; unscored ones are scored).")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Report folder: tables (md, csv), plots (png), index.html.")
    ],
) -> None:
    """Make the paper's tables, Shuffle24 diagnostics, plots and a static HTML report from run folders."""
    from egoworld.core.files import InputFileError
    from egoworld.report.build import build_report

    try:
        index = build_report(run_dirs, out)
    except (InputFileError, ValueError, FileNotFoundError) as exc:
        fail(exc)
    console.print(f"report: {index}")


@app.command("demo")
def demo(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the demo's worlds, benchmarks, runs and report.")
    ] = Path("demo-out"),
    data: Annotated[
        Path | None,
        typer.Option(
            help="The shared data folder (holds vsi-super-wild/); default: $EGOWORLD_DATA, else ../shared/data "
            "from here or beside the egoworld checkout."
        ),
    ] = None,
    per_task: Annotated[
        int, typer.Option(help="Official VSI-Super-Wild: questions per task in the subset.")
    ] = 250,
    parts: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated parts: vsi-official, beyond3d, vsi-synthetic, explore (default: all)."
        ),
    ] = None,
) -> None:
    """The embedded default end to end with the built-in baselines (random, prior, oracle, copy-initial):
    the official VSI-Super-Wild questions text-only with Shuffle24; Beyond3D built from synthetic kitchens
    in all three settings; VSI-Super-Wild built from a synthetic walk; EXPLORE-Bench built from synthetic
    action scenes. One report covers every run."""
    from egoworld.core.files import InputFileError
    from egoworld.demo import run_demo

    chosen = tuple(p.strip() for p in parts.split(",") if p.strip()) if parts else None
    try:
        index = run_demo(out=out, data=data, per_task=per_task, parts=chosen)
    except (InputFileError, ValueError, FileNotFoundError) as exc:
        fail(exc)
    console.print(f"demo report: {index}")
    console.print(
        f"look at every sample in the browser: egoworld view {out}", highlight=False, soft_wrap=True
    )


def _register_extensions() -> None:
    import importlib

    for name in EXTENSIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that package has not landed in this build
            raise
        module.register(app=app, import_app=import_app, build_app=build_app)
    if build_app.registered_commands or build_app.registered_groups:
        app.add_typer(build_app, name="build")
    from egoworld.cli_examples import add_examples

    add_examples(app)


_register_extensions()


def spread_model_args(argv: list[str]) -> list[str]:
    """``--model-arg a=1 b=2`` → ``--model-arg a=1 --model-arg b=2`` (bare key=value words after a
    --model-arg value; the commands that take --model-arg have no positional arguments)."""
    import re

    out: list[str] = []
    spreading = False  # the previous word was a --model-arg value (or a spread pair)
    for word in argv:
        if spreading and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            out += ["--model-arg", word]
            continue
        spreading = out[-1:] == ["--model-arg"]
        out.append(word)
    return out


def main() -> None:
    """Console-script entry point."""
    import sqlite3

    from egoworld.core.failures import explain_failure
    from egoworld.core.files import InputFileError

    sys.argv[1:] = spread_model_args(sys.argv[1:])
    try:
        app()
    except KeyboardInterrupt:
        console.print("interrupted — rerun the same command to resume")
        sys.exit(130)
    except InputFileError as exc:  # a loader a command did not wrap: still one line, never a traceback
        console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)
    except (OSError, sqlite3.Error) as exc:
        console.print(f"[bold red]error:[/] {explain_failure(exc)}", highlight=False, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
