"""The ``openai`` and ``hf`` backends as registered under ``egoworld.backends`` (pyproject.toml): their
options (``--model-arg key=value``) turned into constructor arguments. The model classes are imported when
a model is made, so listing the backends stays cheap."""

from __future__ import annotations

import json
from typing import Any

from egoworld.core.model import Backend, Model, ModelContext, check_options

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
_HF_KEYS = {
    "dtype",
    "device",
    "max_new_tokens",
    "max_tokens",
    "batch_size",
    "temperature",
    "revision",
    "processor",
    "trust_remote_code",
}


def _openai(name: str, options: dict[str, str], ctx: ModelContext) -> Model:
    from egoworld.models.openai_compat import OpenAICompatModel

    opts = check_options(options, _OPENAI_KEYS, "openai")
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

    opts = check_options(options, _HF_KEYS, "hf")
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


OPENAI = Backend(
    "openai",
    _openai,
    "openai:<model> — any OpenAI-compatible server (base_url=…, api key from $OPENAI_API_KEY)",
)
HF = Backend("hf", _hf, "hf:<folder or hub id> — transformers in-process (dtype=, device=, batch_size=)")
