"""EXPLORE baselines that bracket real models: ``copy-initial`` here, ``oracle`` through the gold reply.

* ``copy-initial`` describes the initial scene unchanged (it needs ``metadata.initial_scene``, which built
  benchmarks carry; official files have none, so it refuses them by name);
* ``oracle`` (the generic backend) returns the gold reply the EXPLORE prompt builder and request chains prepare:
  the annotated final scene, or a JSON list of per-step scenes for stepwise single-turn prompts.

Both answer in the format the prompt asks for (one description, or a JSON list of k descriptions).
"""

from __future__ import annotations

import json
from typing import Any

from egoworld.benchmarks.explore.instances import SceneObject
from egoworld.benchmarks.explore.prompts import describe_scene, requested_list_length
from egoworld.core.model import Generation, Model, ModelError, Request
from egoworld.models.spec import ModelContext, register_backend

RENDERER_VERSION = "1"


class CopyInitialModel(Model):
    """Describes the initial scene as if no action had happened."""

    backend = "copy-initial"

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": "copy-initial", "renderer": RENDERER_VERSION}

    async def generate(self, request: Request) -> Generation:
        init = request.sample.metadata.get("initial_scene")
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
    if options:
        raise ValueError(f"copy-initial: unknown option(s) {sorted(options)} (allowed: none)")
    return CopyInitialModel()


register_backend(
    "copy-initial",
    _copy_initial,
    "EXPLORE baseline: describes the initial scene unchanged (needs initial_scene)",
)
