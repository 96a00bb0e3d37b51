"""Read and write a benchmark folder: ``manifest.json`` + ``samples.jsonl``, validated on load."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.core.folders.confine import MediaRoots
from egoworld.core.folders.files import InputFileError, read_json, write_json
from egoworld.core.folders.hashing import sha256_file
from egoworld.core.folders.loader import FolderKind, MediaRef
from egoworld.core.letters import letters_for
from egoworld.core.schema import Manifest, Sample, TaskInfo

MANIFEST = "manifest.json"
SAMPLES = "samples.jsonl"
FOLDER = FolderKind(
    header=MANIFEST,
    noun="benchmark",
    holds="manifest.json and samples.jsonl",
    create="`egoworld import …` or `egoworld build …`",
)


@dataclass
class Benchmark:
    """A loaded benchmark: its folder, manifest and samples (in file order)."""

    root: Path
    manifest: Manifest
    samples: list[Sample]
    _by_id: dict[str, Sample] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {s.id: s for s in self.samples}
        self._media = MediaRoots(self.root, self.manifest.media_roots)

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def hash(self) -> str:
        """sha256 of ``manifest.json`` (which holds the sha256 of the samples file)."""
        return FOLDER.hash(self.root)

    def sample(self, sample_id: str) -> Sample:
        return self._by_id[sample_id]

    def resolve(self, path: str) -> Path:
        """The real path of a sample's media file; `MediaOutsideError` when it lies outside the folder and
        the media roots its manifest declares (`egoworld.core.folders.confine`)."""
        return self._media.resolve(path, where=str(self.root / self.manifest.samples_file))

    @property
    def media_roots(self) -> MediaRoots:
        return self._media

    def tasks(self) -> list[str]:
        return list(self.manifest.tasks)


def answer_key(sample: Sample) -> str:
    """A short label of the gold answer for answer distributions (letters for choices)."""
    if sample.answer_type == "choice":
        return "/".join(letters_for(max(sample.correct_indices) + 1)[i] for i in sample.correct_indices)
    if sample.answer_type in ("integer", "number"):
        return str(sample.answer)
    return "time_point" if sample.answer_type == "time_point" else "free"


def save_benchmark(
    root: str | Path,
    *,
    name: str,
    tasks: dict[str, TaskInfo],
    samples: Iterable[Sample],
    builder: dict[str, Any] | None = None,
    seed: int | None = None,
    source: dict[str, Any] | None = None,
    description: str = "",
    version: str = "1",
    check_media: bool = False,
    media_roots: Iterable[str] = (),
) -> Benchmark:
    """Write ``samples.jsonl`` and ``manifest.json`` (atomically) and return the loaded benchmark.

    Builders pass ``check_media``: a missing or empty video or image is refused now, not at run time.
    ``media_roots``: links inside ``root`` (or absolute folders) that the builder made to media outside it;
    every media path must resolve inside ``root`` or one of them (`egoworld.core.folders.confine`)."""
    root = Path(root)
    samples = list(samples)
    media_roots = tuple(sorted(set(media_roots)))
    _check_samples(samples, name, tasks, where=str(root / SAMPLES))
    check_confined(MediaRoots(root, media_roots), samples, where=str(root / SAMPLES))
    if check_media:
        check_media_files(root, samples)
    counts = Counter(s.task for s in samples)
    dist: dict[str, Counter[str]] = {t: Counter() for t in tasks}
    for s in samples:
        dist[s.task][answer_key(s)] += 1
    manifests: list[Manifest] = []

    def header(_: dict[str, int]) -> dict[str, Any]:
        manifest = Manifest(
            name=name,
            version=version,
            description=description,
            egoworld_version=__version__,
            builder=builder or {},
            seed=seed,
            source=source or {},
            tasks=tasks,
            counts={t: counts.get(t, 0) for t in tasks},
            answer_distribution={t: dict(sorted(c.items())) for t, c in dist.items()},
            samples_sha256=sha256_file(root / SAMPLES),
            media_roots=media_roots,
        )
        manifests.append(manifest)
        return _manifest_json(manifest)

    rows = (s.model_dump(mode="json", exclude_defaults=True) for s in samples)
    FOLDER.save(root, {SAMPLES: rows}, header, sort_keys=False)
    return Benchmark(root=root, manifest=manifests[0], samples=samples)


def load_benchmark(root: str | Path) -> Benchmark:
    """Load and validate a benchmark folder; any problem raises `InputFileError` naming file, item and fix."""
    root = Path(root)
    manifest = FOLDER.read_header(root, Manifest)
    spath = root / manifest.samples_file
    samples, lines = FOLDER.read_rows(spath, Sample)
    FOLDER.check_hash(
        spath,
        manifest.samples_sha256,
        field="samples_sha256",
        fix="rebuild it, or run `egoworld bench rehash --bench DIR` to accept the edit",
    )
    _check_samples(samples, manifest.name, manifest.tasks, where=str(spath), lines=lines)
    check_counts(manifest, samples, root / MANIFEST)
    bench = Benchmark(root=root, manifest=manifest, samples=samples)
    check_confined(bench.media_roots, samples, where=str(spath), lines=lines)
    return bench


def check_counts(manifest: Manifest, samples: list[Sample], where: Path) -> None:
    """Refuse a manifest whose per-task ``counts`` disagree with the samples (a hand edit, or files of two
    writes): each disagreeing task is named with both numbers. A manifest without a samples hash (a hand edit
    accepted as it is) is not checked."""
    if not manifest.counts or not manifest.samples_sha256:
        return
    actual = Counter(s.task for s in samples)
    wrong = [
        f"{t}: {n} counted, {actual.get(t, 0)} in {manifest.samples_file}"
        for t, n in manifest.counts.items()
        if n != actual.get(t, 0)
    ]
    wrong += [
        f"{t}: not counted, {n} in {manifest.samples_file}"
        for t, n in actual.items()
        if t not in manifest.counts
    ]
    if wrong:
        raise InputFileError(
            f"{where}, field 'counts': disagrees with the samples ({'; '.join(wrong)}) — rebuild the benchmark, "
            "or run `egoworld bench rehash --bench DIR` to accept an edit"
        )


def check_confined(
    roots: MediaRoots, samples: list[Sample], *, where: str, lines: list[int] | None = None
) -> None:
    """Refuse the first sample whose video or image resolves outside the folder and its media roots."""
    FOLDER.confine(roots, _media_refs(samples, where, lines), cached=True)


def _media_refs(samples: list[Sample], where: str, lines: list[int] | None) -> Iterator[MediaRef]:
    for k, s in enumerate(samples):
        at = f"{where}, line {lines[k]} (id {s.id})" if lines else f"{where} (sample {s.id})"
        if s.media.video is not None:
            yield MediaRef(s.media.video.path, at, "media.video.path")
        for i, img in enumerate(s.media.images):
            yield MediaRef(img.path, at, f"media.images.{i}.path")


def _manifest_json(manifest: Manifest) -> dict[str, Any]:
    """The manifest as written: ``media_roots`` only when there are some (older folders keep their bytes)."""
    doc = manifest.model_dump(mode="json")
    if not doc["media_roots"]:
        del doc["media_roots"]
    return doc


def rehash_benchmark(root: str | Path) -> Manifest:
    """Accept hand edits of ``samples.jsonl``: recompute counts and the samples hash in the manifest."""
    root = Path(root)
    manifest = Manifest.model_validate(read_json(root / MANIFEST))
    manifest.samples_sha256 = ""
    write_json(root / MANIFEST, _manifest_json(manifest), sort_keys=False)
    bench = load_benchmark(root)
    saved = save_benchmark(
        root,
        name=manifest.name,
        tasks=manifest.tasks,
        samples=bench.samples,
        builder=manifest.builder,
        seed=manifest.seed,
        source=manifest.source,
        description=manifest.description,
        version=manifest.version,
        media_roots=manifest.media_roots,
    )
    return saved.manifest


def check_media_files(root: Path, samples: list[Sample]) -> None:
    """Refuse, at build time, a video or image that is missing or empty (0 bytes).

    Media of a folder that is not attached at all (e.g. ``videos/`` of a text-only import) are allowed: a
    video setting lists those before a run. Once the folder is there, every file it should hold must be.
    """
    seen: set[str] = set()
    for s in samples:
        paths = ([s.media.video.path] if s.media.video else []) + [im.path for im in s.media.images]
        for rel in paths:
            if rel in seen:
                continue
            seen.add(rel)
            path = Path(rel) if Path(rel).is_absolute() else root / rel
            top = Path(rel).parts[0] if not Path(rel).is_absolute() and len(Path(rel).parts) > 1 else None
            if top is not None and not (root / top).exists():
                continue  # media not attached to this benchmark (text-only)
            if path.exists() and not path.is_file():
                raise InputFileError(
                    f"{path}: sample {s.id!r} names this as a media file, but it is a folder (or not a regular "
                    "file); put the file itself there and build again"
                )
            if not path.is_file():
                raise InputFileError(
                    f"{path}: sample {s.id!r} names this {'video' if rel.endswith(_VIDEO_EXT) else 'file'}, "
                    "but it does not exist; add the file (or fix the sample's media path) and build again"
                )
            if path.stat().st_size == 0:
                raise InputFileError(
                    f"{path}: sample {s.id!r} names this file, but it is empty (0 bytes) — an interrupted copy or "
                    "render; replace it and build again"
                )


_VIDEO_EXT = (".mp4", ".mkv", ".mov", ".webm", ".avi")


def check_unique_ids(ids: Iterable[tuple[str, str]], fix: str = "ids must be unique") -> None:
    """``(id, where)`` pairs in input order; a repeated id raises naming both places (input lines)."""
    first: dict[str, str] = {}
    for sid, where in ids:
        if sid in first:
            raise InputFileError(f"{where}: id {sid!r} appears twice (first at {first[sid]}); {fix}")
        first[sid] = where


def _check_samples(
    samples: list[Sample],
    name: str,
    tasks: dict[str, TaskInfo],
    *,
    where: str,
    lines: list[int] | None = None,
) -> None:
    labels = [f"line {n}" for n in lines] if lines else [f"sample {i + 1}" for i in range(len(samples))]
    check_unique_ids((s.id, f"{where}, {label}") for s, label in zip(samples, labels, strict=True))
    seen: dict[str, Sample] = {}
    for s in samples:
        if s.benchmark != name:
            raise InputFileError(
                f"{where}: sample {s.id!r} says benchmark {s.benchmark!r} but the manifest names {name!r}"
            )
        info = tasks.get(s.task)
        if info is None:
            raise InputFileError(
                f"{where}: sample {s.id!r} has task {s.task!r}, which manifest.json does not list "
                f"(tasks: {', '.join(tasks)})"
            )
        if info.answer_type != s.answer_type:
            raise InputFileError(
                f"{where}: sample {s.id!r} has answer_type {s.answer_type!r} but task {s.task!r} "
                f"is declared {info.answer_type!r} in manifest.json"
            )
        if s.trajectory is not None:
            for dep in s.trajectory.depends_on:
                prev = seen.get(dep)
                if prev is None:
                    raise InputFileError(
                        f"{where}: sample {s.id!r} depends on {dep!r}, which is not an earlier sample "
                        "(steps must follow the samples they depend on)"
                    )
                if prev.trajectory is None or prev.trajectory.id != s.trajectory.id:
                    raise InputFileError(
                        f"{where}: sample {s.id!r} depends on {dep!r} from another trajectory"
                    )
        seen[s.id] = s
