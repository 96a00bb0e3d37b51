"""The ``random`` baseline: the chance row (uniform over the presented choices, seeded)."""

from __future__ import annotations

from typing import Any

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.model import Backend, Generation, Model, ModelContext, ModelError, Request, check_options
from egoworld.core.plugin import plugin_for
from egoworld.core.schema import Sample
from egoworld.solvers.base import Solver, run_benchmark_of
from egoworld.solvers.replies import letter, time_point_text

DEFAULT_INT_RANGE = (0, 20)


def default_query_time(sample: Sample) -> float:
    """The clip end, else the latest gold candidate (for a plug-in without a ``query_time`` hook)."""
    if sample.media.video is not None and sample.media.video.end_s is not None:
        return float(sample.media.video.end_s)
    return float(max(c["time_s"] for c in sample.answer["candidates"]))


class RandomModel(Solver):
    """Uniform over the presented choices; integers uniform in ``int_range`` (inclusive, default 0–20).

    The draw for (sample, permutation, epoch) comes from ``sha256(seed, sample id, permutation, epoch)``.
    """

    backend = "random"

    def __init__(self, benchmark: Benchmark, seed: int = 0, int_range: tuple[int, int] = DEFAULT_INT_RANGE):
        if int_range[0] > int_range[1]:
            raise ValueError(f"int_range {int_range} is empty")
        super().__init__(benchmark)
        self.seed = seed
        self.int_range = int_range
        self.query_time = plugin_for(benchmark.name).query_time or default_query_time

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": "random",
            "seed": self.seed,
            "int_range": list(self.int_range),
        }

    async def generate(self, request: Request) -> Generation:
        s = self.sample(request)
        rng = seeded_rng(self.seed, s.id, request.permutation, request.epoch)
        if s.answer_type == "choice":
            return Generation(text=letter(rng.randrange(len(request.choices or ()))))
        if s.answer_type == "integer":
            return Generation(text=str(rng.randint(*self.int_range)))
        if s.answer_type == "number":
            return Generation(text=f"{rng.uniform(*self.int_range):.2f}")
        if s.answer_type == "time_point":  # a time up to the query time, a point anywhere in the image
            end = self.query_time(s)
            return Generation(text=time_point_text(rng.uniform(0.0, end), rng.random(), rng.random()))
        raise ModelError("the random baseline cannot write free-form answers", retryable=False)


def _parse_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.replace("..", "-").partition("-")
    if not sep:
        raise ValueError(f"int_range {text!r}: expected LOW-HIGH, e.g. 0-20")
    return int(lo), int(hi)


def _create(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    opts = check_options(options, {"seed", "int_range"}, "random")
    seed = int(opts.get("seed", ctx.seed))
    rng = _parse_range(opts["int_range"]) if "int_range" in opts else DEFAULT_INT_RANGE
    return RandomModel(run_benchmark_of(ctx, "random"), seed=seed, int_range=rng)


BACKEND = Backend("random", _create, "uniform over choices; integers in int_range (default 0-20); seed=S")
