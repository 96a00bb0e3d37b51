"""Write EXPLORE instances as a benchmark folder, and build instances from action episodes.

`save_instances` is shared by the official importer, the EPIC-KITCHENS builder and the episode builder: it
checks ids, marks the tiny subset (seeded, hash-based) and writes ``manifest.json`` + ``samples.jsonl``.

`build_from_episodes` takes any episode with an initial image, an ordered list of actions and a final scene
graph (optionally the initial scene and intermediate scenes), e.g. the simulator's tabletop action scenes.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egoworld.benchmarks.explore import (
    BENCHMARK_NAME,
    TASK_ABNORMAL,
    TASK_ORDER,
    TASK_SCENE,
    TASK_UNANNOTATED,
)
from egoworld.benchmarks.explore.instances import IMAGES_DIR, Instance, Scene, SceneObject
from egoworld.benchmarks.explore.partitions import TINY_RATIO, TINY_SIZE, tiny_subset
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.loader import begin_write
from egoworld.core.schema import TaskInfo

TASK_INFO = {
    TASK_SCENE: TaskInfo(answer_type="free", metric="s_uni", title="Final scene (S_uni)"),
    TASK_ABNORMAL: TaskInfo(answer_type="free", metric="s_abn", title="Abnormal cases (S_abn)"),
    TASK_UNANNOTATED: TaskInfo(
        answer_type="free", metric="none", title="Real sequences without final annotation (cost only)"
    ),
}


def save_instances(
    out: str | Path,
    instances: Sequence[Instance],
    *,
    builder: dict[str, Any],
    seed: int = 0,
    tiny_size: int = TINY_SIZE,
    source: dict[str, Any] | None = None,
    description: str = "",
    name: str = BENCHMARK_NAME,
    media_roots: Sequence[str] = (),
) -> Benchmark:
    """Validate ids, select the tiny subset and write the benchmark folder (deterministic bytes)."""
    seen: dict[str, int] = {}
    for i, inst in enumerate(instances):
        sid = inst.sample_id
        if sid in seen:
            raise InputFileError(
                f"instances {seen[sid]} and {i} both map to sample id {sid!r} (start_frame {inst.start_frame!r}); "
                "start frames must be unique"
            )
        seen[sid] = i
    pool = [(inst.sample_id, len(inst.actions)) for inst in instances if inst.task() != TASK_ABNORMAL]
    tiny, tiny_report = tiny_subset(pool, seed=seed, size=tiny_size)
    samples = [inst.to_sample(name, tiny=inst.sample_id in tiny) for inst in instances]
    present = {s.task for s in samples}
    tasks = {t: TASK_INFO[t] for t in TASK_ORDER if t in present}
    if not tasks:
        raise InputFileError("no instances to write")
    builder = {
        **builder,
        "tiny": {"size": tiny_size, "ratio": list(TINY_RATIO), "seed": seed, "partitions": tiny_report},
    }
    return save_benchmark(
        out,
        name=name,
        tasks=tasks,
        samples=samples,
        builder=builder,
        seed=seed,
        source=source or {},
        check_media=True,
        description=description,
        media_roots=media_roots,
    )


@dataclass(frozen=True)
class ActionEpisode:
    """What the EXPLORE builder needs from a recorded or synthetic episode."""

    id: str
    actions: Sequence[str]
    #: None: the episode has no final annotation (inference / cost studies only)
    final_scene: Sequence[SceneObject] | None
    initial_image: str | Path | None = None
    initial_scene: Sequence[SceneObject] | None = None
    #: (number of actions done, objects) for intermediate annotated scenes, in order
    middle_scenes: Sequence[tuple[int, Sequence[SceneObject]]] = ()
    cluster: str | None = None


def instance_from_episode(ep: ActionEpisode, image_name: str | None) -> Instance:
    if not ep.actions:
        raise InputFileError(f"episode {ep.id}: no actions")
    bad = [a for a in ep.actions if "|" in a or not a.strip()]
    if bad:
        raise InputFileError(
            f"episode {ep.id}: actions must be non-empty and contain no '|' (got {bad[0]!r})"
        )
    n = len(ep.actions)
    for k, _ in ep.middle_scenes:
        if not 0 < k < n:
            raise InputFileError(f"episode {ep.id}: a middle scene after {k} actions is outside 1..{n - 1}")
    return Instance(
        start_frame=image_name or ep.id,
        actions_text="|".join(a.strip() for a in ep.actions),
        final=Scene(tuple(ep.final_scene), after_action=n) if ep.final_scene is not None else None,
        middle=tuple(Scene(tuple(objs), after_action=k) for k, objs in ep.middle_scenes),
        initial=Scene(tuple(ep.initial_scene), after_action=0) if ep.initial_scene is not None else None,
        image=f"{IMAGES_DIR}/{image_name}" if image_name else None,
        cluster=ep.cluster,
    )


def build_from_episodes(
    episodes: Iterable[ActionEpisode],
    out: str | Path,
    *,
    seed: int = 0,
    tiny_size: int = TINY_SIZE,
    builder: dict[str, Any] | None = None,
) -> Benchmark:
    """Copy each episode's initial image to ``out/images/<id><ext>`` and write the benchmark folder."""
    out = begin_write(out, "build explore")
    instances = []
    for ep in episodes:
        name = None
        if ep.initial_image is not None:
            src = Path(ep.initial_image)
            if not src.is_file():
                raise InputFileError(f"episode {ep.id}: initial image {src} not found")
            name = f"{ep.id}{src.suffix.lower() or '.png'}"
            dst = out / IMAGES_DIR / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        instances.append(instance_from_episode(ep, name))
    return save_instances(
        out,
        instances,
        builder={"builder": "explore-episodes", **(builder or {})},
        seed=seed,
        tiny_size=tiny_size,
    )
