"""MkDocs hook: the CLI reference, generated from the Typer app at build time (it cannot drift).

Walks `egoworld.cli.app`'s click command tree and writes every command's `--help` text, in command order,
as the page `reference/cli.md`. Registered in `mkdocs.yml` (`hooks:`).
"""

from __future__ import annotations

import os
from typing import Any

PAGE = "reference/cli.md"


def _commands(group: Any, ctx: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    """(command words, command) of every visible command under ``group``, depth first, in help order."""
    out: list[tuple[list[str], Any]] = []
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None or getattr(cmd, "hidden", False):
            continue
        out.append((path + [name], cmd))
        if hasattr(cmd, "list_commands"):  # a group (Typer ships its own click: no isinstance)
            sub = cmd.context_class(cmd, info_name=name, parent=ctx)
            out.extend(_commands(cmd, sub, path + [name]))
    return out


def _help(cmd: Any, words: list[str]) -> str:
    ctx = cmd.context_class(cmd, info_name=" ".join(words), terminal_width=100, max_content_width=100)
    return cmd.get_help(ctx)


def render() -> str:
    os.environ.setdefault("COLUMNS", "100")
    os.environ.setdefault("TERM", "dumb")
    import typer.main

    from egoworld.cli import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="egoworld")
    lines = [
        "# Command reference",
        "",
        "Generated from the command line itself when the site is built: each section is the command's",
        "`--help`. Run `egoworld COMMAND --help` for the same text in a terminal.",
        "",
        "## egoworld",
        "",
        "```text",
        _help(root, ["egoworld"]),
        "```",
        "",
    ]
    for words, cmd in _commands(root, ctx, ["egoworld"]):
        lines += [f"## {' '.join(words)}", "", "```text", _help(cmd, words), "```", ""]
    return "\n".join(lines)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=render()))
    return files
