"""Hand-made benchmarks for tests (balanced gold positions, known clusters)."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.schema import Sample, TaskInfo

DIRECTIONS = ("forward", "backward", "left", "right")


def balanced_mc_bench(
    root: Path,
    *,
    n_mc: int = 40,
    n_int: int = 12,
    videos: int = 5,
    name: str = "toy",
    task_names: tuple[str, str] = ("MC", "COUNT"),
) -> Benchmark:
    """``n_mc`` 4-choice questions whose gold index cycles 0,1,2,3 and ``n_int`` integer questions (tasks
    named ``task_names``)."""
    mc, count = task_names
    samples = []
    for i in range(n_mc):
        samples.append(
            Sample(
                id=f"mc-{i:03d}",
                benchmark=name,
                task=mc,
                episode=f"v{i % videos}",
                cluster=f"v{i % videos}",
                question=f"Question {i}: which way does the camera move?",
                answer_type="choice",
                choices=DIRECTIONS,
                answer=i % 4,
            )
        )
    for i in range(n_int):
        samples.append(
            Sample(
                id=f"int-{i:03d}",
                benchmark=name,
                task=count,
                episode=f"v{i % videos}",
                cluster=f"v{i % videos}",
                question=f"How many chairs are there in scene {i}?",
                answer_type="integer",
                answer=(i % 7) + 1,
            )
        )
    tasks = {
        mc: TaskInfo(answer_type="choice", metric="accuracy", chance=25.0),
        count: TaskInfo(answer_type="integer", metric="mra"),
    }
    return save_benchmark(root, name=name, tasks=tasks, samples=samples, seed=0)


def short_clip_bench(root: Path) -> Path:
    """Four 4-choice questions over three 6 fps clips of 12, 9 and 60 frames (at ``--frames 32`` three of
    them get fewer frames than asked: q0 12, q1 9, q3 12)."""
    from egoworld.core.schema import Media, VideoInput
    from egoworld.media.testvideo import write_counter_video

    (root / "videos").mkdir(parents=True)
    for name, frames in (("short.mp4", 12), ("shorter.mp4", 9), ("long.mp4", 60)):
        write_counter_video(root / "videos" / name, frames=frames, fps=6, size=(64, 48), gop=6)
    samples = [
        Sample(
            id=f"q{i}",
            benchmark="toy",
            task="MC",
            question=f"Question {i}?",
            answer_type="choice",
            choices=("a", "b", "c", "d"),
            answer=0,
            cluster=video,
            media=Media(video=VideoInput(path=f"videos/{video}")),
        )
        for i, video in enumerate(["short.mp4", "shorter.mp4", "long.mp4", "short.mp4"])
    ]
    save_benchmark(
        root, name="toy", tasks={"MC": TaskInfo(answer_type="choice", metric="accuracy")}, samples=samples
    )
    return root
