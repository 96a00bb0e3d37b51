"""``egoworld world perceive VIDEO… --kind walk --out WORLD``: episode folders perceived from your own videos
(registered in pyproject.toml under the ``world`` group; heavy imports stay inside the command)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def perceive_cmd(
    videos: Annotated[
        list[Path],
        typer.Argument(help="Video files, one episode each (a walk: 360° 2:1, or a phone / GoPro video)."),
    ],
    out: Annotated[Path, typer.Option("--out", help="World folder to write (one folder per episode).")],
    kind: Annotated[
        str,
        typer.Option(
            "--kind", help="walk (360° or perspective walk → VSI-Super-Wild) or kitchen (→ Beyond3D)."
        ),
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
        typer.Option(
            "--camera",
            help="Camera model JSON (kind pinhole, fisheye or equirect; default: a walk's 2:1 video is a 360° "
            "panorama, any other video a 90° pinhole over the frame).",
        ),
    ] = None,
    align: Annotated[
        Path | None,
        typer.Option(
            "--align",
            help="Kitchen: camera positions in the annotations' frame (CSV t_s,x,y,z or JSONL, 3 or more, "
            "not on one line); a Sim(3) fitted to them carries --trajectory odometry|colmap|FILE into that "
            "frame, in metres.",
        ),
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
        *(str(p) if p else None for p in (movements, fixtures, camera, align)),
    )  # fmt: skip
    outcomes = perceive_videos(list(videos), out, settings, jobs=jobs, force=force)
    made = sum(o.status == "made" for o in outcomes)
    console.print(
        f"{len(outcomes)} episodes in {out} ({len(outcomes) - made} already there, {made} perceived)",
        highlight=False,
        soft_wrap=True,
    )


@exit_on_user_error
def annotations_cmd(
    movements: Annotated[
        Path,
        typer.Option(
            "--movements",
            help="Movements CSV (object_id,category,name,start_s,end_s,start_x,start_y,start_z,end_x,end_y,end_z"
            "[,start_fixture,end_fixture]), HD-EPIC's assoc_info.json (mask_info.json beside it) or an objects JSONL.",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Folder to write objects.jsonl, fixtures.jsonl, camera.json.")
    ],
    fixtures: Annotated[
        Path | None,
        typer.Option(
            "--fixtures",
            help="Fixtures CSV (id,label,type,center_x,center_y,center_z,size_x,size_y,size_z[,openable]) or JSONL.",
        ),
    ] = None,
    video: Annotated[
        Path | None,
        typer.Option(
            "--video",
            help="The kitchen video: its frame size (--camera-fov) and its id (HD-EPIC's video id).",
        ),
    ] = None,
    video_id: Annotated[
        str | None,
        typer.Option(
            "--video-id", help="HD-EPIC video id picked from assoc_info.json (default: --video's name)."
        ),
    ] = None,
    camera_fov: Annotated[
        float | None,
        typer.Option("--camera-fov", help="Pinhole camera of this horizontal field of view, degrees."),
    ] = None,
    camera_pinhole: Annotated[
        str | None,
        typer.Option("--camera-pinhole", help="Pinhole camera: fx,fy,cx,cy,width,height in pixels."),
    ] = None,
) -> None:
    """Write a kitchen's annotation files (objects.jsonl, fixtures.jsonl, camera.json) from the forms you
    have, for `world perceive --kind kitchen`; errors name the file, line and field."""
    from egoworld.perception.kitchen_annotations import (
        pinhole_from_flags,
        read_fixtures,
        read_movements,
        write_annotation_files,
    )
    from egoworld.perception.video.perceive_walk import open_video

    index = open_video(video) if video is not None and camera_fov is not None else None
    camera = pinhole_from_flags(camera_fov, camera_pinhole, (index.width, index.height) if index else None)
    episode = video_id or (video.stem if video is not None else None)
    if movements.suffix.lower() == ".json" and episode is None:
        raise ValueError(f"--movements {movements}: HD-EPIC's assoc_info.json holds many videos; give --video-id "
                         "(or --video named after the HD-EPIC video id)")  # fmt: skip
    fixes = read_fixtures(fixtures) if fixtures is not None else None
    episode = episode or movements.stem
    objects = read_movements(movements, episode, {f.id for f in fixes or ()})
    paths = write_annotation_files(out, objects, fixes, camera)
    moves = sum(len(o.movements) for o in objects)
    where = sum(m.end_position is not None for o in objects for m in o.movements)
    console.print(
        f"{out}: {len(objects)} objects, {moves} movements ({where} with an end position)"
        + (f", {len(fixes)} fixtures" if fixes is not None else "")
        + (f", camera {camera.kind} fx {camera.fx:.1f}" if camera is not None else ", no camera (perceive assumes "
           "a 90° pinhole)"),
        highlight=False,
        soft_wrap=True,
    )  # fmt: skip
    flag = {"objects.jsonl": "--movements", "fixtures.jsonl": "--fixtures", "camera.json": "--camera"}
    args = " ".join(f"{flag[p.name]} {p}" for p in paths)
    console.print(f"next: egoworld world perceive {video or 'VIDEO'} --kind kitchen {args} --trajectory … --detector …",
                  highlight=False, soft_wrap=True)  # fmt: skip
