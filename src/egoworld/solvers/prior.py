"""The ``prior`` baseline: a constant answer per task fitted on a split, the usual "blind" row."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.hashing import sha256_json
from egoworld.core.model import Backend, Generation, Model, ModelContext, ModelError, Request, check_options
from egoworld.solvers.base import Solver, run_benchmark_of
from egoworld.solvers.replies import letter, time_point_text


class PriorModel(Solver):
    """A constant answer per task, fitted on a split (a benchmark folder); it answers the questions of
    ``benchmark`` (the one being run).

    Choice tasks: the most frequent gold option *text* of the split when it is among the presented choices,
    otherwise the most frequent gold *position*. Numeric tasks: the split's mode (ties → smaller), or its
    median / mean with ``stat``. Fitted on the benchmark being run, this is the usual "blind frequency" row
    (it sees the test answer distribution, as VSI-Bench's frequency baseline does).
    """

    backend = "prior"

    def __init__(self, benchmark: Benchmark, split: Benchmark | None = None, stat: str = "mode"):
        if stat not in ("mode", "median", "mean"):
            raise ValueError(f"prior stat must be mode, median or mean, not {stat!r}")
        super().__init__(benchmark)
        split = split or benchmark
        self.stat = stat
        self.split_name = str(split.root.name)
        self.table = self._fit(split, stat)

    @staticmethod
    def _fit(split: Benchmark, stat: str) -> dict[str, dict[str, Any]]:
        texts: dict[str, Counter[str]] = {}
        positions: dict[str, Counter[int]] = {}
        numbers: dict[str, list[float]] = {}
        points: dict[str, list[tuple[float, float, float]]] = {}
        for s in split.samples:
            if s.answer_type == "choice":
                for i in s.correct_indices:
                    texts.setdefault(s.task, Counter())[(s.choices or ())[i].strip().lower()] += 1
                    positions.setdefault(s.task, Counter())[i] += 1
            elif s.answer_type in ("integer", "number"):
                numbers.setdefault(s.task, []).append(float(s.answer))
            elif s.answer_type == "time_point":
                first = s.answer["candidates"][0]
                points.setdefault(s.task, []).append(
                    (first["time_s"], first.get("x", 0.5), first.get("y", 0.5))
                )
        table: dict[str, dict[str, Any]] = {}
        for task, triples in points.items():  # the median time and point of the first candidates
            table[task] = {
                "time_point": [statistics.median_low(sorted(v)) for v in zip(*triples, strict=True)]
            }
        for task, counter in texts.items():
            # ties broken by the text / position itself so the fit is deterministic
            text = min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            pos = min(positions[task].items(), key=lambda kv: (-kv[1], kv[0]))[0]
            table[task] = {"text": text, "text_count": counter[text], "position": pos}
        for task, values in numbers.items():
            if stat == "mode":
                counts = Counter(values)
                value = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            elif stat == "median":
                value = statistics.median_low(sorted(values))
            else:
                value = statistics.fmean(values)
            table[task] = {"number": value}
        return table

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": "prior",
            "stat": self.stat,
            "split": self.split_name,
            "fit": sha256_json(self.table),
        }

    async def generate(self, request: Request) -> Generation:
        s = self.sample(request)
        entry = self.table.get(s.task)
        if entry is None:
            raise ModelError(
                f"the prior has no answer for task {s.task!r} (not in its split)", retryable=False
            )
        if s.answer_type == "choice":
            presented = [c.strip().lower() for c in request.choices or ()]
            if entry["text"] in presented:
                return Generation(text=letter(presented.index(entry["text"])))
            return Generation(text=letter(min(entry["position"], len(presented) - 1)))
        if s.answer_type == "integer":
            return Generation(text=str(round(entry["number"])))
        if s.answer_type == "number":
            return Generation(text=f"{entry['number']:g}")
        if s.answer_type == "time_point":
            return Generation(text=time_point_text(*entry["time_point"]))
        raise ModelError("the prior baseline cannot write free-form answers", retryable=False)


def _create(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    opts = check_options(options, {"split", "stat"}, "prior")
    if "split" not in opts and ctx.benchmark is None:
        raise ValueError("prior: pass split=DIR (the benchmark to take answer frequencies from)")
    split = load_benchmark(opts["split"]) if "split" in opts else None
    return PriorModel(run_benchmark_of(ctx, "prior"), split, stat=opts.get("stat", "mode"))


BACKEND = Backend(
    "prior", _create, "constant answer per task fitted on split=DIR (default: the run's benchmark)"
)
