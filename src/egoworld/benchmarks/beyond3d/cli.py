"""Beyond3D commands: ``build beyond3d`` and the ``beyond3d`` group (``audit``, ``cues``, ``demo``); synthetic
kitchens come from ``egoworld world synth kitchen`` (`egoworld.sim`).
Heavy imports stay inside the command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def _fail(exc: BaseException) -> None:
    from egoworld.cli import _fail as fail

    fail(exc)


def _errors() -> tuple[type[BaseException], ...]:
    from egoworld.common.files import InputFileError

    return (InputFileError, ValueError, FileNotFoundError)


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
        typer.Option(help="Occlusion test: auto (depth media, else fixture boxes) | media | boxes | none."),
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
    text only; the output says which types were skipped and why."""
    from egoworld.benchmarks.beyond3d.build import BuildConfig, build_beyond3d
    from egoworld.benchmarks.beyond3d.tracks import TrackConfig

    try:
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
    except _errors() as exc:
        _fail(exc)
    for line in report.lines():
        typer.echo(line)


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
    depth: Annotated[str, typer.Option(help="auto | media | boxes | none (as for build).")] = "auto",
    min_pixels: Annotated[
        int | None,
        typer.Option(help="Exact visibility from pixel counts: visible from this many pixels (default 1)."),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the figures as JSON here.")] = None,
) -> None:
    """Audit the visibility tracks against marks: Tables 4–6 of the paper (per-state counts, accuracy,
    precision, recall, F1, balanced accuracy with 95 % cluster-bootstrap CIs over videos, per participant)."""
    from egoworld.benchmarks.beyond3d.audit import audit_worlds
    from egoworld.common.files import write_json

    try:
        result = audit_worlds(
            world, marks=marks, truth=truth, detections=detections, depth=depth, min_pixels=min_pixels
        )
        if out is not None:
            write_json(out, result.as_dict())
    except _errors() as exc:
        _fail(exc)
    typer.echo(result.markdown())
    if result.unmatched:
        typer.echo(
            f"{result.unmatched} marks matched no track sample (unknown episode / object, or no sample within 1 s)"
        )


def cues_cmd(
    bench: Annotated[Path, typer.Argument(help="A built Beyond3D benchmark folder.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the variant.")],
    kind: Annotated[str, typer.Option(help="moves (the paper's temporal cue) | sightings.")] = "moves",
) -> None:
    """Write the temporal-cues variant of a benchmark (same questions, a cue before each)."""
    from egoworld.benchmarks.beyond3d.cues import cue_variant

    try:
        b = cue_variant(bench, out, kind)
    except _errors() as exc:
        _fail(exc)
    typer.echo(f"wrote {out}: {len(b.samples)} questions with {kind} cues")


def demo_cmd(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for worlds, benchmarks, runs and the report.")
    ] = Path("demo-beyond3d"),
    anchors: Annotated[int, typer.Option(help="Out-of-sight anchors of the text-only benchmark.")] = 100,
    controls: Annotated[int, typer.Option(help="Visible controls.")] = 100,
    sim: Annotated[
        bool, typer.Option(help="Also run the video + text and last frame + text settings.")
    ] = True,
) -> None:
    """Synthetic kitchens → Beyond3D → random / prior / oracle (text; video + text and last frame + text on
    sim kitchens) → report."""
    from egoworld.benchmarks.beyond3d.demo import run_demo

    try:
        run_demo(out, anchors=anchors, controls=controls, sim=sim, say=typer.echo)
    except _errors() as exc:
        _fail(exc)


def register(app: typer.Typer, import_app: typer.Typer, build_app: typer.Typer) -> None:
    """Add ``build beyond3d`` and ``beyond3d {audit, cues, demo}``."""
    build_app.command("beyond3d")(build_cmd)
    group = typer.Typer(
        help="Beyond3D: audit visibility tracks, temporal-cues variant, demo.",
        no_args_is_help=True,
    )
    group.command("audit")(audit_cmd)
    group.command("cues")(cues_cmd)
    group.command("demo")(demo_cmd)
    app.add_typer(group, name="beyond3d")
