"""The temporal-cues variant (paper §5.4): each question is preceded by the intervals in which the target
was moved (``moves``, the paper's cue) or was visible (``sightings``) before the query time.

The cue goes into ``metadata["cue"]``; the plug-in's prompt puts it before the question, so the
question text itself (shown again in trajectory histories) is unchanged. Sample ids stay the same, so a
run on the variant pairs with a run on the base benchmark question by question (`analysis.paired`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from egoworld.benchmarks.beyond3d.prompts import cue_text
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.folders.loader import begin_write
from egoworld.core.schema import Sample

CUE_KINDS = ("moves", "sightings")
_FIELD = {"moves": "moves_before", "sightings": "sightings_before"}


def apply_cues(samples: Sequence[Sample], kind: str) -> list[Sample]:
    """Copies of ``samples`` with ``metadata["cue"]`` set."""
    if kind not in CUE_KINDS:
        raise ValueError(f"--cues {kind!r}: expected one of {', '.join(CUE_KINDS)}")
    out = []
    for s in samples:
        spans = s.metadata.get(_FIELD[kind])
        if spans is None:
            raise InputFileError(
                f"sample {s.id}: metadata has no {_FIELD[kind]!r}, needed for --cues {kind}; rebuild the benchmark with this egoworld"
            )
        cue = cue_text(kind, s.metadata["object_name"], spans)
        out.append(s.model_copy(update={"metadata": s.metadata | {"cue": cue, "cue_kind": kind}}))
    return out


def cue_variant(bench_dir: str | Path, out: str | Path, kind: str) -> Benchmark:
    """Write the cue variant of a built benchmark into ``out``."""
    bench = load_benchmark(bench_dir)
    m = bench.manifest
    if m.builder.get("cues"):
        raise InputFileError(
            f"{bench.root}: this benchmark already carries cues ({m.builder['cues']}); start from the base build"
        )
    samples = apply_cues(bench.samples, kind)
    out = Path(out)
    link = Path(bench.root) / "videos"
    if link.is_dir() and not (out / "videos").exists():
        begin_write(out, "beyond3d cues")
        (out / "videos").symlink_to(link.resolve(), target_is_directory=True)
    return save_benchmark(
        out, name=m.name, tasks=m.tasks, samples=samples, builder=m.builder | {"cues": kind, "base_hash": bench.hash},
        seed=m.seed, source=m.source, description=f"{m.description} — temporal cues ({kind})", version=m.version,
        media_roots=(*m.media_roots, "videos") if (out / "videos").is_symlink() else m.media_roots,
    )  # fmt: skip
