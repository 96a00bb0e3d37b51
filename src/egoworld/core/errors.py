"""The one way a command fails: one red line naming the file and the fix, and an exit code that says why."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NoReturn, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

#: a bad input or a refused setting (the message names the file, the item and the fix)
EXIT_BAD_INPUT = 2
#: the command did its work but the result is incomplete (errors left, nothing to score)
EXIT_INCOMPLETE = 3

console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


class NothingToDo(RuntimeError):
    """The command has nothing to work on (a benchmark or a selection without samples): exit 3, not 0."""


def fail(exc: BaseException | str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: …`` on stderr and leave the command with ``code`` (`NothingToDo`: always exit 3). The
    message is printed as written: brackets in it (``[nan, nan]``, a path) are text, never rich markup."""
    if isinstance(exc, NothingToDo):
        code = EXIT_INCOMPLETE
    console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


#: The one family of errors a command reports as one red line (exit 2; `NothingToDo`: 3), not a traceback:
#: a bad input file or setting is a ``ValueError`` (`egoworld.core.folders.files.InputFileError`, `MediaError`, a
#: refused option), a missing file a ``FileNotFoundError``, a refused state a ``RuntimeError`` (`NothingToDo`,
#: a busy folder, an unavailable model or extra). Typer's own exits (``typer.Exit``, ``typer.Abort``, also
#: RuntimeErrors) are not in it: they pass through unchanged.
USER_ERRORS: tuple[type[Exception], ...] = (ValueError, FileNotFoundError, RuntimeError)


def exit_on_user_error(command: Callable[P, R]) -> Callable[P, R]:
    """``command`` with its user errors mapped to `fail` (the message unchanged): the one place a command's
    errors (`USER_ERRORS`) become exit codes, so command bodies raise and never catch-and-translate."""
    if getattr(command, "exits_on_user_error", False):
        return command

    @functools.wraps(command)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except USER_ERRORS as exc:
            fail(exc)

    wrapped.exits_on_user_error = True  # type: ignore[attr-defined]
    return wrapped
