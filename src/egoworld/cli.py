"""The ``egoworld`` command line, built from the registry: every command is a function registered under the
``egoworld.commands`` entry-point group (importers and exporters under ``egoworld.importers`` /
``egoworld.exporters``), egoworld's own in its pyproject.toml, a third-party package's in its own."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand

from egoworld import __version__
from egoworld.core import registry
from egoworld.core.errors import EXIT_BAD_INPUT, exit_on_user_error

#: where the command entry points of the importer and exporter groups are mounted
MOUNTS = {registry.IMPORTERS: ("import",), registry.EXPORTERS: ("export",)}

console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        print(f"egoworld {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """egoworld command line."""


class Command(TyperCommand):
    """A command whose usage line leaves out hidden arguments (the old positional spellings of ``--bench`` /
    ``--run``), as its help does, and whose help shows the sections its function declares after the options
    (``help_sections``: (title, function returning the text) pairs, computed only when help is printed, e.g.
    every benchmark's run options under ``egoworld run --help``)."""

    help_sections: tuple[tuple[str, Callable[[], str]], ...] = ()

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if not getattr(param, "hidden", False):
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        for title, text in self.help_sections:
            with formatter.section(title):
                for line in text().splitlines():
                    formatter.write(f"{'':>{formatter.current_indent}}{line}\n")


def command_class(obj: Any) -> type[Command]:
    """`Command`, with the ``help_sections`` the command function ``obj`` declares."""
    sections = tuple(getattr(obj, "help_sections", ()))
    return type("Command", (Command,), {"help_sections": sections}) if sections else Command


def command_entries() -> dict[tuple[str, ...], Any]:
    """Command path → loaded entry point: a function (a command) or a string (the help of a group).

    ``egoworld.commands`` entries name their path in words (``"build beyond3d"``); ``egoworld.importers`` and
    ``egoworld.exporters`` entries are the commands ``import NAME`` and ``export NAME``. An entry that does
    not load is left out with a warning, so one broken package does not take the command line down.
    """
    found: dict[tuple[str, ...], Any] = {}
    for group in (registry.COMMANDS, *MOUNTS):
        for name in registry.names(group):
            try:
                obj = registry.load(group, name)
            except (registry.RegistryError, AttributeError) as exc:  # a missing module or attribute
                console.print(f"[yellow]warning:[/] {exc}", highlight=False, soft_wrap=True)
                continue
            found[(*MOUNTS.get(group, ()), *name.split())] = obj
    if not found:
        console.print(
            "[bold red]error:[/] no egoworld commands are registered: the installed entry points are stale or "
            "missing; reinstall egoworld (pip install -e .)",
            highlight=False,
            soft_wrap=True,
        )
    return found


def build_app() -> typer.Typer:
    """The typer app of every registered command; each group is made once, on its first path."""
    root = typer.Typer(
        help="egoworld — build, run, score and report benchmarks of world-state tracking for vision-language "
        "models (Beyond3D, VSI-Super-Wild, EXPLORE-Bench).\n\nStages: import/build → run → score → report; "
        "each stage reads the files the previous one wrote, so any stage can be re-run alone.",
        no_args_is_help=True,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )
    root.callback()(_root)
    entries = command_entries()
    groups: dict[tuple[str, ...], typer.Typer] = {(): root}

    def group(path: tuple[str, ...]) -> typer.Typer:
        if path not in groups:
            helptext = entries.get(path)
            groups[path] = typer.Typer(
                help=helptext if isinstance(helptext, str) else None, no_args_is_help=True
            )
            group(path[:-1]).add_typer(groups[path], name=path[-1])
        return groups[path]

    for path, obj in entries.items():
        if isinstance(obj, str):
            group(path)
        elif callable(obj):
            group(path[:-1]).command(
                path[-1], cls=command_class(obj), hidden=bool(getattr(obj, "hidden", False))
            )(exit_on_user_error(obj))
        else:
            console.print(
                f"[yellow]warning:[/] command entry point {' '.join(path)!r} is a {type(obj).__name__}, "
                "not a function or a group's help text",
                highlight=False,
            )
    from egoworld.cli_examples import add_examples

    add_examples(root)
    return root


app = build_app()


def spread_model_args(argv: list[str]) -> list[str]:
    """``--model-arg a=1 b=2`` → ``--model-arg a=1 --model-arg b=2`` (bare key=value words after a
    --model-arg value; the commands that take --model-arg have no positional arguments)."""
    import re

    out: list[str] = []
    spreading = False  # the previous word was a --model-arg value (or a spread pair)
    for word in argv:
        if spreading and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            out += ["--model-arg", word]
            continue
        spreading = out[-1:] == ["--model-arg"]
        out.append(word)
    return out


def main() -> None:
    """Console-script entry point."""
    import sqlite3

    from egoworld.core.failures import explain_failure

    sys.argv[1:] = spread_model_args(sys.argv[1:])
    try:
        app()
    except KeyboardInterrupt:
        console.print("interrupted — rerun the same command to resume")
        sys.exit(130)
    except (OSError, sqlite3.Error) as exc:
        console.print(f"[bold red]error:[/] {escape(explain_failure(exc))}", highlight=False, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
