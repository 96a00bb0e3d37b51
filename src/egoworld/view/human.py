"""Human baseline answers: a person answers blind in the browser and each answer is stored as a response
of a run folder whose model is ``human:NAME``, so `egoworld score` and `egoworld report` treat it like
any model. Resumable: answered questions are skipped when the page is opened again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from egoworld import __version__
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, read_json, write_json
from egoworld.core.folders.hashing import sha256_json
from egoworld.core.folders.store import ResponseStore
from egoworld.core.letters import letters_for
from egoworld.core.permutations import orders_for, permutation_id
from egoworld.core.plan import select_samples
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE, check_resumable
from egoworld.core.schema import Sample

HUMAN_INPUTS = {"setting": "human", "shown": "video clip up to the query time, listed frames and images"}


class HumanRun:
    """The run folder of one person's answers over (a selection of) a benchmark."""

    def __init__(
        self,
        bench_dir: Path,
        name: str,
        out: Path,
        *,
        tasks: list[str] | None = None,
        per_task: int | None = None,
        limit: int | None = None,
    ):
        if not name or not name.replace("-", "").replace("_", "").isalnum():
            raise InputFileError(f"--answer {name!r}: use letters, digits, '-' or '_' for the name")
        self.bench: Benchmark = load_benchmark(bench_dir)
        self.name = name
        self.out = Path(out)
        self.samples: list[Sample] = select_samples(self.bench, tasks, limit, per_task)
        self.manifest = {
            "egoworld_version": __version__,
            "benchmark": self.bench.name,
            "benchmark_path": str(Path(self.bench.root).resolve()),
            "benchmark_hash": self.bench.hash,
            "model": {"backend": "human", "model": name},
            "model_spec": f"human:{name}",
            "inputs": HUMAN_INPUTS,
            "permutations": "none",
            "seed": 0,
            "epochs": 1,
            "history": "none",
            "selection": {"tasks": tasks, "limit": limit, "per_task": per_task},
            "executor": "browser",
            "config": {
                "tasks": tasks,
                "limit": limit,
                "per_task": per_task,
                "permutations": "none",
                "seed": 0,
                "epochs": 1,
            },
            "served_models": [],
        }
        check_resumable(self.out, self.manifest)
        if (self.out / RUN_MANIFEST).is_file():
            old = read_json(self.out / RUN_MANIFEST)
            if old.get("selection") != self.manifest["selection"]:
                raise InputFileError(
                    f"{self.out}: answers were started with another selection {old.get('selection')}; "
                    "use the same --tasks/--per-task/--limit or a new --out"
                )
        self.out.mkdir(parents=True, exist_ok=True)
        self.store = ResponseStore(self.out / STORE_FILE)
        self._write_manifest()

    def close(self) -> None:
        self.store.close()

    def key(self, sample_id: str) -> str:
        return sha256_json({"human": self.name, "sample": sample_id, "bench": self.bench.hash})

    def answered(self) -> set[str]:
        return {r[0] for r in self.store.db.execute("SELECT sample_id FROM responses WHERE status = 'ok'")}

    def next_sample(self) -> Sample | None:
        done = self.answered()
        return next((s for s in self.samples if s.id not in done), None)

    def sample(self, sample_id: str) -> Sample:
        for s in self.samples:
            if s.id == sample_id:
                return s
        raise KeyError(sample_id)

    def answer(self, sample_id: str, value: str, seconds: float | None = None) -> None:
        """Store ``value`` (a letter, a number or free text) as the reply to ``sample_id``."""
        s = self.sample(sample_id)
        value = value.strip()
        if not value:
            raise ValueError("empty answer")
        if s.answer_type == "choice" and value not in letters_for(len(s.choices or ())):
            raise ValueError(f"answer {value!r}: expected one of the option letters")
        if s.answer_type in ("integer", "number"):
            try:
                float(value)
            except ValueError as exc:
                raise ValueError(f"answer {value!r}: expected a number") from exc
        key = self.key(sample_id)
        pid = permutation_id(orders_for(len(s.choices) if s.choices else None, "none", 0, s.id)[0])
        with self.store.transaction():
            self.store.plan(sample_id, pid, 0, key)
            self.store.put(
                key=key,
                sample_id=sample_id,
                permutation=pid,
                epoch=0,
                status="ok",
                raw=value,
                latency_s=seconds,
                served_model=f"human:{self.name}",
            )
        self._write_manifest()

    def progress(self) -> tuple[int, int]:
        return len(self.answered() & {s.id for s in self.samples}), len(self.samples)

    def _write_manifest(self) -> None:
        done, total = len(self.answered()), len(self.samples)
        m: dict[str, Any] = dict(self.manifest)
        m["status"] = "complete" if done >= total else "incomplete"
        m["served_models"] = [f"human:{self.name}"]
        m["counts"] = {"planned": total, "ok": done, "error": 0}
        write_json(self.out / RUN_MANIFEST, m)
