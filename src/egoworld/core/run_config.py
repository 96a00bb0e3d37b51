"""Run configuration and the run manifest (``run.json``)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_json_object

RUN_MANIFEST = "run.json"
STORE_FILE = "responses.sqlite"
#: the scores files `egoworld score` writes into the run folder
SCORES_JSONL = "scores.jsonl"
SCORES_JSON = "scores.json"
#: an imported run's official per-sample verdicts (`egoworld import lmms-eval`)
REFERENCE_JSONL = "reference.jsonl"

#: settings that must match when a run folder is resumed (they change request keys or their meaning)
FIXED_FIELDS = ("benchmark_hash", "model", "inputs", "permutations", "seed", "epochs", "history")


@dataclass
class RunConfig:
    bench: Path
    model: str
    out: Path
    model_args: dict[str, str] = field(default_factory=dict)
    setting: str = "text"
    frames: int = 128
    frame_policy: str = "uniform"  # media settings: see runner.inputs.InputSettings
    max_pixels: int = 448 * 448
    overlays: str = ""
    video_part: bool = False
    image_format: str = "png"  # png | jpeg[:Q] | webp[:Q] (egoworld.media.formats)
    permutations: str | int = "none"
    seed: int = 0
    epochs: int = 1
    history: str = "none"
    tasks: list[str] | None = None
    limit: int | None = None
    per_task: int | None = None
    concurrency: int = 8
    progress: bool = True
    executor: str = "local"  # local | ray
    address: str | None = None  # Ray cluster address ("auto" = the running cluster); None = start one here
    shard_size: int = 64  # items per Ray task
    #: the benchmark's own run options (e.g. EXPLORE's strategy), read by its plug-in's ``plan_requests``
    options: dict[str, Any] = field(default_factory=dict)
    cache: Path | None = None  # a response cache folder shared across runs (egoworld.runner.response_cache)
    price: str | None = None  # "in=P,out=Q": dollars per million prompt / completion tokens, for run.json
    #: the command line that made the run, as run.json's ``command`` records it (``{"name": "run", "config":
    #: {option: value}}``, what ``--from`` reads back); None for runs started from Python
    command: dict[str, Any] | None = None

    def selection(self) -> dict[str, Any]:
        return {"tasks": self.tasks, "limit": self.limit, "per_task": self.per_task}


def check_resumable(out: Path, manifest: dict[str, Any]) -> None:
    """Refuse to mix two different runs in one folder; name what differs and the fix. A folder whose run
    stopped before its first response (a typo in a setting, a dead server) holds nothing to mix: the new
    run takes it over."""
    path = out / RUN_MANIFEST
    if not path.is_file():
        return
    old = read_json_object(path)
    diffs = [f for f in FIXED_FIELDS if old.get(f) != manifest.get(f)]
    if diffs and not holds_responses(out / STORE_FILE):
        return
    if diffs:
        detail = "; ".join(f"{f}: {old.get(f)!r} → {manifest.get(f)!r}" for f in diffs)
        raise InputFileError(
            f"{path}: this folder holds another run ({detail}). Use a new --out folder for a different "
            "model, benchmark or setting (a rerun of the same command resumes)."
        )


def holds_responses(store: Path) -> bool:
    """Whether a run folder's store holds any response (a damaged store counts as holding some: it is
    never taken over silently, and the store's own check names it)."""
    if not store.is_file() or store.stat().st_size == 0:
        return False
    try:
        with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
            return bool(db.execute("SELECT EXISTS (SELECT 1 FROM responses)").fetchone()[0])
    except sqlite3.Error:
        return True


def config_dict(cfg: RunConfig) -> dict[str, Any]:
    d = asdict(cfg)
    del d["command"]  # (run.json records it beside the config, as ``command``)
    if not d["options"]:
        del d["options"]  # (run.json as before for runs without benchmark options)
    d["bench"] = str(cfg.bench)
    d["out"] = str(cfg.out)
    for name in ("cache", "price"):  # (run.json as before for runs without them)
        if d[name] is None:
            del d[name]
        else:
            d[name] = str(d[name])
    return d
