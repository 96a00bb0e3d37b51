"""EXPLORE's plan of a run (the plug-in's ``plan_requests`` hook): a strategy turns each sample into a chain
of requests that `egoworld run` sends (`egoworld.runner.chain_runner`).

* ``one-go``: one request (label ``one-go``) with every action;
* ``stepwise`` + ``single`` turn: one request (label ``list``) that asks for a JSON list of scenes;
* ``stepwise`` + ``multi`` turn: one request per segment (``turn-001`` …); turn k quotes turn k−1's reply and
  re-sends the initial image, so its request key covers that reply.

The run options (`RUN_OPTIONS`, given as ``egoworld run --option NAME=VALUE`` and read from
``RunConfig.options``) are ``strategy``, ``segment_num``, ``window_size``, ``turns``, ``subset`` and ``protocol`` (``official``: the prompt text before the image, as the official API clients send it); the setting is ``image`` (the initial scene image) or ``text``. A run given none of them in the
text setting is left to the standard runner (the one-go prompt, one request per sample and epoch), as
`egoworld run` always did, so older run folders resume.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from egoworld.benchmarks.explore.images import image_part
from egoworld.benchmarks.explore.instances import Instance, Scene, instance_from_sample
from egoworld.benchmarks.explore.prompts import (
    describe_scene,
    describe_scene_list,
    next_turn_prompt,
    one_go_prompt,
    single_turn_prompt,
)
from egoworld.benchmarks.explore.selection import SUBSETS, select_explore_samples
from egoworld.benchmarks.explore.strategy import Strategy, clean_reply, step_labels
from egoworld.core.chains import Chain, ChainPlan, Step
from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import InputFileError, read_json_object
from egoworld.core.input_protocol import PROTOCOL, Inputs, MediaSource, protocol_of
from egoworld.core.model import Part, TextPart
from egoworld.core.plugin import PROTOCOL_OPTION, RunOption
from egoworld.core.run_config import RUN_MANIFEST, RunConfig
from egoworld.core.schema import Sample

SETTINGS = ("image", "text")
#: the run options EXPLORE takes (``egoworld run --option NAME=VALUE``, ``RunConfig.options``)
RUN_OPTIONS = (
    RunOption("strategy", str, "one-go", "inference strategy", ("one-go", "stepwise")),
    RunOption("segment_num", int, None, "stepwise: number of equal segments (at least 2)"),
    RunOption("window_size", int, None, "stepwise: actions per window (at least 1)"),
    RunOption(
        "turns", str, "single", "stepwise: one JSON-list reply | one turn per step", ("single", "multi")
    ),
    RunOption("subset", str, "full", "samples to run", SUBSETS),
    PROTOCOL_OPTION,
)
OPTIONS = tuple(o.name for o in RUN_OPTIONS)
_DEFAULTS = {o.name: o.default for o in RUN_OPTIONS}
#: the executor name run.json has recorded for EXPLORE's chained runs since they had a driver of their own
EXECUTOR = "explore-driver"


def strategy_of(options: dict[str, Any]) -> tuple[Strategy, str]:
    """The strategy and subset that run options ask for (the defaults of `RUN_OPTIONS`: one-go, full)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"EXPLORE run options {unknown}: expected some of {', '.join(OPTIONS)}")
    given = {**_DEFAULTS, **{k: v for k, v in options.items() if v is not None}}
    strategy = Strategy(
        kind=given["strategy"] or _DEFAULTS["strategy"],
        segment_num=given["segment_num"],
        window_size=given["window_size"],
        turns=given["turns"] or _DEFAULTS["turns"],
    )
    return strategy, str(given["subset"] or _DEFAULTS["subset"])


def _scene_after(inst: Instance, n: int) -> Scene | None:
    """The annotated scene after ``n`` actions, or the final scene when that step is not annotated."""
    if inst.final is None:
        return None
    if n == 0 and inst.initial is not None:
        return inst.initial
    for m in inst.middle:
        if m.after_action == n:
            return m
    return inst.final


def gold_replies(inst: Instance, strategy: Strategy) -> list[str | None]:
    """The oracle's reply for each step (the annotated scenes in the form each prompt asks for)."""
    if inst.final is None:
        return [None] * len(step_labels(strategy, inst.actions_text))
    if strategy.kind == "one-go":
        return [describe_scene(inst.final.objects)]
    scenes = [_scene_after(inst, n) for n in strategy.step_ends(inst.actions_text)]
    objs = [s.objects if s is not None else () for s in scenes]
    if strategy.turns == "single":
        return [describe_scene_list(objs)]
    return [describe_scene(o) for o in objs]


def check_images(bench: Benchmark, samples: list[Sample]) -> None:
    """One error listing every sample without an initial image file (the image setting needs them)."""
    missing = []
    for s in samples:
        path = bench.resolve(s.media.images[0].path) if s.media.images else None
        if path is None or not path.is_file():
            missing.append(f"{s.id}: {path or 'no image in the sample'}")
    if missing:
        shown = "\n  ".join(missing[:10]) + (
            f"\n  … and {len(missing) - 10} more" if len(missing) > 10 else ""
        )
        raise InputFileError(
            f"setting 'image': {len(missing)} sample(s) lack their initial image (paths relative to "
            f"{bench.root}):\n  {shown}\nfix: `egoworld import explore-anno FILE --images DIR`, or run with "
            "--setting text"
        )


def step_text(strategy: Strategy, step: int, segments: list[str], actions: str, previous: str | None) -> str:
    """Step ``step``'s prompt text; ``previous`` is the previous turn's raw reply (multi-turn only)."""
    if strategy.kind == "one-go":
        return one_go_prompt(actions)
    if strategy.turns == "single":
        return single_turn_prompt(segments)
    if step == 0:
        return one_go_prompt(segments[0])
    return next_turn_prompt(clean_reply(previous or ""), segments[step])


def sample_chain(
    bench: Benchmark, sample: Sample, strategy: Strategy, setting: str, protocol: str = "egoworld"
) -> Chain:
    """A sample's requests under ``strategy`` (reads the initial image's hash in the image setting); under
    the ``official`` protocol the text goes before the image, as the official API clients send it."""
    inst = instance_from_sample(sample)
    segments = strategy.segments(sample.question)
    golds = gold_replies(inst, strategy)
    image: tuple[Part, ...] = ()
    if setting == "image":
        image = (image_part(bench.resolve(inst.image or "")),)

    def prompt(step: int) -> Callable[[str | None], tuple[Part, ...]]:
        def parts(previous: str | None) -> tuple[Part, ...]:
            text = TextPart(step_text(strategy, step, segments, sample.question, previous))
            return (text, *image) if protocol == "official" else (*image, text)

        return parts

    labels = step_labels(strategy, sample.question)
    return Chain(sample, tuple(Step(lab, prompt(i), golds[i]) for i, lab in enumerate(labels)))


def _check_same_strategy(cfg: RunConfig, strategy: Strategy) -> None:
    path = Path(cfg.out) / RUN_MANIFEST
    if path.is_file():
        old = read_json_object(path).get("explore", {}).get("strategy")
        if old != strategy.describe():
            raise InputFileError(
                f"{path}: this folder holds a run with strategy {old!r}; use a new --out folder "
                f"for strategy {strategy.describe()!r}"
            )


def _check_plain(cfg: RunConfig) -> None:
    """Options of the standard plan that EXPLORE's strategies do not take."""
    given = {
        "--permutations": cfg.permutations != "none",
        "--epochs": cfg.epochs != 1,
        "--history": cfg.history != "none",
        "--per-task": cfg.per_task is not None,
        "--executor": cfg.executor != "local",
    }
    if any(given.values()):
        flags = ", ".join(f for f, on in given.items() if on)
        raise ValueError(f"EXPLORE strategies run one epoch in-process without option orders: drop {flags}")


def plan_requests(bench: Benchmark, cfg: RunConfig) -> ChainPlan | None:
    """The plug-in hook: the run's chains, or None (text setting, no EXPLORE option) for the standard plan."""
    protocol = protocol_of(cfg.options)
    if not set(cfg.options) - {PROTOCOL} and cfg.setting != "image":
        return None  # (the text setting's inputs are the same under both protocols)
    strategy, subset = strategy_of(cfg.options)
    if cfg.setting not in SETTINGS:
        raise ValueError(f"--setting {cfg.setting!r}: expected one of {', '.join(SETTINGS)}")
    _check_plain(cfg)
    samples = select_explore_samples(bench, subset=subset, tasks=cfg.tasks, limit=cfg.limit)
    if not samples:
        raise ValueError("no samples selected (check --option subset=… / --tasks / --limit)")
    if cfg.setting == "image":
        check_images(bench, samples)
    _check_same_strategy(cfg, strategy)
    inputs = {"setting": cfg.setting, "explore": strategy.describe()}
    if protocol != "egoworld":
        inputs[PROTOCOL] = protocol
    selection = {"subset": subset, "tasks": cfg.tasks, "limit": cfg.limit}
    manifest = {
        "inputs": inputs,
        "permutations": "none",
        "seed": cfg.seed,
        "epochs": 1,
        "history": "none",
        "selection": selection,
        "executor": EXECUTOR,
        "config": {
            "tasks": cfg.tasks,
            "limit": cfg.limit,
            "per_task": None,
            "epochs": 1,
            "seed": cfg.seed,
            "concurrency": cfg.concurrency,
            "model_args": cfg.model_args,
        },
        "explore": {"strategy": strategy.describe(), "selection": selection},
    }
    return ChainPlan(
        samples=samples,
        chain=lambda s: sample_chain(bench, s, strategy, cfg.setting, protocol),
        inputs=inputs,
        manifest=manifest,
        label=strategy.label,
    )


def official_inputs(bench: Benchmark, sample: Sample, text: str, setting: str, media: MediaSource) -> Inputs:
    """The plug-in hook for the standard plan (the text setting): the official text-only input is egoworld's
    prompt alone (the image setting always runs through `plan_requests`)."""
    if setting != "text":
        raise ValueError(f"EXPLORE's {setting!r} setting runs through its own plan, not the standard one")
    return Inputs((), text)
