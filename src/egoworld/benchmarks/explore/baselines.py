"""EXPLORE baselines that bracket real models: ``copy-initial`` here, ``oracle`` through the gold reply.

* ``copy-initial`` describes the initial scene unchanged (it needs ``metadata.initial_scene``, which built
  benchmarks carry; official files have none, so it refuses them by name); it reads the sample by the
  request's sample id in the benchmark being run, and is registered under ``egoworld.backends``;
* ``oracle`` (the generic backend) returns the gold reply the EXPLORE prompt builder and request chains prepare:
  the annotated final scene, or a JSON list of per-step scenes for stepwise single-turn prompts.

Both answer in the format the prompt asks for (one description, or a JSON list of k descriptions).
"""

from __future__ import annotations

import json
from typing import Any

from egoworld.benchmarks.explore.instances import SceneObject
from egoworld.benchmarks.explore.prompts import describe_scene, requested_list_length
from egoworld.core.bench_folder import Benchmark
from egoworld.core.model import Backend, Generation, Model, ModelContext, ModelError, Request, check_options

RENDERER_VERSION = "1"


class CopyInitialModel(Model):
    """Describes the initial scene as if no action had happened."""

    backend = "copy-initial"

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": "copy-initial", "renderer": RENDERER_VERSION}

    async def generate(self, request: Request) -> Generation:
        try:
            sample = self.benchmark.sample(request.sample_id)
        except KeyError:
            raise ModelError(
                f"sample {request.sample_id!r} is not in benchmark {self.benchmark.name!r}", retryable=False
            ) from None
        init = sample.metadata.get("initial_scene")
        if init is None:
            raise ModelError(
                f"sample {request.sample_id} has no initial scene annotation (metadata.initial_scene); "
                "copy-initial needs benchmarks built from worlds",
                retryable=False,
            )
        text = describe_scene([SceneObject.from_json(o, f"sample {request.sample_id}") for o in init])
        k = requested_list_length("\n".join(m.text for m in request.messages))
        if k is not None:
            return Generation(text=json.dumps([text] * k, ensure_ascii=False))
        return Generation(text=text)


def _copy_initial(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    check_options(options, set(), "copy-initial")
    if ctx.benchmark is None:
        raise ValueError("copy-initial: the baseline needs the benchmark being run (ModelContext.benchmark)")
    return CopyInitialModel(ctx.benchmark)


BACKEND = Backend(
    "copy-initial",
    _copy_initial,
    "EXPLORE baseline: describes the initial scene unchanged (needs initial_scene)",
)
