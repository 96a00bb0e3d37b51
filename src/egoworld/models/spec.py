"""Create a model from a spec string: ``random``, ``prior``, ``oracle``, ``openai:<model name>``, ``hf:<path>``.

A spec's backend is a name registered under the ``egoworld.backends`` entry-point group
(`egoworld.core.registry`; egoworld's own are in its pyproject.toml), whose value is a `Backend`. Backend
options come as ``key=value`` strings (``--model-arg``); unknown keys are refused by name.
"""

from __future__ import annotations

from egoworld.core import registry
from egoworld.core.model import Backend, Model, ModelContext


def backend(name: str) -> Backend:
    """The registered backend ``name``; a ValueError listing the known ones when none is."""
    found = registry.load(registry.BACKENDS, name)
    if not isinstance(found, Backend):
        raise registry.RegistryError(
            f"backend entry point {name!r} is a {type(found).__name__}, not an egoworld.core.model.Backend"
        )
    return found


def available_backends() -> dict[str, str]:
    """Name → one-line help of every registered backend (a backend that does not import says why)."""
    out = {}
    for name in registry.names(registry.BACKENDS):
        try:
            out[name] = backend(name).help
        except registry.RegistryError as exc:
            out[name] = f"(unavailable: {exc})"
    return out


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
    name, _, model_name = spec.partition(":")
    if not registry.has(registry.BACKENDS, name):
        known = ", ".join(registry.names(registry.BACKENDS))
        raise ValueError(f"unknown model backend {name!r} in {spec!r} (known: {known})")
    return backend(name).factory(model_name, options, context or ModelContext())
