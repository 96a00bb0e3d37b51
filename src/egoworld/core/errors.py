"""The one way a command fails: one red line naming the file and the fix, and an exit code that says why."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

#: a bad input or a refused setting (the message names the file, the item and the fix)
EXIT_BAD_INPUT = 2
#: the command did its work but the result is incomplete (errors left, nothing to score)
EXIT_INCOMPLETE = 3

console = Console(stderr=True)


class NothingToDo(RuntimeError):
    """The command has nothing to work on (a benchmark or a selection without samples): exit 3, not 0."""


def fail(exc: BaseException | str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: …`` on stderr and leave the command with ``code`` (`NothingToDo`: always exit 3)."""
    if isinstance(exc, NothingToDo):
        code = EXIT_INCOMPLETE
    console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
