"""Beyond3D commands: ``build beyond3d``, ``import beyond3d-qa`` and the ``beyond3d`` group (``audit``,
``cues``; ``demo`` comes from `egoworld.demo.cli`), registered in pyproject.toml; synthetic kitchens come from
``egoworld world synth kitchen`` (`egoworld.sim`). Heavy imports stay inside the command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error

EXIT_SHORT = 3
GROUP_HELP = "Beyond3D: audit visibility tracks, temporal-cues variant, demo."


@exit_on_user_error
def build_cmd(
    world: Annotated[
        list[Path], typer.Option("--world", help="Episode folder, or a folder of them (repeatable).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write.")],
    anchors: Annotated[int, typer.Option(help="Out-of-sight anchors (8 questions each).")] = 1000,
    controls: Annotated[int, typer.Option(help="Visible controls (one visibility question each).")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    depth: Annotated[
        str,
        typer.Option(
            help="Occlusion test: auto (depth media, else the scene mesh, else fixture boxes) | media | mesh | boxes | none."
        ),
    ] = "auto",
    detections: Annotated[
        str,
        typer.Option(
            help="Detection file per episode: auto (media.extra['detections'] or detections.jsonl) | none | FILE."
        ),
    ] = "auto",
    rate: Annotated[float, typer.Option(help="Visibility-track rate in Hz.")] = 1.0,
    cues: Annotated[
        str | None, typer.Option(help="Temporal-cues variant: moves (the paper's) | sightings.")
    ] = None,
    executor: Annotated[str, typer.Option(help="local | ray (one Ray task per episode's tracks).")] = "local",
    address: Annotated[str | None, typer.Option(help="Ray address ('auto' = the running cluster).")] = None,
) -> None:
    """Build Beyond3D from worlds: visibility tracks, balanced out-of-sight anchors and visible controls,
    the 8 question types. A world with movement times only (HD-EPIC assoc_info) gets Last Placement Time,
    text only; the output says which types were skipped and why.

    Ranks of the timestamp answers, directions, distance bins and answer letters are exactly balanced.
    When the worlds cannot fill --anchors, the largest exactly balanced set found is written (controls cut
    in proportion), the output says how many more minutes of video the request needs, and the exit
    status is 3.

    Example: egoworld build beyond3d --world worlds/kitchens --out bench/beyond3d --anchors 1000 --controls 1000"""
    from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
    from egoworld.benchmarks.beyond3d.build.visibility_tracks import TrackConfig

    cfg = BuildConfig(
        anchors=anchors,
        controls=controls,
        seed=seed,
        track=TrackConfig(rate_hz=rate, depth=depth),
        detections=detections,
        cues=cues,
    )
    report = build_beyond3d(
        world, out, cfg, progress=lambda m: typer.echo(m, err=True), executor=executor, address=address
    )
    for line in report.lines():
        typer.echo(line)
    if report.shortfall is not None:
        raise typer.Exit(EXIT_SHORT)


@exit_on_user_error
def audit_cmd(
    world: Annotated[
        list[Path], typer.Option("--world", help="Episode folder, or a folder of them (repeatable).")
    ],
    marks: Annotated[
        Path | None, typer.Option(help="Marks CSV: episode, time_s, object, visible[, participant].")
    ] = None,
    truth: Annotated[
        bool, typer.Option(help="Use each episode's exact visibility.jsonl (synthetic worlds) as marks.")
    ] = False,
    detections: Annotated[
        str, typer.Option(help="auto | none | perfect (from the exact visibility) | FILE.")
    ] = "auto",
    depth: Annotated[str, typer.Option(help="auto | media | mesh | boxes | none (as for build).")] = "auto",
    min_pixels: Annotated[
        int | None,
        typer.Option(help="Exact visibility from pixel counts: visible from this many pixels (default 1)."),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the figures as JSON here.")] = None,
) -> None:
    """Audit the visibility tracks against marks: Tables 4–6 of the paper (per-state counts, accuracy,
    precision, recall, F1, balanced accuracy with 95 % cluster-bootstrap CIs over videos, per participant)."""
    from egoworld.benchmarks.beyond3d.build.audit import audit_worlds
    from egoworld.core.folders.files import write_json

    result = audit_worlds(
        world, marks=marks, truth=truth, detections=detections, depth=depth, min_pixels=min_pixels
    )
    if out is not None:
        write_json(out, result.as_dict())
    typer.echo(result.markdown())
    if result.unmatched:
        typer.echo(
            f"{result.unmatched} marks matched no track sample (unknown episode / object, or no sample within 1 s)"
        )


@exit_on_user_error
def cues_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for the variant.")],
    bench: Annotated[Path, typer.Option("--bench", help="A built Beyond3D benchmark folder.")],
    kind: Annotated[str, typer.Option(help="moves (the paper's temporal cue) | sightings.")] = "moves",
) -> None:
    """Write the temporal-cues variant of a benchmark (same questions, a cue before each)."""
    from egoworld.benchmarks.beyond3d.build.cues import cue_variant

    b = cue_variant(bench, out, kind)
    typer.echo(f"wrote {out}: {len(b.samples)} questions with {kind} cues")


@exit_on_user_error
def import_qa_cmd(
    file: Annotated[
        Path, typer.Argument(help="A release file: vqa_baseline.jsonl or vqa_temporal_cues.jsonl.")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Benchmark folder to write (manifest.json + samples.jsonl).")
    ],
    videos: Annotated[
        Path | None,
        typer.Option(
            "--videos",
            help="Folder of the release's preprocessed videos (<video_id>.mp4); linked as OUT/videos.",
        ),
    ] = None,
    time_tolerance: Annotated[
        float, typer.Option(help="Open steps 2/3: time tolerance in seconds (official launcher: 3.0).")
    ] = 3.0,
    point_tolerance: Annotated[
        float,
        typer.Option(help="Open steps 2/3: L-infinity tolerance of the normalised point (official: 0.2)."),
    ] = 0.2,
    time_only: Annotated[
        bool, typer.Option(help="Open steps 2/3: score the time only (OOS_STEP23_EVAL_MODE=time_only).")
    ] = False,
    video_size: Annotated[
        str,
        typer.Option(help="WxH of the preprocessed videos, for the red anchor marker (official: 448x448)."),
    ] = "448x448",
) -> None:
    """Import the official Beyond3D release records: each unskipped trajectory step (or single question)
    becomes a sample with its official id; choice steps keep correct_idx / acceptable_idxs; the older
    open time + point steps 2/3 are scored with the tolerances given. Without --videos the benchmark runs
    text-only (the official `without_video` setting).

    Example: egoworld import beyond3d-qa vqa_baseline.jsonl --videos BEYOND3D/videos --out b3d-release
    """
    from egoworld.benchmarks.beyond3d.importer import ReleaseSettings, import_beyond3d_qa

    w, _, h = video_size.lower().partition("x")
    if not (w.isdigit() and h.isdigit()):
        raise ValueError(f"--video-size {video_size!r}: expected WxH, e.g. 448x448")
    settings = ReleaseSettings(
        time_tolerance_s=time_tolerance, point_tolerance=point_tolerance, time_only=time_only,
        video_size=(int(w), int(h)),
    )  # fmt: skip
    bench = import_beyond3d_qa(file, out, videos=videos, settings=settings)
    counts = ", ".join(f"{t} {n}" for t, n in bench.manifest.counts.items())
    typer.echo(f"wrote {out}: {len(bench.samples)} questions ({counts})")
