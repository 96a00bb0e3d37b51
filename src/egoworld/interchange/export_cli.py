"""``egoworld export …`` (lmms-eval task folders, Inspect logs, HF datasets, Parquet) and ``egoworld import hf``,
registered in pyproject.toml (``egoworld.exporters`` / ``egoworld.importers``). Heavy imports stay inside the
command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, fail


def _errors() -> tuple[type[BaseException], ...]:
    from egoworld.core.folders.files import InputFileError

    return (InputFileError, ValueError, FileNotFoundError)


def export_hf_cmd(
    out: Annotated[Path, typer.Option("--out", help="Dataset folder to write (new or empty).")],
    bench: Annotated[
        Path | None, typer.Option("--bench", help="Benchmark folder (manifest.json + samples.jsonl).")
    ] = None,
    license: Annotated[
        str | None,
        typer.Option(help="Licence for the card (default: the manifest's source licence, else 'other')."),
    ] = None,
    shard_rows: Annotated[int, typer.Option(help="Questions per Parquet shard.")] = 10_000,
    text_only: Annotated[
        bool,
        typer.Option(help="Leave the media files out (import hf then rebuilds the questions without them)."),
    ] = False,
    old_bench: Annotated[Path | None, typer.Argument(hidden=True)] = None,
) -> None:
    """A benchmark as a Hugging Face dataset folder: Parquet shards, media files, a dataset card and the
    manifest. `egoworld import hf DIR` rebuilds the benchmark byte for byte.

    Example: egoworld export hf --bench bench/beyond3d --out hf/beyond3d --license cc-by-4.0
    """
    from egoworld.core.aliases import one_folder
    from egoworld.interchange.export_hf import export_hf

    bench = one_folder(bench, old_bench, "--bench")

    try:
        res = export_hf(bench, out, license=license, shard_rows=shard_rows, text_only=text_only)
    except _errors() as exc:
        fail(exc)
    console.print(
        f"wrote {res.out}: {res.rows} rows in {len(res.shards)} shard(s), {res.media_files} media files"
    )


def import_hf_cmd(
    folder: Annotated[Path, typer.Argument(help="Dataset folder written by `egoworld export hf`.")],
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write (new or empty).")],
) -> None:
    """Rebuild a benchmark folder from an `egoworld export hf` dataset folder (byte-identical, checked).

    Example: egoworld import hf hf/beyond3d --out bench/beyond3d-copy
    """
    from egoworld.interchange.import_hf import import_hf

    try:
        bench = import_hf(folder, out)
    except _errors() as exc:
        fail(exc)
    console.print(f"wrote {out}: {len(bench.samples)} samples, hash {bench.hash[:12]}")


def export_parquet_cmd(
    run_dir: Annotated[
        Path | None, typer.Option("--run", help="Run folder (scored or not; an unscored one is scored).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Parquet file to write (default RUN/scores.parquet).")
    ] = None,
    old_run_dir: Annotated[Path | None, typer.Argument(hidden=True)] = None,
) -> None:
    """A run's scored rows (one per sample × option order × epoch) as Parquet, for pandas / DuckDB.

    Example: egoworld export parquet --run runs/qwen7b --out qwen7b.parquet
    """
    from egoworld.core.aliases import one_folder
    from egoworld.interchange.export_parquet import export_run_parquet

    run_dir = one_folder(run_dir, old_run_dir, "--run")

    try:
        dest, n, scored_now = export_run_parquet(run_dir, out)
    except _errors() as exc:
        fail(exc)
    console.print(f"wrote {dest}: {n} rows" + (" (scored the run first)" if scored_now else ""))


def export_inspect_cmd(
    out: Annotated[Path, typer.Option("--out", help="Inspect log file to write (.eval or .json).")],
    run_dir: Annotated[
        Path | None, typer.Option("--run", help="Run folder (scored or not; an unscored one is scored).")
    ] = None,
    bench: Annotated[Path | None, typer.Option(help="Benchmark folder, if it moved since the run.")] = None,
    old_run_dir: Annotated[Path | None, typer.Argument(hidden=True)] = None,
) -> None:
    """A run as an Inspect eval log: each sample's messages (with its images), the reply, gold, score and
    metadata; the run's settings as the eval spec. Open it with `inspect view --log-dir DIR`.

    Example: egoworld export inspect --run runs/qwen7b --out logs/qwen7b.eval
    """
    from egoworld.core.aliases import one_folder
    from egoworld.interchange.export_inspect import export_inspect

    run_dir = one_folder(run_dir, old_run_dir, "--run")

    try:
        dest, n = export_inspect(run_dir, out, bench_dir=bench)
    except _errors() as exc:
        fail(exc)
    console.print(f"wrote {dest}: {n} samples")


def export_lmms_eval_cmd(
    out: Annotated[Path, typer.Option("--out", help="Task folder to write (new or empty).")],
    bench: Annotated[
        Path | None, typer.Option("--bench", help="Benchmark folder (manifest.json + samples.jsonl).")
    ] = None,
    task: Annotated[
        str | None, typer.Option(help="lmms-eval task name (default: egoworld_<benchmark name>).")
    ] = None,
    setting: Annotated[str, typer.Option(help="Inputs: text | frames | last-frame.")] = "text",
    frames: Annotated[
        int, typer.Option(help="Frames sampled from each video in the 'frames' setting.")
    ] = 128,
    frame_policy: Annotated[
        str, typer.Option(help="Frame sampling policy (as in `egoworld run`).")
    ] = "uniform",
    max_pixels: Annotated[int, typer.Option(help="Pixel budget per frame; 0 keeps the video size.")] = 448
    * 448,
    overlays: Annotated[str, typer.Option(help="Burned-in overlays (as in `egoworld run`).")] = "",
    old_bench: Annotated[Path | None, typer.Argument(hidden=True)] = None,
) -> None:
    """A benchmark as an lmms-eval 0.7 task folder (`lmms-eval --include_path DIR --tasks NAME`). Its
    utils.py calls egoworld for the prompt, the media and the score, so both harnesses agree.

    Example: egoworld export lmms-eval --bench bench/beyond3d --out lmms_tasks/beyond3d --setting last-frame
    """
    from egoworld.core.aliases import one_folder
    from egoworld.interchange.export_lmms_eval import export_lmms_eval

    bench = one_folder(bench, old_bench, "--bench")

    try:
        res = export_lmms_eval(
            bench,
            out,
            task=task,
            media={
                "setting": setting,
                "frames": frames,
                "frame_policy": frame_policy,
                "max_pixels": max_pixels,
                "overlays": overlays,
            },
        )
    except _errors() as exc:
        fail(exc)
    console.print(
        f"wrote {res.out}: task {res.task} ({res.rows} questions); run it with "
        f"`lmms-eval --include_path {res.out} --tasks {res.task} …`"
    )
