"""Create a model from a spec string: ``random``, ``prior``, ``oracle``, ``openai:<model name>``.

Backend options come as ``key=value`` strings (``--model-arg``); unknown keys are refused by name.
Other packages add backends with `register_backend`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from egoworld.core.bench_folder import Benchmark, load_benchmark
from egoworld.core.model import Model
from egoworld.models.baselines import DEFAULT_INT_RANGE, OracleModel, PriorModel, RandomModel

Factory = Callable[[str, dict[str, str], "ModelContext"], Model]
_BACKENDS: dict[str, tuple[Factory, str]] = {}


class ModelContext:
    """What a factory may need besides its options: the benchmark being run and run-level settings."""

    def __init__(self, benchmark: Benchmark | None = None, seed: int = 0, concurrency: int = 8):
        self.benchmark = benchmark
        self.seed = seed
        self.concurrency = concurrency


def register_backend(name: str, factory: Factory, help: str) -> None:
    _BACKENDS[name] = (factory, help)


def available_backends() -> dict[str, str]:
    return {name: help for name, (_, help) in sorted(_BACKENDS.items())}


def parse_model_args(items: list[str] | None) -> dict[str, str]:
    """``["k=v", …]`` → dict; one item may hold several pairs (``"a=1 b=2"``); a malformed item raises with
    the fix. A JSON value (``extra_body={"a": 1}``) is kept whole."""
    out: dict[str, str] = {}
    for item in items or []:
        pairs = [item] if item.partition("=")[2].lstrip()[:1] in ("{", "[") else item.split()
        for pair in pairs or [item]:
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise ValueError(
                    f"--model-arg {item!r}: expected key=value (e.g. --model-arg max_tokens=512)"
                )
            out[key.strip()] = value
    return out


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``openai:M,base_url=URL,max_tokens=64`` → (``openai:M``, options): the judge spec's form, accepted
    by ``--model`` too, so one spelling works everywhere."""
    head, *pairs = spec.split(",")
    opts: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"model spec {spec!r}: {pair!r} is not key=value (openai:<model>[,key=value,…])")
        opts[key.strip()] = value.strip()
    return head.strip(), opts


def model_args_with_flags(items: list[str] | None, **flags: object) -> dict[str, str]:
    """``--model-arg k=v`` items plus the dedicated flags that were given (``--base-url`` …, None = not given)."""
    args = parse_model_args(items)
    for key, value in flags.items():
        if value is not None:
            args[key] = str(value)
    return args


def create_model(
    spec: str, options: dict[str, str] | None = None, context: ModelContext | None = None
) -> Model:
    spec, spec_opts = split_spec(spec)
    options = dict(options or {})
    for key, value in spec_opts.items():
        if key in options and options[key] != value:
            raise ValueError(f"{key} given twice: {value!r} in the model spec and {options[key]!r} as a flag")
        options[key] = value
    backend, _, name = spec.partition(":")
    if backend not in _BACKENDS:
        known = ", ".join(sorted(_BACKENDS))
        raise ValueError(f"unknown model backend {backend!r} in {spec!r} (known: {known})")
    factory, _ = _BACKENDS[backend]
    return factory(name, dict(options or {}), context or ModelContext())


def _take(options: dict[str, str], allowed: set[str], spec: str) -> dict[str, str]:
    unknown = set(options) - allowed
    if unknown:
        raise ValueError(
            f"{spec}: unknown option(s) {sorted(unknown)} (allowed: {sorted(allowed) or 'none'})"
        )
    return options


def _parse_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.replace("..", "-").partition("-")
    if not sep:
        raise ValueError(f"int_range {text!r}: expected LOW-HIGH, e.g. 0-20")
    return int(lo), int(hi)


def _random(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    opts = _take(options, {"seed", "int_range"}, "random")
    seed = int(opts.get("seed", ctx.seed))
    rng = _parse_range(opts["int_range"]) if "int_range" in opts else DEFAULT_INT_RANGE
    return RandomModel(seed=seed, int_range=rng)


def _prior(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    opts = _take(options, {"split", "stat"}, "prior")
    if "split" in opts:
        split = load_benchmark(opts["split"])
    elif ctx.benchmark is not None:
        split = ctx.benchmark
    else:
        raise ValueError("prior: pass split=DIR (the benchmark to take answer frequencies from)")
    return PriorModel(split, stat=opts.get("stat", "mode"))


def _oracle(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    _take(options, set(), "oracle")
    return OracleModel()


_OPENAI_KEYS = {
    "base_url",
    "api_key_env",
    "revision",
    "max_tokens",
    "temperature",
    "top_p",
    "seed",
    "stop",
    "extra_body",
    "timeout",
    "max_retries",
    "backoff",
    "max_backoff",
}


def _openai(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    from egoworld.models.openai_compat import OpenAICompatModel

    opts = _take(options, _OPENAI_KEYS, "openai")
    kwargs: dict[str, Any] = {"concurrency": ctx.concurrency}
    for key in ("base_url", "api_key_env", "revision"):
        if key in opts:
            kwargs[key] = opts[key]
    for key in ("max_tokens", "max_retries", "seed"):
        if key in opts:
            kwargs[key] = int(opts[key])
    for key in ("temperature", "top_p", "timeout", "backoff", "max_backoff"):
        if key in opts:
            kwargs[key] = float(opts[key])
    if "stop" in opts:
        kwargs["stop"] = [s for s in opts["stop"].split("|") if s]
    if "extra_body" in opts:
        kwargs["extra_body"] = json.loads(opts["extra_body"])
    return OpenAICompatModel(name, **kwargs)


def _hf(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    from egoworld.models.hf import HFModel

    opts = _take(
        options,
        {
            "dtype",
            "device",
            "max_new_tokens",
            "max_tokens",
            "batch_size",
            "temperature",
            "revision",
            "processor",
            "trust_remote_code",
        },
        "hf",
    )
    kwargs: dict[str, Any] = {k: opts[k] for k in ("dtype", "device", "revision", "processor") if k in opts}
    if "max_new_tokens" in opts or "max_tokens" in opts:
        kwargs["max_new_tokens"] = int(opts.get("max_new_tokens", opts.get("max_tokens", "256")))
    if "batch_size" in opts:
        kwargs["batch_size"] = int(opts["batch_size"])
    if "temperature" in opts:
        kwargs["temperature"] = float(opts["temperature"])
    if "trust_remote_code" in opts:
        kwargs["trust_remote_code"] = opts["trust_remote_code"].lower() in ("1", "true", "yes")
    return HFModel(name, **kwargs)


register_backend("random", _random, "uniform over choices; integers in int_range (default 0-20); seed=S")
register_backend(
    "prior", _prior, "constant answer per task fitted on split=DIR (default: the run's benchmark)"
)
register_backend("oracle", _oracle, "returns the gold answer (a run must score 100)")
register_backend(
    "openai",
    _openai,
    "openai:<model> — any OpenAI-compatible server (base_url=…, api key from $OPENAI_API_KEY)",
)
register_backend("hf", _hf, "hf:<folder or hub id> — transformers in-process (dtype=, device=, batch_size=)")
