"""Video durations for the official question file: probe the user's videos with PyAV, or read a CSV, and add
``duration_s`` / ``duration_group`` to every sample's metadata so the duration analyses run on it too.

CSV: a header with a name column (``video_name`` or ``video``) and ``duration_s`` (or ``duration_min``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from egoworld.benchmarks.vsi_wild.timing import duration_group
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark, save_benchmark
from egoworld.core.folders.confine import check_name
from egoworld.core.folders.files import InputFileError, open_text
from egoworld.core.numbers import parse_number
from egoworld.core.schema import Sample


def probe_duration(path: str | Path) -> float:
    """Duration in seconds of a video file: the stream's duration, else the container's, else frame count / rate."""
    import av

    path = Path(path)
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise InputFileError(f"{path}: has no video stream")
            stream = container.streams.video[0]
            if stream.duration and stream.time_base:
                return float(stream.duration * stream.time_base)
            if container.duration:
                return container.duration / 1_000_000
    except (av.error.FFmpegError, OSError) as exc:
        raise InputFileError(
            f"{path}: cannot read the video ({exc}); replace the file or give --durations CSV"
        ) from exc
    from egoworld.media.index import probe

    index = probe(path)
    return index.duration_s + (1.0 / index.avg_fps if index.avg_fps else 0.0)


def video_name(sample: Sample) -> str:
    """The video file name a sample refers to (the official ``video_name``, else its video's file name)."""
    name = sample.metadata.get("video_name")
    if name:  # a file name inside --videos, never a path out of it
        return check_name(name, where=f"sample {sample.id}", field="metadata.video_name")
    if sample.media.video is None:
        raise InputFileError(f"sample {sample.id} has no video, so it has no duration")
    return Path(sample.media.video.path).name


def probe_durations(videos: str | Path, names: list[str]) -> dict[str, float]:
    """Durations of ``names`` in the folder ``videos``; one error lists every missing file."""
    videos = Path(videos)
    missing = [n for n in names if not (videos / n).is_file()]
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise InputFileError(
            f"{videos}: {len(missing)} video(s) missing ({shown}); add them or give --durations CSV"
        )
    return {n: round(probe_duration(videos / n), 6) for n in names}


def read_durations_csv(path: str | Path) -> dict[str, float]:
    """``{video name: seconds}`` from a CSV (see the module docstring)."""
    path = Path(path)
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        cols = reader.fieldnames or []
        name_col = next((c for c in ("video_name", "video") if c in cols), None)
        dur_col = next((c for c in ("duration_s", "duration_min") if c in cols), None)
        if name_col is None or dur_col is None:
            raise InputFileError(
                f"{path}: header {cols} needs a 'video_name' (or 'video') and a 'duration_s' (or 'duration_min') column"
            )
        scale = 60.0 if dur_col == "duration_min" else 1.0
        out: dict[str, float] = {}
        for line, row in enumerate(reader, start=2):
            try:
                out[row[name_col].strip()] = round(float(parse_number(row[dur_col], gt=0)) * scale, 6)
            except (TypeError, ValueError) as exc:
                raise InputFileError(
                    f"{path}, line {line}: field '{dur_col}': {row.get(dur_col)!r} is not a duration ({exc})"
                ) from exc
    return out


def add_durations(bench_dir: str | Path, durations: dict[str, float], origin: str) -> Benchmark:
    """Rewrite a benchmark folder with ``duration_s`` and ``duration_group`` in each sample's metadata."""
    bench = load_benchmark(bench_dir)
    names = [video_name(s) for s in bench.samples]
    missing = sorted(set(names) - set(durations))
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise InputFileError(f"no duration for {len(missing)} video(s): {shown}")
    samples = [
        s.model_copy(
            update={
                "metadata": s.metadata
                | {"duration_s": durations[n], "duration_group": duration_group(durations[n])}
            }
        )
        for s, n in zip(bench.samples, names, strict=True)
    ]
    m = bench.manifest
    return save_benchmark(
        bench.root,
        name=m.name,
        tasks=m.tasks,
        samples=[Sample.model_validate(s.model_dump()) for s in samples],
        builder=m.builder | {"durations": origin},
        seed=m.seed,
        source=m.source,
        description=m.description,
        version=m.version,
        media_roots=m.media_roots,
    )
