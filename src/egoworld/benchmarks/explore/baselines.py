"""EXPLORE baselines that bracket real models: ``copy-initial`` here, ``oracle`` through the gold reply.

* ``copy-initial`` describes the initial scene unchanged (it needs ``metadata.initial_scene``, which built
  benchmarks carry; official files have none, so it refuses them by name); it reads the sample by the
  request's sample id in the benchmark being run, and is registered under ``egoworld.backends``;
* ``oracle`` (the generic backend) returns the gold reply the EXPLORE prompt builder and request chains prepare:
  the annotated final scene, or a JSON list of per-step scenes for stepwise single-turn prompts.

* ``replay`` reads what a model is given — the initial scene's annotation (``metadata.initial_scene``) and the
  action list (the sample's question; for stepwise single-turn prompts the segments of the prompt) — runs it
  through the simulator's own state machine (`egoworld.sim.actions_replay`) and describes the result: the proof
  that the final scene follows from the inputs. An action it cannot read fails the request by name.

All answer in the format the prompt asks for (one description, or a JSON list of k descriptions).
"""

from __future__ import annotations

import json
import re
from typing import Any

from egoworld.benchmarks.explore.instances import SceneObject, split_actions
from egoworld.benchmarks.explore.prompts import describe_scene, requested_list_length
from egoworld.core.bench_folder import Benchmark
from egoworld.core.model import Backend, Generation, Model, ModelContext, ModelError, Request, check_options

RENDERER_VERSION = "1"


def _initial(benchmark: Benchmark, request: Request, who: str) -> tuple[Any, list[dict[str, Any]]]:
    try:
        sample = benchmark.sample(request.sample_id)
    except KeyError:
        raise ModelError(
            f"sample {request.sample_id!r} is not in benchmark {benchmark.name!r}", retryable=False
        ) from None
    init = sample.metadata.get("initial_scene")
    if init is None:
        raise ModelError(
            f"sample {request.sample_id} has no initial scene annotation (metadata.initial_scene); "
            f"{who} needs benchmarks built from worlds",
            retryable=False,
        )
    return sample, init


class CopyInitialModel(Model):
    """Describes the initial scene as if no action had happened."""

    backend = "copy-initial"

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": "copy-initial", "renderer": RENDERER_VERSION}

    async def generate(self, request: Request) -> Generation:
        _, init = _initial(self.benchmark, request, "copy-initial")
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


class ReplayModel(Model):
    """Replays the action list from the initial scene with the simulator's state machine."""

    backend = "replay"

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": "replay", "renderer": RENDERER_VERSION}

    async def generate(self, request: Request) -> Generation:
        from egoworld.sim.actions_replay import ReplayError, replay, visible_objects

        sample, init = _initial(self.benchmark, request, "replay")
        prompt = "\n".join(m.text for m in request.messages)
        k = requested_list_length(prompt)
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
        if k is not None:
            scenes = scenes if len(scenes) == k else [scenes[-1]] * k
            return Generation(text=json.dumps(scenes, ensure_ascii=False))
        return Generation(text=scenes[-1])


def _replay(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    check_options(options, set(), "replay")
    if ctx.benchmark is None:
        raise ValueError("replay: the baseline needs the benchmark being run (ModelContext.benchmark)")
    return ReplayModel(ctx.benchmark)


REPLAY = Backend(
    "replay",
    _replay,
    "EXPLORE baseline: replays the actions from the initial scene with the simulator's state machine",
)
