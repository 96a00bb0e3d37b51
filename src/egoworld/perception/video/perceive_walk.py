"""One video → one episode folder: trajectory, objects over time, places, each with its provenance.

`perceive_walk` turns a user's own panoramic (equirectangular 2:1) walk into the folder
`egoworld.world.walk_source` reads, as a synthetic walk writes it: the panorama (``media.video``,
linked or copied in), its four view videos (`egoworld.world.panorama_views.cut_views`) — or, for a phone's
perspective (or fisheye) video, that video and its one view ``front``
(`egoworld.perception.video.perspective_walk`) — camera poses
(``poses.jsonl``), per-view ``appearances.jsonl`` from detections linked into instances
(`egoworld.perception.video.instance_tracks`), the tracked per-view detections (``detections_<view>.jsonl``) and
``place_visits.jsonl`` / ``places.jsonl`` from the video's look (`egoworld.perception.video.place_looks`).

`perceive_kitchen` (`egoworld.perception.video.perceive_kitchen`, above this module) turns a kitchen video and its movement
annotations into the folder `build beyond3d` reads (an estimated trajectory aligned to the annotations by
``--align``, `egoworld.perception.video.trajectory_align`).

``episode.json`` ``meta["perception"]`` holds one record per perceived field (backend, version, settings)
and the `PerceiveSettings`; ``meta["perception"]["poses"]["metric"]`` says whether positions are metres
(an Aria MPS import, ``--scale`` or a kitchen's ``--align``): builders refuse questions that need metres when it is False.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from egoworld.core.folders.files import InputFileError, write_jsonl
from egoworld.media.index import VideoIndex, probe
from egoworld.perception.detectors.detector import Frame, FrameDetections, run_detector
from egoworld.perception.detectors.spec import make_detector, parse_detector
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.appearances import appearance_rows, counts
from egoworld.perception.video.instance_tracks import Instance, TrackSettings, track
from egoworld.perception.video.place_looks import LookCollector, LookSegmenter, look_visits, visits_from_looks
from egoworld.perception.video.reid3d import Rays
from egoworld.perception.video.trajectory import Trajectory, frame_targets, sampled_frames
from egoworld.perception.video.trajectory_check import check_lines

Say = Callable[[str], None]
KINDS = ("walk", "kitchen")
REFUSED_KINDS = {
    "scene": "scene annotation for EXPLORE belongs to a separate issue",
}


@dataclass(frozen=True)
class PerceiveSettings:
    """Every option that changes what `perceive_walk` writes (kept in ``meta["perception"]["settings"]``)."""

    kind: str = "walk"
    trajectory: str = "odometry"  # colmap | odometry | a trajectory file (TUM, COLMAP text, Aria MPS csv)
    detector: str | None = None
    vocabulary: tuple[str, ...] = ()
    stride: int | None = None
    fps: float | None = None
    scale: float | None = None
    view_size: int = 384
    seed: int = 0
    reid: str = "2d"  # 2d (image position and time) or 3d (also rays along the perceived trajectory)
    movements: str | None = (
        None  # kitchen: the annotated objects and movements (egoworld.perception.kitchen_annotations)
    )
    fixtures: str | None = None  # kitchen: fixture boxes (fixtures.jsonl spelling)
    camera: str | None = None  # the camera model (JSON); default: a walk 2:1 → equirect, else a 90° pinhole
    align: str | None = None  # kitchen: camera positions in the annotations' frame (trajectory_align)

    def to_json(self) -> dict:
        out = asdict(self) | {"vocabulary": list(self.vocabulary)}
        if out["align"] is None:  # absent when unset: settings without it compare equal
            del out["align"]
        return out

    def check(self) -> None:
        """Refuse settings that cannot work, before any video is read."""
        if self.kind in REFUSED_KINDS:
            raise ValueError(f"--kind {self.kind}: not supported yet ({REFUSED_KINDS[self.kind]}); "
                             f"supported: {', '.join(KINDS)}")  # fmt: skip
        if self.kind not in KINDS:
            raise ValueError(f"--kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        if self.stride is not None and self.fps is not None:
            raise ValueError("give --stride or --fps, not both")
        if (self.stride is not None and self.stride < 1) or (self.fps is not None and self.fps <= 0):
            raise ValueError("--stride must be ≥ 1 and --fps > 0")
        if self.scale is not None and not (np.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"--scale {self.scale}: metres per trajectory unit must be a positive number")
        if self.reid not in ("2d", "3d"):
            raise ValueError(f"--reid {self.reid!r}: expected 2d or 3d")
        if self.kind == "kitchen":
            self.check_kitchen()
        elif self.align is not None:
            raise ValueError(f"--align {self.align}: aligns a kitchen's trajectory to its annotations; a "
                             f"{self.kind} has none (--scale makes a trajectory metric)")  # fmt: skip
        if self.detector is None:
            if self.kind == "walk":  # trajectory-only: poses, views and places, no objects
                if self.vocabulary:
                    raise ValueError("--vocabulary names what a detector looks for; give --detector too")
                return
            raise ValueError(
                "perceiving objects needs --detector (file:PATH, owlv2:DIR, grounding-dino:DIR or vlm:MODEL@URL)"
            )
        spec = parse_detector(self.detector)
        if spec.needs_pixels and not self.vocabulary and self.kind != "kitchen":
            raise ValueError(
                f"--detector {self.detector}: give --vocabulary 'mug,chair,…' (the names to find)"
            )

    def check_kitchen(self) -> None:
        if self.movements is None:
            raise ValueError("--kind kitchen needs --movements FILE: the annotated object movements (an objects "
                             "JSONL, or HD-EPIC's assoc_info.json); perception adds the trajectory and detections")  # fmt: skip
        if self.trajectory in ("colmap", "odometry") and self.align is None:
            raise ValueError(f"--kind kitchen --trajectory {self.trajectory}: the annotated positions are in the "
                             "annotations' frame, an estimated trajectory is not; give --align FILE (rows t_s,x,y,z: "
                             "the camera's position in that frame at 3 or more times) or --trajectory FILE in "
                             "that frame (Aria MPS closed_loop_trajectory.csv, TUM or COLMAP text)")  # fmt: skip
        if self.align is not None and self.scale is not None:
            raise ValueError("give --scale or --align, not both: the alignment fits the scale")

    def stride_for(self, index: VideoIndex) -> int:
        """Frames between perceived frames: ``--stride``, or the video's rate over ``--fps`` (default 1)."""
        if self.stride is not None:
            return self.stride
        if self.fps is not None and index.avg_fps:
            return max(1, round(index.avg_fps / self.fps))
        return 1


def read_trajectory(spec: str, fps: float) -> Trajectory | None:
    """A trajectory file in any format `egoworld.perception.video.trajectory_import.read_trajectory_file`
    recognises (TUM, COLMAP text, Aria MPS, egoworld's own ``poses.jsonl``); None for ``colmap`` /
    ``odometry`` (estimated later)."""
    from egoworld.perception.video.trajectory_import import read_trajectory_file

    if spec in ("colmap", "odometry"):
        return None
    return read_trajectory_file(spec, fps)


def estimate_trajectory(
    spec: str, pano: Path, front: Path, camera: dict, stride: int, seed: int, panoramic: bool = True
) -> Trajectory:
    """``odometry`` on the front view (its pinhole camera: the walk's own frame), or ``colmap`` on a panorama's
    four views (``panoramic``) or on the one view of a perspective walk."""
    from egoworld.geometry.cameras import PinholeCamera

    cam = PinholeCamera(**{k: v for k, v in camera.items() if k != "kind"})
    if spec == "odometry":
        from egoworld.perception.video.odometry import OpenCVOdometry

        return OpenCVOdometry(stride=stride, camera=cam, panorama=False, seed=seed).estimate(front)
    from egoworld.perception.video.colmap import ColmapEstimator

    if not panoramic:
        return ColmapEstimator(stride=stride, camera=cam, panorama=False, seed=seed).estimate(front)
    return ColmapEstimator(stride=stride, panorama=True, seed=seed).estimate(pano)


def preflight(settings: PerceiveSettings, episode: str, views: tuple[str, ...]) -> None:
    """Find the detector's weights / files before any slow step (a missing one stops with the fix)."""
    from egoworld.perception.detectors.spec import detections_file

    assert settings.detector is not None
    spec = parse_detector(settings.detector)
    if spec.kind == "file":
        for view in views:
            detections_file(spec.target, episode, view)
    else:
        make_detector(spec, episode, None, 1.0)


def open_video(video: Path) -> VideoIndex:
    """The video's frame table; a file that is not a decodable video is refused with the fix."""
    if not video.is_file():
        raise InputFileError(f"{video}: no such video file")
    index = probe(video)
    if index.count < 2:
        raise InputFileError(
            f"{video}: {index.count} frame(s); perception needs a video of at least 2 frames"
        )
    return index


def link_into(src: Path, dst: Path) -> None:
    """``dst`` as a hard link to ``src`` (a copy across file systems)."""
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def view_frames(video: Path, stride: int, pixels: bool) -> list[Frame]:
    """The perceived frames of one view video (decoded only when the detector looks at pixels)."""
    if pixels:
        return [Frame(t, rgb, i) for i, (t, rgb) in enumerate(sampled_frames(video, stride))]
    index = probe(video)
    blank = np.broadcast_to(
        np.zeros((1, 1, 3), np.uint8), (index.height, index.width, 3)
    )  # the size, no pixels
    return [Frame(index.time_of(i), blank, i) for i in frame_targets(index, stride)]


def tracked_rows(instances: list[Instance], times: list[float], id_field: str = "object") -> list[dict]:
    """The tracked detections file (Beyond3D's spelling, ``object`` = perceived instance id), one row per
    perceived frame; a kitchen keeps the instance as ``track`` (Beyond3D matches its label to the object)."""
    by_time: dict[float, list[dict]] = {round(t, 6): [] for t in times}
    for inst in instances:
        for t, box, score in zip(inst.times, inst.boxes, inst.scores, strict=True):
            by_time.setdefault(round(t, 6), []).append(
                {
                    "label": inst.label,
                    "bbox": [round(v, 2) for v in box],
                    "score": round(score, 4),
                    id_field: inst.id,
                }  # fmt: skip
            )
    return [
        {"time_s": t, "detections": sorted(d, key=lambda x: x[id_field])} for t, d in sorted(by_time.items())
    ]


def view_rays(traj: Trajectory, meta: dict) -> Rays:
    """Box-centre rays of one view (its pose: the panorama's ``pose @ R_y(yaw)``) for 3D re-identification."""
    from egoworld.geometry.cameras import PinholeCamera
    from egoworld.geometry.equirect import view_rotation
    from egoworld.world.poses import PoseTrack

    turn = np.eye(4)
    turn[:3, :3] = view_rotation(float(meta["yaw_deg"]))
    cam = PinholeCamera(**{k: v for k, v in meta["camera"].items() if k != "kind"})
    return Rays(PoseTrack(traj.times_s, traj.world_from_camera @ turn), cam)


def perceive_objects(
    folder: Path,
    episode: str,
    views: dict[str, dict],
    traj: Trajectory,
    stride: int,
    settings: PerceiveSettings,
    say: Say,
) -> tuple[list[dict], dict]:
    """Detect and track every view video (3D re-identification along ``traj``); returns the appearance
    rows and the provenance record."""
    assert settings.detector is not None
    spec = parse_detector(settings.detector)
    rows: list[dict] = []
    tracker = TrackSettings(min_tracklet=2)  # walks: scattered false positives never pile up
    record: dict = {}
    for view, meta in views.items():
        video = folder / meta["video"]
        detector = make_detector(spec, episode, view, probe(video).avg_fps or 1.0)
        words = list(settings.vocabulary) or list(getattr(detector, "vocabulary", lambda: [])())
        frames = view_frames(video, stride, spec.needs_pixels)
        if not words:
            say(f"{episode} {view}: the detections hold no labels; no objects in this view")
            dets: list[FrameDetections] = []
        else:
            dets = list(run_detector(detector, frames, words))
        rays = view_rays(traj, meta) if settings.reid == "3d" else None
        instances = track(dets, (int(meta["width"]), int(meta["height"])), tracker, prefix=view, rays=rays)
        times = [f.time_s for f in frames]
        rows += appearance_rows(instances, view, times)
        write_jsonl(folder / f"detections_{view}.jsonl", tracked_rows(instances, times))
        say(f"{episode} {view}: {sum(len(d.detections) for d in dets)} detections in {len(frames)} frames "
            f"→ {len(instances)} instances")  # fmt: skip
        record = detector.provenance().record() | {"vocabulary": words, "frames": len(frames)}
    reid = {
        k: getattr(Rays, k)
        for k in ("max_angle_deg", "reject_angle_deg", "min_parallax_deg", "max_rays", "border_px")
    }
    record |= {"tracker": tracker.provenance().record() | {"reid_3d": reid}, "counts": counts(rows)}
    return rows, record


def perceive_walk(video: Path, folder: Path, settings: PerceiveSettings, say: Say) -> Path:
    """Perceive one walk into ``folder`` (see the module docstring): a panorama's four views, or the one
    view of a perspective (or fisheye) video (`egoworld.perception.video.perspective_walk`)."""
    from egoworld.geometry.cameras import EquirectCamera
    from egoworld.perception.video.perspective_walk import perspective_view, walk_camera
    from egoworld.world.episode import Episode, EpisodeMedia
    from egoworld.world.episode_folder import save_episode
    from egoworld.world.panorama_views import VIEW_ORDER, cut_views

    index = open_video(video)
    camera, cam_record = walk_camera(settings.camera, video, index, say)
    panoramic = camera.kind == "equirect"
    episode = folder.name
    stride = settings.stride_for(index)
    if settings.detector is not None:
        preflight(settings, episode, VIEW_ORDER if panoramic else ("front",))
    traj = read_trajectory(settings.trajectory, index.avg_fps or 1.0)
    media = folder / f"{'pano' if panoramic else 'video'}{video.suffix.lower()}"
    link_into(video, media)
    looks = LookCollector(LookSegmenter(), index)  # a panorama is decoded once, for its views and looks
    if panoramic:
        say(f"{episode}: cutting the four views ({settings.view_size} px)")
        views = cut_views(media, folder, size=settings.view_size, on_frame=looks.add)
        view_record = Provenance("equirect-cut", "av", {"size": settings.view_size, "fov_deg": 90.0}).record()
    else:
        say(f"{episode}: a perspective walk ({camera.kind} camera): one view, front")
        assert not isinstance(camera, EquirectCamera)  # panoramic is False
        views = perspective_view(video, folder, camera, link_into)
        view_record = Provenance(
            "perspective", None, {"camera": cam_record, "fov_deg": views["front"]["fov_deg"]}
        ).record()
    if traj is None:
        say(f"{episode}: trajectory ({settings.trajectory}, every {stride} frame(s) of {index.count})")
        front = views["front"]
        traj = estimate_trajectory(settings.trajectory, media, folder / front["video"], front["camera"], stride,
                                   settings.seed, panoramic)  # fmt: skip
    if settings.scale is not None:
        traj = traj.scaled(settings.scale)
    poses = traj.provenance.record() | traj.summary()
    for line in check_lines(episode, poses["check"]):
        say(line)
    objects: dict | None = None
    if settings.detector is None:
        rows: list[dict] = []
        what = (
            "VMR from it (and VPO where the walk visits four places or more)" if panoramic else "VMR from it"
        )
        say(f"{episode}: trajectory only (no --detector): poses, the {'four views' if panoramic else 'view'} and "
            f"places, no objects; `build vsi-wild` can build {what}, not VOO / VOC (they need objects)")  # fmt: skip
    else:
        rows, objects = perceive_objects(folder, episode, views, traj, stride, settings, say)
    write_jsonl(folder / "appearances.jsonl", rows)
    duration = max(index.end_s, float(traj.times_s[-1]))
    # places from the look of the panorama (or the one view): appearance tells places apart where the path
    # turns no corner (`place_looks`)
    if panoramic:
        visits, places, place_prov = visits_from_looks(*looks.arrays(), duration, looks.segmenter)
    else:
        visits, places, place_prov = look_visits(folder / views["front"]["video"], end_s=duration)
    write_jsonl(folder / "place_visits.jsonl", visits)
    write_jsonl(folder / "places.jsonl", places)
    perception = {
        "settings": settings.to_json(),
        "poses": poses,
        "appearances": objects,
        "place_visits": place_prov.record() | {"places": len(places)},
        "views": view_record,
    }
    extra = {v: m["video"] for v, m in views.items()} | {
        "appearances": "appearances.jsonl",
        "place_visits": "place_visits.jsonl",
        "places": "places.jsonl",
    } | {f"detections_{v}": f"detections_{v}.jsonl" for v in views}  # fmt: skip
    ep = Episode(
        id=episode,
        duration_s=duration,
        fps=index.avg_fps or 1.0,
        camera=camera,
        poses=traj.track(),
        media=EpisodeMedia(video=media.name, extra=extra),
        source={"loader": "egoworld.perception", "kind": "walk", "video": video.name},
        meta={"views": views, "counts": objects["counts"] if objects else {}, "perception": perception},
    )
    save_episode(ep, folder)
    return folder
