"""``egoworld export …`` (lmms-eval task folders, Inspect logs, HF datasets, Parquet) and ``egoworld import hf``,
registered in pyproject.toml (``egoworld.exporters`` / ``egoworld.importers``). Heavy imports stay inside the
command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def export_hf_cmd(
    out: Annotated[Path, typer.Option("--out", help="Dataset folder to write (new or empty).")],
    bench: Annotated[Path, typer.Option("--bench", help="Benchmark folder (manifest.json + samples.jsonl).")],
    license: Annotated[
        str | None,
        typer.Option(help="Licence for the card (default: the manifest's source licence, else 'other')."),
    ] = None,
    shard_rows: Annotated[int, typer.Option(help="Questions per Parquet shard.")] = 10_000,
    text_only: Annotated[
        bool,
        typer.Option(help="Leave the media files out (import hf then rebuilds the questions without them)."),
    ] = False,
) -> None:
    """A benchmark as a Hugging Face dataset folder: Parquet shards, media files, a dataset card and the
    manifest. `egoworld import hf DIR` rebuilds the benchmark byte for byte.

    Example: egoworld export hf --bench bench/beyond3d --out hf/beyond3d --license cc-by-4.0
    """
    from egoworld.interchange.export_hf import export_hf

    res = export_hf(bench, out, license=license, shard_rows=shard_rows, text_only=text_only)
    console.print(
        f"wrote {res.out}: {res.rows} rows in {len(res.shards)} shard(s), {res.media_files} media files"
    )


@exit_on_user_error
def import_hf_cmd(
    folder: Annotated[Path, typer.Argument(help="Dataset folder written by `egoworld export hf`.")],
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write (new or empty).")],
) -> None:
    """Rebuild a benchmark folder from an `egoworld export hf` dataset folder (byte-identical, checked).

    Example: egoworld import hf hf/beyond3d --out bench/beyond3d-copy
    """
    from egoworld.interchange.import_hf import import_hf

    bench = import_hf(folder, out)
    console.print(f"wrote {out}: {len(bench.samples)} samples, hash {bench.hash[:12]}")


@exit_on_user_error
def export_parquet_cmd(
    run_dir: Annotated[
        Path, typer.Option("--run", help="Run folder (scored or not; an unscored one is scored).")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Parquet file to write (default RUN/scores.parquet).")
    ] = None,
) -> None:
    """A run's scored rows (one per sample × option order × epoch) as Parquet, for pandas / DuckDB.

    Example: egoworld export parquet --run runs/qwen7b --out qwen7b.parquet
    """
    from egoworld.interchange.export_parquet import export_run_parquet

    dest, n, scored_now = export_run_parquet(run_dir, out)
    console.print(f"wrote {dest}: {n} rows" + (" (scored the run first)" if scored_now else ""))


@exit_on_user_error
def export_inspect_cmd(
    out: Annotated[Path, typer.Option("--out", help="Inspect log file to write (.eval or .json).")],
    run_dir: Annotated[
        Path, typer.Option("--run", help="Run folder (scored or not; an unscored one is scored).")
    ],
    bench: Annotated[Path | None, typer.Option(help="Benchmark folder, if it moved since the run.")] = None,
) -> None:
    """A run as an Inspect eval log: each sample's messages (with its images), the reply, gold, score and
    metadata; the run's settings as the eval spec. Open it with `inspect view --log-dir DIR`.

    Example: egoworld export inspect --run runs/qwen7b --out logs/qwen7b.eval
    """
    from egoworld.interchange.export_inspect import export_inspect

    dest, n = export_inspect(run_dir, out, bench_dir=bench)
    console.print(f"wrote {dest}: {n} samples")


@exit_on_user_error
def export_lmms_eval_cmd(
    out: Annotated[Path, typer.Option("--out", help="Task folder to write (new or empty).")],
    bench: Annotated[Path, typer.Option("--bench", help="Benchmark folder (manifest.json + samples.jsonl).")],
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
) -> None:
    """A benchmark as an lmms-eval 0.7 task folder (`lmms-eval --include_path DIR --tasks NAME`). Its
    utils.py calls egoworld for the prompt, the media and the score, so both harnesses agree.

    Example: egoworld export lmms-eval --bench bench/beyond3d --out lmms_tasks/beyond3d --setting last-frame
    """
    from egoworld.interchange.export_lmms_eval import export_lmms_eval

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
    console.print(
        f"wrote {res.out}: task {res.task} ({res.rows} questions); run it with "
        f"`lmms-eval --include_path {res.out} --tasks {res.task} …`"
    )
