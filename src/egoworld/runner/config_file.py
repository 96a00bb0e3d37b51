"""Run configs: ``--config run.yaml`` and ``--from RUN_DIR`` for a run command, with a schema read off the
command's own options (the Typer side, which adds the two options to a command, is
`egoworld.commands.config_options`; this module reads and casts, and imports no Typer).

The keys of a config file are the command's option names (``frame_policy`` or ``frame-policy``); every option
a command has is a key, so an option added to ``egoworld run`` is a config key without touching this module.
Precedence: the command's defaults < the recorded run (``--from``) < the config file (``--config``) < flags
given on the command line. Unknown keys are refused, naming the key and the file. The options a run finally
used are recorded in its ``run.json`` as ``command`` ({"name", "config"}) in the same schema, which is what
``--from`` reads back; the command passes them to the runner in ``RunConfig.command``.
"""

from __future__ import annotations

import difflib
import enum
import inspect
import types
import typing
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Annotated, Any

from egoworld.core.folders.files import InputFileError, read_input_text, read_json


def load_config_file(path: Path) -> dict[str, Any]:
    """A YAML (or JSON) mapping of option names to values."""
    import yaml

    text = read_input_text(path, "--config file (YAML or JSON)")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputFileError(f"{path}: not valid YAML ({exc})") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputFileError(
            f"{path}: a run config is a mapping of option names to values, got {type(data).__name__}"
        )
    return data


def recorded_config(run_dir: Path, command: str, keys: Collection[str] = ()) -> dict[str, Any]:
    """The options a run folder was made with (``run.json`` → ``command.config``), with a benchmark's run
    options that an older run recorded as top-level keys (``strategy: stepwise``; ``null`` when not given)
    moved into ``options`` (``["strategy=stepwise"]``); ``keys``: the command's own option names."""
    path = run_dir / "run.json"
    if not path.is_file():
        raise InputFileError(f"--from {run_dir}: no run.json there (is it a run folder?)")
    recorded = read_json(path).get("command")
    if not isinstance(recorded, dict) or not isinstance(recorded.get("config"), dict):
        raise InputFileError(
            f"{path}: holds no recorded command options (runs started from the command line record them); "
            "write a --config file instead"
        )
    if recorded.get("name") != command:
        raise InputFileError(
            f"--from {run_dir}: that run was made by `egoworld {recorded.get('name')}`, not `egoworld {command}`"
        )
    return _older_options(recorded["config"], set(keys))


def _older_options(config: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    older = [k for k in config if k not in keys and k in _run_option_names()] if "options" in keys else []
    if not older or config.get("options"):
        return config
    given = [f"{k}={json_scalar(config[k])}" for k in older if config[k] is not None]
    out = {k: v for k, v in config.items() if k not in older}
    return {**out, "options": given} if given else out


#: a command callback's parameter that is no option: the command's recorded options are passed in it
RECORDED_PARAM = "recorded_command"


def schema(callback: Callable[..., Any]) -> dict[str, Any]:
    """Config keys of a command: its callback's parameters (option names in Python spelling) → annotation;
    the command-line context and `RECORDED_PARAM` are no keys."""
    hints = typing.get_type_hints(callback, include_extras=True)
    return {
        name: hints.get(name, p.annotation)
        for name, p in inspect.signature(callback).parameters.items()
        if name != RECORDED_PARAM and not _is_context(base_type(hints.get(name, p.annotation)))
    }


def _is_context(kind: Any) -> bool:
    """A click (or Typer) ``Context`` parameter, told by its class's ancestry without importing either."""
    return isinstance(kind, type) and any(
        c.__name__ == "Context" and c.__module__.split(".")[0] == "click" for c in kind.__mro__
    )


def normalise(data: dict[str, Any], keys: dict[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in data.items():
        key = str(raw_key).replace("-", "_")
        if key not in keys:
            close = difflib.get_close_matches(key, list(keys), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            if "options" in keys and key in _run_option_names():
                hint = f"; a benchmark's run option goes under 'options:' ({{{key}: …}}, or --option {key}=…)"
            raise InputFileError(
                f"{where}: unknown key {raw_key!r}{hint} (keys are the command's options: {', '.join(keys)})"
            )
        out[key] = value
    return out


def _run_option_names() -> set[str]:
    """The run options every installed benchmark declares (for the hint on a top-level key that is one)."""
    from egoworld.core import registry
    from egoworld.core.plugin import plugin_for

    names: set[str] = set()
    for bench in registry.names(registry.BENCHMARKS):
        try:
            names |= {o.name for o in plugin_for(bench).run_options}
        except registry.RegistryError:
            continue
    return names


def _scalar(value: Any, kind: Any, key: str, where: str) -> Any:
    def bad(expected: str) -> InputFileError:
        return InputFileError(f"{where}: key {key!r}: expected {expected}, got {value!r}")

    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "on", "1"):
            return True
        if text in ("false", "no", "off", "0"):
            return False
        raise bad("true or false")
    if kind is int:
        if isinstance(value, bool):
            raise bad("an integer")
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise bad("an integer") from None
    if kind is float:
        if isinstance(value, bool):
            raise bad("a number")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad("a number") from None
    if isinstance(value, dict | list | tuple):
        raise bad("a single value")
    if isinstance(kind, type) and issubclass(kind, enum.Enum):  # Typer choices
        try:
            return kind(json_scalar(value))
        except ValueError:
            raise bad("one of " + ", ".join(str(m.value) for m in kind)) from None
    text = value if isinstance(value, str) else json_scalar(value)
    return Path(text) if kind is Path else text


def json_scalar(value: Any) -> str:
    """A YAML scalar written back as the command line would give it (True → true, 3 → 3)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def cast(value: Any, annotation: Any, key: str, where: str) -> Any:
    """A config value as the command's parameter of type ``annotation`` takes it."""
    if value is None:
        return None
    kind = base_type(annotation)
    if _is_list(annotation):
        if isinstance(value, dict):  # model_arg: {stop: "</s>"} → ["stop=</s>"]
            value = [f"{k}={json_scalar(v)}" for k, v in value.items()]
        elif not isinstance(value, list | tuple):
            value = [value]
        return [_scalar(v, kind, key, where) for v in value]
    if isinstance(value, list | tuple) and kind is str:
        value = ",".join(json_scalar(v) for v in value)  # tasks: [VMR, VOC] → "VMR,VOC"
    return _scalar(value, kind, key, where)


def to_config(values: dict[str, Any]) -> dict[str, Any]:
    """Option values in the config schema (JSON-ready)."""

    def plain(v: Any) -> Any:
        if isinstance(v, Path):
            return str(v)
        if isinstance(v, enum.Enum):
            return v.value
        if isinstance(v, list | tuple):
            return [plain(x) for x in v]
        return v

    return {k: plain(v) for k, v in values.items()}


def _strip(annotation: Any) -> Any:
    """``Annotated[X | None, …]`` → ``X``."""
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            annotation = args[0]
    return annotation


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(_strip(annotation)) in (list, tuple)


def base_type(annotation: Any) -> Any:
    annotation = _strip(annotation)
    if typing.get_origin(annotation) in (list, tuple):
        annotation = typing.get_args(annotation)[0]
    return annotation
