"""COLMAP through ``pycolmap``: SIFT features, sequential matching, incremental mapping.

Frames are sampled at the video's own rate (``stride`` 1) or every ``stride``-th frame. A panorama
(``panorama=True``, or an equirectangular 2:1 video when ``None``) is cut into its four perspective views
(`egoworld.geometry.equirect`) that enter the reconstruction as separate images of one pinhole camera; a
frame's pose is that of its first registered view turned back into the panorama frame. Frames outside the
largest model are interpolated and reported in the trajectory's ``registered`` mask. The scale is COLMAP's
own (not metric).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from egoworld.geometry.cameras import PinholeCamera
from egoworld.geometry.equirect import FOUR_VIEWS, perspective_sampler, view_camera, view_rotation
from egoworld.media.index import probe
from egoworld.perception.provenance import Provenance
from egoworld.perception.video.trajectory import (
    Trajectory,
    estimator_settings,
    fill_unregistered,
    is_panorama,
    sampled_frames,
)


@dataclass(frozen=True)
class ColmapEstimator:
    """``camera``: the video's pinhole intrinsics (None: COLMAP guesses and refines the focal length)."""

    stride: int = 1
    camera: PinholeCamera | None = None
    panorama: bool | None = None
    view_size: int = 128
    overlap: int = 10
    max_features: int = 4096
    peak_threshold: float = 0.0005  # low: sim and indoor footage is weakly textured
    threads: int = 2
    seed: int = 0

    def settings(self) -> dict:
        return estimator_settings(self)

    def estimate(self, video: str | Path) -> Trajectory:
        import pycolmap

        pycolmap.set_random_seed(self.seed)  # RANSAC's process-wide generator (the mapper's seed is its own)
        video = Path(video)
        index = probe(video)
        pano = is_panorama(self.panorama, index)
        views = FOUR_VIEWS if pano else {"": 0.0}
        with tempfile.TemporaryDirectory(prefix="egoworld-colmap-") as tmp:
            work = Path(tmp)
            (work / "images").mkdir()
            times, camera = self._write_images(video, work / "images", views, pano)
            reader = pycolmap.ImageReaderOptions()
            if camera is not None:  # COLMAP puts pixel centres at +0.5
                reader.camera_model = "PINHOLE"
                reader.camera_params = f"{camera.fx},{camera.fy},{camera.cx + 0.5},{camera.cy + 0.5}"
            extract = pycolmap.FeatureExtractionOptions()
            extract.num_threads = self.threads
            extract.use_gpu = False
            extract.sift.max_num_features = self.max_features
            extract.sift.peak_threshold = self.peak_threshold
            db = work / "database.db"
            pycolmap.extract_features(
                db,
                work / "images",
                camera_mode=pycolmap.CameraMode.SINGLE,
                reader_options=reader,
                extraction_options=extract,
                device=pycolmap.Device.cpu,
            )
            pairing = pycolmap.SequentialPairingOptions()
            pairing.overlap = self.overlap * len(views)
            pairing.num_threads = self.threads
            pycolmap.match_sequential(db, pairing_options=pairing, device=pycolmap.Device.cpu)
            models = pycolmap.incremental_mapping(db, work / "images", work / "sparse", self._mapper(camera))
        return self._trajectory(models, times, views, camera is not None, video)

    def _write_images(
        self, video: Path, folder: Path, views: dict[str, float], pano: bool
    ) -> tuple[np.ndarray, PinholeCamera | None]:
        times = []
        samplers: dict = {}
        for k, (t, rgb) in enumerate(sampled_frames(video, self.stride)):
            times.append(t)
            for name, yaw in views.items():
                img = rgb
                if pano:
                    if name not in samplers:
                        samplers[name] = perspective_sampler(
                            rgb.shape[:2], (self.view_size, self.view_size), yaw_deg=yaw
                        )
                    img = samplers[name](rgb)
                cv2.imwrite(str(folder / f"{k:06d}{'_' + name if name else ''}.png"), img[..., ::-1])
        size = (self.view_size, self.view_size)
        return np.array(times), view_camera(size, 90.0) if pano else self.camera

    def _mapper(self, fixed: PinholeCamera | None):  # noqa: ANN202 (pycolmap options)
        import pycolmap

        opt = pycolmap.IncrementalPipelineOptions()
        opt.num_threads = self.threads
        opt.random_seed = self.seed
        opt.mapper.init_min_num_inliers = 50
        opt.mapper.abs_pose_min_num_inliers = 15
        opt.mapper.init_max_forward_motion = 0.99
        opt.mapper.abs_pose_min_inlier_ratio = 0.1
        opt.structure_less_registration_fallback = True
        opt.ba_refine_focal_length = fixed is None
        opt.ba_refine_principal_point = False
        opt.ba_refine_extra_params = fixed is None
        return opt

    def _trajectory(
        self, models: dict, times: np.ndarray, views: dict[str, float], known: bool, video: Path
    ) -> Trajectory:
        n = len(times)
        poses = np.tile(np.eye(4), (n, 1, 1))
        registered = np.zeros(n, bool)
        sizes = sorted((m.num_reg_images() for m in models.values()), reverse=True)
        if models:
            best = max(models.values(), key=lambda m: m.num_reg_images())
            order = {name: i for i, name in enumerate(views)}
            for im in sorted(best.images.values(), key=lambda im: im.name):
                if not im.has_pose:
                    continue
                stem = Path(im.name).stem
                k, _, view = stem.partition("_")
                k = int(k)
                if registered[k] and order[view] > 0:
                    continue
                world_from_view = np.eye(4)
                world_from_view[:3] = im.cam_from_world().inverse().matrix()
                view_from_pano = np.eye(4)
                view_from_pano[:3, :3] = view_rotation(views[view]).T
                poses[k], registered[k] = world_from_view @ view_from_pano, True
        if not registered.any():
            raise RuntimeError(
                f"{video}: COLMAP registered no frame of {n}; try a smaller --stride (more overlap) "
                "or the OpenCV odometry backend"
            )
        prov = Provenance("pycolmap", "pycolmap", self.settings())
        notes = {"models": sizes, "intrinsics": "given" if known else "estimated"}
        return Trajectory(times, fill_unregistered(times, registered, poses), prov, False, registered, notes)
