"""`import_explore_anno`: an official EXPLORE annotation file (a JSON list) as a benchmark folder.

Samples name their image ``images/<start_frame>`` (the official ``<data_root>/images`` layout); ``--images``
links that folder into the benchmark. Without images the benchmark still serves scoring, text-only runs and
predictions made elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from egoworld.benchmarks.explore.build.builder import save_instances
from egoworld.benchmarks.explore.instances import IMAGES_DIR, instance_from_official
from egoworld.benchmarks.explore.partitions import TINY_SIZE
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import begin_write


def import_explore_anno(
    file: str | Path,
    out: str | Path,
    *,
    images: str | Path | None = None,
    seed: int = 0,
    tiny_size: int = TINY_SIZE,
) -> Benchmark:
    """Read ``file`` (official schema), write ``out``; ``images`` (optional) is linked as ``out/images``."""
    file = Path(file)
    data = read_json(file)
    if isinstance(data, dict):  # a {start_frame: item} mapping is accepted too
        data = [{"start_frame": k, **v} if isinstance(v, dict) else v for k, v in data.items()]
    if not isinstance(data, list) or not data:
        raise InputFileError(f"{file}: expected a non-empty JSON list of instances (the official anno*.json)")
    instances = [instance_from_official(item, f"{file}, item {i}") for i, item in enumerate(data)]
    out = Path(out)
    begin_write(out, "import explore-anno")
    if images is not None:
        link_images(out, images)
    return save_instances(
        out,
        instances,
        builder={"importer": "explore-anno", "images_dir": IMAGES_DIR},
        seed=seed,
        tiny_size=tiny_size,
        source={"file": file.name, "sha256": sha256_file(file)},
        description="EXPLORE-Bench instances imported from an official annotation file",
        media_roots=(IMAGES_DIR,),
    )


def link_images(bench_root: str | Path, images: str | Path) -> Path:
    """Point ``bench_root/images`` at the folder of initial-scene images (a symlink; replaced if present)."""
    images = Path(images).resolve()
    if not images.is_dir():
        raise InputFileError(f"{images}: not a folder (pass the folder holding the start_frame images)")
    link = Path(bench_root) / IMAGES_DIR
    if link.is_symlink():
        link.unlink()
    elif link.exists():
        raise InputFileError(f"{link}: exists and is not a link; remove it or put the images there yourself")
    os.symlink(images, link, target_is_directory=True)
    return link
