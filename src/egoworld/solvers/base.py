"""`Solver`: a backend that answers from the sample it looks up by the request's sample id."""

from __future__ import annotations

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.model import Model, ModelContext, ModelError, Request
from egoworld.core.schema import Sample


class Solver(Model):
    """A `Model` that reads the benchmark being run (the one of its `ModelContext`)."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark

    def sample(self, request: Request) -> Sample:
        try:
            return self.benchmark.sample(request.sample_id)
        except KeyError:
            raise ModelError(
                f"sample {request.sample_id!r} is not in benchmark {self.benchmark.name!r}", retryable=False
            ) from None


def run_benchmark_of(ctx: ModelContext, backend: str) -> Benchmark:
    """The benchmark a solver answers from; a ValueError when the context has none."""
    if ctx.benchmark is None:
        raise ValueError(f"{backend}: the baseline needs the benchmark being run (ModelContext.benchmark)")
    return ctx.benchmark
