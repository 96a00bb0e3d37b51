"""EXPLORE baselines that bracket real models: ``copy-initial`` here, ``oracle`` through the gold reply.

* ``copy-initial`` describes the initial scene unchanged (it needs ``metadata.initial_scene``, which built
  benchmarks carry; official files have none, so it refuses them by name); it reads the sample by the
  request's sample id in the benchmark being run, and is registered under ``egoworld.backends``;
* ``oracle`` (the generic backend) returns the gold reply the EXPLORE prompt builder and request chains prepare:
  the annotated final scene, or a JSON list of per-step scenes for stepwise single-turn prompts.

* ``replay`` reads what a model is given — the initial scene's annotation (``metadata.initial_scene``) and the
  action list (the sample's question; for stepwise single-turn prompts the segments of the prompt) — runs it
  through the simulator's own state machine (`egoworld.sim.actions.replay`) and describes the result: the proof
  that the final scene follows from the inputs. An action it cannot read fails the request by name.

All answer in the format the prompt asks for (one description, or a JSON list of k descriptions).
"""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from typing import Any

from egoworld.benchmarks.explore.instances import SceneObject, split_actions
from egoworld.benchmarks.explore.prompts import describe_scene, requested_list_length
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.model import Backend, Generation, Model, ModelContext, ModelError, Request, check_options

RENDERER_VERSION = "1"


class SceneBaseline(Model):
    """A baseline that answers from a built sample's initial scene: ``scenes`` gives the description after
    each step asked for (one, or one per segment of a stepwise single-turn prompt)."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.backend, "renderer": RENDERER_VERSION}

    @abstractmethod
    def scenes(self, request: Request, sample: Any, init: list[dict[str, Any]], k: int | None) -> list[str]:
        """The scene descriptions, one per step (``k``: the list length the prompt asks for, if any)."""

    async def generate(self, request: Request) -> Generation:
        sample, init = self._initial(request)
        k = requested_list_length("\n".join(m.text for m in request.messages))
        scenes = self.scenes(request, sample, init, k)
        if k is not None:
            scenes = scenes if len(scenes) == k else [scenes[-1]] * k
            return Generation(text=json.dumps(scenes, ensure_ascii=False))
        return Generation(text=scenes[-1])

    def _initial(self, request: Request) -> tuple[Any, list[dict[str, Any]]]:
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
                f"{self.backend} needs benchmarks built from worlds",
                retryable=False,
            )
        return sample, init


def baseline_backend(model: type[SceneBaseline], summary: str) -> Backend:
    """The ``egoworld.backends`` entry of a baseline: no options; it needs the benchmark being run."""

    def factory(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
        check_options(options, set(), model.backend)
        if ctx.benchmark is None:
            raise ValueError(
                f"{model.backend}: the baseline needs the benchmark being run (ModelContext.benchmark)"
            )
        return model(ctx.benchmark)

    return Backend(model.backend, factory, summary)


class CopyInitialModel(SceneBaseline):
    """Describes the initial scene as if no action had happened."""

    backend = "copy-initial"

    def scenes(self, request: Request, sample: Any, init: list[dict[str, Any]], k: int | None) -> list[str]:
        return [describe_scene([SceneObject.from_json(o, f"sample {request.sample_id}") for o in init])]


class ReplayModel(SceneBaseline):
    """Replays the action list from the initial scene with the simulator's state machine."""

    backend = "replay"

    def scenes(self, request: Request, sample: Any, init: list[dict[str, Any]], k: int | None) -> list[str]:
        from egoworld.sim.actions.replay import ReplayError, replay, visible_objects

        prompt = "\n".join(m.text for m in request.messages)
        segments = [split_actions(s) for s in re.findall(r"^Segment \d+: (.*)$", prompt, re.M)]
        if k is None or len(segments) != k:
            segments = [split_actions(sample.question)]
        scenes = []
        try:
            r = replay(init, [])
            for seg in segments:
                for action in seg:
                    r.apply(action)
                objs = visible_objects(r.graph(), touched_only=True)
                scenes.append(describe_scene([SceneObject.from_json(o, "replay") for o in objs]))
        except ReplayError as e:
            raise ModelError(f"sample {request.sample_id}: replay: {e}", retryable=False) from None
        return scenes


BACKEND = baseline_backend(
    CopyInitialModel, "EXPLORE baseline: describes the initial scene unchanged (needs initial_scene)"
)
REPLAY = baseline_backend(
    ReplayModel,
    "EXPLORE baseline: replays the actions from the initial scene with the simulator's state machine",
)
