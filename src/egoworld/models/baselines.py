"""Built-in baselines: `random` (seeded, uniform), `prior` (a constant answer per task) and `oracle` (gold).

They are features, not stand-ins: `random` gives the chance row, `prior` the usual "blind" row, and `oracle`
checks the whole pipeline (a run with it must score exactly 100).
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from egoworld.core.bench_folder import Benchmark
from egoworld.core.hashing import seeded_rng, sha256_json
from egoworld.core.letters import letters_for
from egoworld.core.model import Generation, Model, ModelError, Request

DEFAULT_INT_RANGE = (0, 20)


def _letter(i: int) -> str:
    return letters_for(i + 1)[i]


def _time_point_text(t: float, x: float, y: float) -> str:
    from egoworld.scoring.timepoint import time_token

    return f"{time_token(t)}; Point=({x:.4f}, {y:.4f})"


def _query_time(sample: Any) -> float:
    """The query time of a Beyond3D sample (its clip end, or the official record's), else the latest candidate."""
    if sample.media.video is not None and sample.media.video.end_s is not None:
        return float(sample.media.video.end_s)
    q = (sample.metadata.get("official") or {}).get("query_time_sec")
    if isinstance(q, int | float):
        return float(q)
    return max(c["time_s"] for c in sample.answer["candidates"])


class RandomModel(Model):
    """Uniform over the presented choices; integers uniform in ``int_range`` (inclusive, default 0–20).

    The draw for (sample, permutation, epoch) comes from ``sha256(seed, sample id, permutation, epoch)``.
    """

    backend = "random"

    def __init__(self, seed: int = 0, int_range: tuple[int, int] = DEFAULT_INT_RANGE):
        if int_range[0] > int_range[1]:
            raise ValueError(f"int_range {int_range} is empty")
        self.seed = seed
        self.int_range = int_range

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": "random",
            "seed": self.seed,
            "int_range": list(self.int_range),
        }

    async def generate(self, request: Request) -> Generation:
        s = request.sample
        rng = seeded_rng(self.seed, s.id, request.permutation, request.epoch)
        if s.answer_type == "choice":
            return Generation(text=_letter(rng.randrange(len(request.choices or ()))))
        if s.answer_type == "integer":
            return Generation(text=str(rng.randint(*self.int_range)))
        if s.answer_type == "number":
            return Generation(text=f"{rng.uniform(*self.int_range):.2f}")
        if s.answer_type == "time_point":  # a time up to the query time, a point anywhere in the image
            end = _query_time(s)
            return Generation(text=_time_point_text(rng.uniform(0.0, end), rng.random(), rng.random()))
        raise ModelError("the random baseline cannot write free-form answers", retryable=False)


class OracleModel(Model):
    """Returns the gold answer in the form the prompt asks for."""

    backend = "oracle"

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": "oracle"}

    async def generate(self, request: Request) -> Generation:
        if request.gold is None:
            raise ModelError(f"sample {request.sample_id} has no gold reply to return", retryable=False)
        return Generation(text=request.gold)


class PriorModel(Model):
    """A constant answer per task, fitted on a split (a benchmark folder).

    Choice tasks: the most frequent gold option *text* of the split when it is among the presented choices,
    otherwise the most frequent gold *position*. Numeric tasks: the split's mode (ties → smaller), or its
    median / mean with ``stat``. Fitted on the benchmark being run, this is the usual "blind frequency" row
    (it sees the test answer distribution, as VSI-Bench's frequency baseline does).
    """

    backend = "prior"

    def __init__(self, split: Benchmark, stat: str = "mode"):
        if stat not in ("mode", "median", "mean"):
            raise ValueError(f"prior stat must be mode, median or mean, not {stat!r}")
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
                    texts.setdefault(s.task, Counter())[s.choices[i].strip().lower()] += 1
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
        s = request.sample
        entry = self.table.get(s.task)
        if entry is None:
            raise ModelError(
                f"the prior has no answer for task {s.task!r} (not in its split)", retryable=False
            )
        if s.answer_type == "choice":
            presented = [c.strip().lower() for c in request.choices or ()]
            if entry["text"] in presented:
                return Generation(text=_letter(presented.index(entry["text"])))
            return Generation(text=_letter(min(entry["position"], len(presented) - 1)))
        if s.answer_type == "integer":
            return Generation(text=str(round(entry["number"])))
        if s.answer_type == "number":
            return Generation(text=f"{entry['number']:g}")
        if s.answer_type == "time_point":
            return Generation(text=_time_point_text(*entry["time_point"]))
        raise ModelError("the prior baseline cannot write free-form answers", retryable=False)
