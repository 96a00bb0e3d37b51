"""The ``oracle`` baseline: the gold reply, so a run with it checks the whole pipeline: 100 under exact scoring;
under a judge (EXPLORE) its score is that judge's ceiling on gold text, below 100 for an imperfect judge."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.model import Backend, Generation, Model, ModelContext, ModelError, Request, check_options
from egoworld.core.plugin import plugin_for
from egoworld.solvers.base import Solver, run_benchmark_of


class OracleModel(Solver):
    """Returns the gold answer in the form the prompt asks for: the benchmark's prompt builder's gold reply
    for the presented order, or ``gold_reply(request)`` when the code that planned the request gives one."""

    backend = "oracle"

    def __init__(self, benchmark: Benchmark, gold_reply: Callable[[Request], str | None] | None = None):
        super().__init__(benchmark)
        self.prompt = plugin_for(benchmark.name).prompt
        self.gold_reply = gold_reply

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": "oracle"}

    def gold(self, request: Request) -> str | None:
        if self.gold_reply is not None:
            return self.gold_reply(request)
        return self.prompt.gold_reply(self.sample(request), request.permutation)

    async def generate(self, request: Request) -> Generation:
        gold = self.gold(request)
        if gold is None:
            raise ModelError(f"sample {request.sample_id} has no gold reply to return", retryable=False)
        return Generation(text=gold)


def _create(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    check_options(options, set(), "oracle")
    return OracleModel(run_benchmark_of(ctx, "oracle"), gold_reply=ctx.gold_reply)


BACKEND = Backend(
    "oracle", _create, "returns the gold answer (100 under exact scoring; under a judge, the judge's ceiling)"
)
