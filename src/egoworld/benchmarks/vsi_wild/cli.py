"""VSI-Super-Wild commands: ``build vsi-wild``, ``import vsi-wild-qa``, ``import vsi-wild-durations`` and the
``vsi-wild`` group (``views``; ``demo`` comes from `egoworld.demo.cli`), registered in pyproject.toml. Heavy
imports stay inside the command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error

GROUP_HELP = "VSI-Super-Wild: cut panoramas into views, demo."


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",") if x.strip())


@exit_on_user_error
def build_cmd(
    world: Annotated[
        list[Path], typer.Option("--world", help="Walk episode folder, or a folder of them (repeatable).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write.")],
    per_task: Annotated[
        int, typer.Option("--questions-per-task", help="Questions to build per task (0 = every candidate).")
    ] = 250,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    frames: Annotated[
        int, typer.Option(help="Evaluation frame count the resolvability rules assume (uniform sampling).")
    ] = 128,
    tasks: Annotated[str, typer.Option(help="Comma-separated tasks to build.")] = "VMR,VPO,VOO,VOC",
    vmr_moment: Annotated[
        str, typer.Option(help="How VMR shows its moment: both (labelled frame + time) | frame | timestamp.")
    ] = "both",
    streaming: Annotated[
        bool, typer.Option(help="Build the streaming-VOC variant (running counts at query times) instead.")
    ] = False,
    stream_fractions: Annotated[
        str, typer.Option(help="Streaming query times as fractions of each video.")
    ] = "0.25,0.5,0.75,1",
    stream_clip: Annotated[
        str,
        typer.Option(help="Streaming clip: prefix (start → query time) | chunk (new part; use --history)."),
    ] = "prefix",
    media: Annotated[
        str,
        typer.Option(
            help="copy (hard-link or copy the view videos into OUT/videos) | absolute (refer to them)."
        ),
    ] = "copy",
    min_visible_px: Annotated[
        float,
        typer.Option(
            help="Count an instance only if its largest visible size is ≥ this many px² (0: any; 64: an annotator's)."
        ),
    ] = 0.0,
    min_visible_s: Annotated[
        float,
        typer.Option(
            help="Count an instance only if visible ≥ this many seconds in all (0: any; 1: an annotator's)."
        ),
    ] = 0.0,
) -> None:
    """Build VSI-Super-Wild (VMR, VPO, VOO, VOC) from panoramic walks: balanced correct letters, rules and
    answer distributions in the manifest, VPO query images re-rendered from the panorama."""
    from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig, StreamRules, VisibilityRules, VMRRules

    if vmr_moment not in ("both", "frame", "timestamp"):
        raise ValueError(f"--vmr-moment must be both, frame or timestamp, not {vmr_moment!r}")
    if stream_clip not in ("prefix", "chunk"):
        raise ValueError(f"--stream-clip must be prefix or chunk, not {stream_clip!r}")
    if media not in ("copy", "absolute"):
        raise ValueError(f"--media must be copy or absolute, not {media!r}")
    cfg = BuildConfig(
        per_task=per_task or None,
        seed=seed,
        frames=frames,
        tasks=tuple(t.strip() for t in tasks.split(",") if t.strip()),
        streaming=streaming,
        media=media,  # type: ignore[arg-type]
        vmr=VMRRules(moment=vmr_moment),  # type: ignore[arg-type]
        stream=StreamRules(fractions=_floats(stream_fractions), clip=stream_clip),  # type: ignore[arg-type]
        visibility=VisibilityRules(min_visible_px=min_visible_px, min_visible_s=min_visible_s),
    )
    report = build_vsi_wild(world, out, cfg, say=lambda m: typer.echo(m, err=True))
    for line in report.lines():
        typer.echo(line)


@exit_on_user_error
def durations_cmd(
    bench: Annotated[Path, typer.Option("--bench", help="An imported VSI-Super-Wild benchmark folder.")],
    videos: Annotated[
        Path | None, typer.Option(help="Folder of the view videos: durations are probed with PyAV.")
    ] = None,
    durations: Annotated[
        Path | None, typer.Option(help="CSV with video_name and duration_s (or duration_min) columns.")
    ] = None,
) -> None:
    """Add each video's duration and duration group (0–10 … 120+ min) to the samples, so `egoworld report`
    shows the duration analyses for the official question file too."""
    from egoworld.benchmarks.vsi_wild.durations import (
        add_durations,
        probe_durations,
        read_durations_csv,
        video_name,
    )
    from egoworld.core.folders.bench_folder import load_benchmark

    if (videos is None) == (durations is None):
        raise ValueError("give exactly one of --videos DIR or --durations CSV")
    if videos is not None:
        names = sorted({video_name(s) for s in load_benchmark(bench).samples})
        table, origin = probe_durations(videos, names), "probed with PyAV"
    else:
        assert durations is not None
        table, origin = read_durations_csv(durations), f"csv {durations.name}"
    b = add_durations(bench, table, origin)
    groups: dict[str, int] = {}
    for s in b.samples:
        groups[s.metadata["duration_group"]] = groups.get(s.metadata["duration_group"], 0) + 1
    typer.echo(f"{bench}: durations added to {len(b.samples)} samples; by group (min): {groups}")


@exit_on_user_error
def views_cmd(
    pano: Annotated[Path, typer.Argument(help="Equirectangular (2:1) 360° video.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for front/right/back/left.mp4.")],
    size: Annotated[int, typer.Option(help="Side of each square view (even).")] = 512,
    fov: Annotated[float, typer.Option(help="Field of view of each view, degrees.")] = 90.0,
) -> None:
    """Cut a panoramic video into the four perspective view videos (and print their metadata)."""
    import json

    from egoworld.world.panorama_views import cut_views

    meta = cut_views(pano, out, size=size, fov_deg=fov)
    typer.echo(
        json.dumps({v: {k: m[k] for k in ("yaw_deg", "frames", "duration_s")} for v, m in meta.items()})
    )


@exit_on_user_error
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
    counts = ", ".join(f"{t} {n}" for t, n in bench.manifest.counts.items())
    console.print(f"wrote {out}: {len(bench.samples)} samples ({counts})")
