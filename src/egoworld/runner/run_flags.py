"""A `RunConfig` from ``egoworld run``'s flags: the model arguments (``--model-arg`` items plus the
dedicated flags) and the comma-separated ``--tasks``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from egoworld.core.run_config import RunConfig
from egoworld.models.spec import model_args_with_flags


def task_list(tasks: str | None) -> list[str] | None:
    """``--tasks a,b`` as a list (blank items dropped); None when not given."""
    return [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None


def run_config_from_flags(
    *,
    bench: Path,
    model: str,
    out: Path,
    model_arg: list[str] | None,
    base_url: str | None,
    max_tokens: int | None,
    temperature: float | None,
    timeout: float | None,
    api_key_env: str | None,
    tasks: str | None,
    **settings: Any,
) -> RunConfig:
    """The run of these flags; ``settings``: other `RunConfig` fields (``options``: the benchmark's run
    options, already parsed; ``command``: the command line recorded in run.json)."""
    args = model_args_with_flags(
        model_arg,
        base_url=base_url,
        max_tokens=max_tokens,
        temperature=temperature,
        timeout=timeout,
        api_key_env=api_key_env,
    )
    return RunConfig(bench=bench, model=model, out=out, model_args=args, tasks=task_list(tasks), **settings)
