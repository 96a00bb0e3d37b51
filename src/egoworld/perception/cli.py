"""``egoworld world perceive VIDEO… --kind walk --out WORLD``: episode folders perceived from your own videos
(registered in pyproject.toml under the ``world`` group; heavy imports stay inside the command)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def perceive_cmd(
    videos: Annotated[list[Path], typer.Argument(help="Video files, one episode each (a walk: 360° 2:1).")],
    out: Annotated[Path, typer.Option("--out", help="World folder to write (one folder per episode).")],
    kind: Annotated[
        str,
        typer.Option("--kind", help="walk (panoramic walk → VSI-Super-Wild) or kitchen (→ Beyond3D)."),
    ] = "walk",
    trajectory: Annotated[
        str,
        typer.Option(
            "--trajectory",
            help="odometry (OpenCV, fast), colmap (pycolmap) or a trajectory file: TUM .txt, COLMAP text "
            "images.txt (or its folder), Aria MPS closed_loop_trajectory.csv (metric).",
        ),
    ] = "odometry",
    detector: Annotated[
        str | None,
        typer.Option(
            "--detector",
            help="file:PATH (detections JSONL, or a folder of <episode>/detections_<view>.jsonl — a "
            "synthetic world's simulated detector), owlv2:DIR, grounding-dino:DIR, vlm:MODEL@BASE_URL.",
        ),
    ] = None,
    vocabulary: Annotated[
        str | None, typer.Option("--vocabulary", help="Comma-separated object names the detector looks for.")
    ] = None,
    stride: Annotated[
        int | None, typer.Option("--stride", min=1, help="Perceive every N-th frame (default: every frame).")
    ] = None,
    fps: Annotated[
        float | None, typer.Option("--fps", help="Perceive at this frame rate instead of --stride.")
    ] = None,
    scale: Annotated[
        float | None,
        typer.Option("--scale", help="Metres per trajectory unit (makes the trajectory metric)."),
    ] = None,
    view_size: Annotated[int, typer.Option("--view-size", help="Walk: side of each cut view, px.")] = 384,
    reid: Annotated[
        str,
        typer.Option(
            "--reid",
            help="Re-identification: 2d (image position, time) or 3d (also rays along the trajectory).",
        ),
    ] = "2d",
    movements: Annotated[
        Path | None,
        typer.Option(
            "--movements",
            help="Kitchen: annotated object movements, an objects JSONL or HD-EPIC's assoc_info.json.",
        ),
    ] = None,
    fixtures: Annotated[
        Path | None, typer.Option("--fixtures", help="Kitchen: fixture boxes (fixtures.jsonl spelling).")
    ] = None,
    camera: Annotated[
        Path | None,
        typer.Option("--camera", help="Kitchen: camera model JSON (default: 90° pinhole over the frame)."),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Videos perceived in parallel (processes).")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice.")] = 0,
    force: Annotated[
        bool, typer.Option("--force", help="Perceive again episodes made with other settings.")
    ] = False,
) -> None:
    """Perceive videos into episode folders the builders read unchanged: camera trajectory, objects over
    time (detector + ByteTrack with re-identification), places; provenance of every field in episode.json.
    Finished episodes are skipped; a trajectory without metric scale makes builders refuse metre questions.
    A folder of files egoworld did not write is never replaced."""
    from egoworld.perception.video.perceive_set import perceive_videos
    from egoworld.perception.video.perceive_walk import PerceiveSettings

    words = tuple(w.strip() for w in (vocabulary or "").split(",") if w.strip())
    settings = PerceiveSettings(
        kind, trajectory, detector, words, stride, fps, scale, view_size, seed, reid,
        *(str(p) if p else None for p in (movements, fixtures, camera)),
    )  # fmt: skip
    outcomes = perceive_videos(list(videos), out, settings, jobs=jobs, force=force)
    made = sum(o.status == "made" for o in outcomes)
    console.print(
        f"{len(outcomes)} episodes in {out} ({len(outcomes) - made} already there, {made} perceived)",
        highlight=False,
        soft_wrap=True,
    )
