"""One kitchen video → the episode folder `egoworld build beyond3d` reads, as Beyond3D builds on HD-EPIC.

The object movements come from the user's annotations (``--movements``, `egoworld.perception.kitchen_annotations`;
fixtures and the camera calibration from ``--fixtures`` / ``--camera`` when given); perception adds what
annotations lack: the camera trajectory and per-frame detections (any ``--detector``, linked by the tracker) written as
``detections.jsonl``, the file Beyond3D's detection check of visibility reads. ``meta["perception"]``
holds the provenance of each field; ``poses.metric`` False makes the build refuse the metre questions.

The trajectory is an imported file in the annotations' frame (metric from Aria MPS or with ``--scale``), or
``odometry`` / ``colmap`` on the video (its pinhole camera) carried into that frame by ``--align FILE``:
a Sim(3) fitted to a few known camera positions (`egoworld.perception.video.trajectory_align`), which
makes it metric and records the scale and the residual in ``poses.alignment``. An imported file may be
aligned the same way (a SLAM export in its own frame).
"""

from __future__ import annotations

from pathlib import Path

from egoworld.core.folders.files import InputFileError, write_jsonl
from egoworld.geometry.cameras import EquirectCamera, FisheyeCamera, PinholeCamera
from egoworld.media.index import VideoIndex
from egoworld.perception.detectors.detector import FrameDetections, run_detector
from egoworld.perception.detectors.spec import detections_file, make_detector, parse_detector
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.instance_tracks import TrackSettings, track
from egoworld.perception.video.perceive_walk import (
    PerceiveSettings,
    Say,
    link_into,
    open_video,
    read_trajectory,
    tracked_rows,
    view_frames,
)
from egoworld.perception.video.trajectory import Trajectory
from egoworld.perception.video.trajectory_align import align_trajectory, check_times, read_correspondences
from egoworld.perception.video.trajectory_check import check_lines

# Beyond3D checks detections frame by frame: small objects are found in scattered frames, so a track
# starts at its first detection (the walk's 3-frame confirmation drops most of them)
KITCHEN_TRACKER = TrackSettings(activation=0.3, min_frames=1, min_tracklet=1)


def kitchen_camera(
    settings: PerceiveSettings, width: int, height: int
) -> tuple[PinholeCamera | FisheyeCamera | EquirectCamera, dict]:
    """``--camera FILE``, else a pinhole of 90° horizontal field of view over the frame (and its record)."""
    from egoworld.perception.kitchen_annotations import read_camera

    if settings.camera:
        return read_camera(settings.camera), {"backend": "file", "file": Path(settings.camera).name}
    return PinholeCamera.from_fov(width, height, 90.0), {"backend": "default-pinhole", "fov_deg": 90.0}


def estimate_kitchen(
    video: Path,
    camera: PinholeCamera | FisheyeCamera | EquirectCamera,
    settings: PerceiveSettings,
    stride: int,
) -> Trajectory:
    """``odometry`` or ``colmap`` on the video with its pinhole camera (another model is refused)."""
    if not isinstance(camera, PinholeCamera):
        raise InputFileError(f"--trajectory {settings.trajectory}: the camera ({settings.camera}) is a "
                             f"{camera.kind} model; odometry and COLMAP read pinhole video here: give a pinhole "
                             "--camera, or --trajectory FILE (an Aria MPS trajectory for Aria's fisheye)")  # fmt: skip
    if settings.trajectory == "odometry":
        from egoworld.perception.video.odometry import OpenCVOdometry

        return OpenCVOdometry(stride=stride, camera=camera, panorama=False, seed=settings.seed).estimate(
            video
        )
    from egoworld.perception.video.colmap import ColmapEstimator

    return ColmapEstimator(stride=stride, camera=camera, panorama=False, seed=settings.seed).estimate(video)


def kitchen_trajectory(
    video: Path,
    camera: PinholeCamera | FisheyeCamera | EquirectCamera,
    settings: PerceiveSettings,
    stride: int,
    index: VideoIndex,
    say: Say,
    name: str,
) -> Trajectory:
    """The trajectory in the annotations' frame: imported, or estimated and aligned (module docstring);
    ``say`` lines start with ``name``, the episode's."""
    corr = read_correspondences(settings.align) if settings.align else None  # checked before the slow step
    if corr is not None:
        check_times(corr, 0.0, index.end_s, "the video")
    fps = index.avg_fps or 1.0
    traj = read_trajectory(settings.trajectory, fps)
    if traj is None:
        say(f"{name}: trajectory ({settings.trajectory}, every {stride} frame(s))")
        traj = estimate_kitchen(video, camera, settings, stride)
    if settings.scale is not None:
        traj = traj.scaled(settings.scale)
    if corr is not None:
        traj = align_trajectory(traj, corr)
        a = traj.notes["alignment"]
        say(f"{name}: aligned to {a['file']} ({a['points']} positions): scale {a['scale']:.4g}, "
            f"residual RMS {a['residual_rms_m']:.3f} m (max {a['residual_max_m']:.3f} m)")  # fmt: skip
    return traj


def perceive_kitchen(video: Path, folder: Path, settings: PerceiveSettings, say: Say) -> Path:
    """Perceive one kitchen video into ``folder`` (see the module docstring)."""
    from egoworld.perception.kitchen_annotations import read_fixtures, read_movements
    from egoworld.world.episode import Episode, EpisodeMedia
    from egoworld.world.episode_folder import save_episode

    assert settings.detector is not None and settings.movements is not None
    index = open_video(video)
    episode = folder.name
    fixtures = read_fixtures(settings.fixtures) if settings.fixtures else []
    objects = read_movements(settings.movements, episode, {f.id for f in fixtures})
    camera, cam_record = kitchen_camera(settings, index.width, index.height)
    spec = parse_detector(settings.detector)
    if spec.kind == "file":
        detections_file(spec.target, episode, None)
    stride = settings.stride_for(index)
    if settings.trajectory in ("colmap", "odometry") and settings.align is None:
        settings.check_kitchen()  # refuses it (for callers that skip the check)
    traj = kitchen_trajectory(video, camera, settings, stride, index, say, episode)
    poses = traj.provenance.record() | traj.summary()
    for line in check_lines(episode, poses["check"]):
        say(line)
    media = folder / f"video{video.suffix.lower()}"
    link_into(video, media)
    detector = make_detector(spec, episode, None, index.avg_fps or 1.0)
    names = sorted({o.category for o in objects if o.category})
    words = list(settings.vocabulary) or list(getattr(detector, "vocabulary", lambda: [])()) or names
    frames = view_frames(media, stride, spec.needs_pixels)
    dets: list[FrameDetections] = list(run_detector(detector, frames, words)) if words else []
    tracker = KITCHEN_TRACKER
    instances = track(dets, (index.width, index.height), tracker, prefix="t")
    times = [f.time_s for f in frames]
    write_jsonl(folder / "detections.jsonl", tracked_rows(instances, times, "track"))
    say(f"{episode}: {sum(len(d.detections) for d in dets)} detections in {len(frames)} frames "
        f"→ {len(instances)} instances")  # fmt: skip
    moves = sum(len(o.movements) for o in objects)
    perception = {
        "settings": settings.to_json(),
        "poses": poses,
        "detections": detector.provenance().record()
        | {
            "vocabulary": words,
            "frames": len(frames),
            "tracker": tracker.provenance().record(),
            "instances": len(instances),
        },  # fmt: skip
        "movements": Provenance("annotations", None, {"file": Path(settings.movements).name}).record()
        | {"objects": len(objects), "movements": moves},
        "fixtures": {"file": Path(settings.fixtures).name, "count": len(fixtures)}
        if settings.fixtures
        else None,
        "camera": cam_record,
    }
    ep = Episode(
        id=episode,
        duration_s=max(index.end_s, float(traj.times_s[-1])),
        fps=index.avg_fps or 1.0,
        camera=camera,
        poses=traj.track(),
        fixtures=tuple(fixtures),
        objects=tuple(objects),
        media=EpisodeMedia(video=media.name, extra={"detections": "detections.jsonl"}),
        source={"loader": "egoworld.perception", "kind": "kitchen", "video": video.name},
        meta={"perception": perception},
    )
    save_episode(ep, folder)
    return folder
