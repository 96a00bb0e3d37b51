"""``--config FILE`` and ``--from RUN_DIR`` added to a run command (the Typer side of
`egoworld.runner.config_file`, which reads, checks and casts the values).

Precedence: the command's defaults < the recorded run (``--from``) < the config file (``--config``) < flags
given on the command line. The command callback gets the options it finally runs with in its
``recorded_command`` parameter and passes them on in ``RunConfig.command`` (run.json's ``command``).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from egoworld.core.folders.files import InputFileError
from egoworld.runner.config_file import (
    RECORDED_PARAM,
    cast,
    load_config_file,
    normalise,
    recorded_config,
    schema,
    to_config,
)

_CTX, _CONFIG, _FROM = "config_file_ctx", "config_file", "config_from_run"
#: where a value counts as given by the user (names of click's ParameterSource, also in Typer's own copy)
_CLI_SOURCES = {"COMMANDLINE", "ENVIRONMENT", "PROMPT"}


def _optional(annotation: Any) -> Any:
    """``Annotated[X, info]`` → ``Annotated[X | None, info]`` (a required option may come from a config)."""
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        return Annotated[(base | None, *meta)]
    return annotation | None


def with_config_file(callback: Callable[..., Any], command_name: str) -> Callable[..., Any]:
    """Wrap a Typer command callback so it also takes ``--config FILE`` and ``--from RUN_DIR``; a callback
    with a ``recorded_command`` parameter gets the options it finally runs with there (``{"name", "config"}``,
    what ``--from`` reads back from run.json)."""
    hints = typing.get_type_hints(callback, include_extras=True)
    original = inspect.signature(callback)
    takes_record = RECORDED_PARAM in original.parameters
    required: list[str] = []
    params: list[inspect.Parameter] = []
    for p in original.parameters.values():
        if p.name == RECORDED_PARAM:
            continue
        annotation, default = hints.get(p.name, p.annotation), p.default
        if default is inspect.Parameter.empty:
            required.append(p.name)
            annotation, default = _optional(annotation), None
        params.append(p.replace(annotation=annotation, default=default, kind=inspect.Parameter.KEYWORD_ONLY))
    keys = schema(callback)
    kw = inspect.Parameter.KEYWORD_ONLY
    params += [
        inspect.Parameter(_CTX, kw, annotation=typer.Context),
        inspect.Parameter(
            _CONFIG,
            kw,
            default=None,
            annotation=Annotated[
                Path | None,
                typer.Option(
                    "--config",
                    help="YAML file of options (keys = this command's option names; flags given here win).",
                ),
            ],
        ),
        inspect.Parameter(
            _FROM,
            kw,
            default=None,
            annotation=Annotated[
                Path | None,
                typer.Option(
                    "--from",
                    help="Re-run a recorded run's exact options (its run.json); flags given here win, "
                    "e.g. --out NEW, --model M.",
                ),
            ],
        ),
    ]

    def wrapper(**kwargs: Any) -> Any:
        ctx: typer.Context = kwargs.pop(_CTX)
        config_path: Path | None = kwargs.pop(_CONFIG)
        from_run: Path | None = kwargs.pop(_FROM)
        try:
            values = resolve(ctx, kwargs, config_path, from_run, command_name, keys)
            missing = [n for n in required if values.get(n) is None]
            if missing:
                flags = ", ".join("--" + n.replace("_", "-") for n in missing)
                raise InputFileError(
                    f"missing {flags}: give it on the command line, in --config or via --from"
                )
        except InputFileError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if takes_record:
            values[RECORDED_PARAM] = {"name": command_name, "config": to_config(values)}
        return callback(**values)

    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    wrapper.__doc__ = callback.__doc__
    wrapper.__name__ = callback.__name__
    wrapper.__module__ = callback.__module__
    return wrapper


def config_options(command_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the command ``command_name`` (e.g. "run") also takes ``--config FILE`` and ``--from RUN_DIR``."""

    def wrap(callback: Callable[..., Any]) -> Callable[..., Any]:
        return with_config_file(callback, command_name)

    return wrap


def resolve(
    ctx: typer.Context,
    given: dict[str, Any],
    config_path: Path | None,
    from_run: Path | None,
    command_name: str,
    keys: dict[str, Any],
) -> dict[str, Any]:
    """Merge defaults < ``--from`` < ``--config`` < command-line flags into the callback's keyword values."""
    layered: dict[str, tuple[Any, str]] = {}
    if from_run is not None:
        where = f"{from_run / 'run.json'} (command.config)"
        for k, v in normalise(recorded_config(from_run, command_name, keys), keys, where).items():
            layered[k] = (v, where)
    if config_path is not None:
        for k, v in normalise(load_config_file(config_path), keys, str(config_path)).items():
            layered[k] = (v, str(config_path))
    values = dict(given)
    for name, (value, where) in layered.items():
        if getattr(ctx.get_parameter_source(name), "name", "") in _CLI_SOURCES:
            continue
        values[name] = cast(value, keys[name], name, where)
    return values
