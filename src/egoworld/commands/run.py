"""``egoworld run``: run a model over a benchmark and store every response."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from egoworld.commands.config_options import config_options
from egoworld.runner.outcome import finish_run


@config_options("run")
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
    track: Annotated[
        str | None,
        typer.Option(help="Send config, scores and the score table to mlflow:URI | wandb[:DIR] (offline)."),
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
    options: Annotated[
        list[str] | None,
        typer.Option(
            "--option",
            metavar="NAME=VALUE",
            help="A run option of the benchmark (repeatable), parsed by the type it declares; each "
            "benchmark's options are listed below. In --config: an 'options:' mapping.",
        ),
    ] = None,
    recorded_command: dict[str, Any] | None = None,
) -> None:
    """Run a model over a benchmark and store every response (SQLite, resumable).

    Each (question, option order, epoch) is one request, keyed by a hash of the model, its settings, the
    prompt, the media and the order; a benchmark may plan its own chains of requests instead, set by its
    run options (--option NAME=VALUE, listed below). A rerun of the same command skips what is done and
    retries what failed. Exit code 3 means some requests still failed (rerun to retry them).
    """
    from egoworld.runner.run import run_benchmark
    from egoworld.runner.run_flags import run_config_from_flags

    if track:
        from egoworld.campaign.experiment_trackers import parse_track

        parse_track(track)
    bench_options = run_options(bench, options)
    cfg = run_config_from_flags(
        bench=bench,
        model=model,
        out=out,
        model_arg=model_arg,
        base_url=base_url,
        max_tokens=max_tokens,
        temperature=temperature,
        timeout=timeout,
        api_key_env=api_key_env,
        tasks=tasks,
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
        limit=limit,
        per_task=per_task,
        concurrency=concurrency,
        cache=cache,
        price=price,
        progress=progress,
        executor=executor,
        address=address,
        shard_size=shard_size,
        options=bench_options,
        command=recorded_command,
    )
    summary = run_benchmark(cfg)
    try:
        finish_run(summary, out)
    finally:
        if track:
            track_run(out, track)


def track_run(out: Path, track: str) -> None:
    """Send the finished run to its tracker; a run that cannot be sent says why (the run itself is kept)."""
    from egoworld.campaign.experiment_trackers import log_run

    try:
        print(f"tracked: {log_run(out, track)}")
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"--track {track}: {exc}") from exc


def run_options(bench: Path, items: list[str] | None) -> dict[str, Any]:
    """``--option NAME=VALUE`` items parsed by the types the benchmark's plug-in declares (the last of a
    name given twice wins); a malformed item, an option the benchmark does not take or a bad value raises
    a ValueError naming the benchmark's options and the fix."""
    if not items:
        return {}
    import difflib

    from egoworld.core.folders.bench_folder import FOLDER
    from egoworld.core.plugin import UnknownRunOption, parse_run_options, plugin_for
    from egoworld.core.schema import Manifest

    given: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--option {item!r}: expected NAME=VALUE, e.g. --option strategy=stepwise")
        given[name.strip()] = value.strip()
    plugin = plugin_for(FOLDER.read_header(bench, Manifest).name)
    try:
        return parse_run_options(plugin, given)
    except UnknownRunOption as exc:
        declared = [o.name for o in plugin.run_options]
        wrong = next(k for k in given if k not in declared)
        close = difflib.get_close_matches(wrong, declared, n=1)
        fix = f"did you mean --option {close[0]}=…?" if close else "drop it"
        raise ValueError(
            f"--option {wrong}: {exc}; {fix} (`egoworld run --help` lists every benchmark's options)"
        ) from None
    except ValueError as exc:
        raise ValueError(f"--option {exc}") from None


def options_help() -> str:
    """The run options of every registered benchmark, for the end of ``egoworld run --help`` (read from the
    plug-ins, so the list cannot drift from what the benchmarks take)."""
    from egoworld.core import registry
    from egoworld.core.plugin import plugin_for

    lines = []
    for name in registry.names(registry.BENCHMARKS):
        try:
            plugin = plugin_for(name)
        except registry.RegistryError:  # a broken plug-in: its options are not listed, the rest are
            continue
        if plugin.run_options:
            lines.append(f"{plugin.title or name} (--option NAME=VALUE; benchmark '{name}'):")
            lines += [f"  {o.describe()}" for o in plugin.run_options]
    return "\n".join(lines) or "No installed benchmark declares run options."


run.help_sections = (("Benchmark run options", options_help),)  # type: ignore[attr-defined]
