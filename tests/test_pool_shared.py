"""`map_processes` hands one shared object to its forked workers (no module state in the parent), and
`exit_on_user_error` maps the one user-error family to exit codes."""

from __future__ import annotations

import inspect
import os

import pytest
import typer

from egoworld.core.errors import EXIT_BAD_INPUT, EXIT_INCOMPLETE, NothingToDo, exit_on_user_error
from egoworld.core.folders.files import InputFileError
from egoworld.core.process import pool
from egoworld.core.process.pool import map_processes


def _add(shared: dict[str, int], x: int) -> tuple[int, int]:
    return shared["base"] + x, os.getpid()


def test_map_processes_hands_the_shared_object_to_each_worker() -> None:
    shared = {"base": 10}
    forked = map_processes(_add, [(1,), (2,), (3,), (4,)], workers=2, shared=shared)
    here = map_processes(_add, [(1,), (2,), (3,), (4,)], workers=1, shared=shared)
    assert [v for v, _ in forked] == [v for v, _ in here] == [11, 12, 13, 14]
    assert {pid for _, pid in here} == {os.getpid()}
    if "fork" in __import__("multiprocessing").get_all_start_methods():
        assert os.getpid() not in {pid for _, pid in forked}
    assert pool._WORKER == []  # the parent keeps no state


def _command(exc: BaseException | None, flag: int = 0) -> None:
    """A command."""
    if exc is not None:
        raise exc


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (InputFileError("a.json: bad"), EXIT_BAD_INPUT),
        (ValueError("--x must be 1"), EXIT_BAD_INPUT),
        (FileNotFoundError("no such file"), EXIT_BAD_INPUT),
        (RuntimeError("needs Ray"), EXIT_BAD_INPUT),
        (NothingToDo("no samples"), EXIT_INCOMPLETE),
        (ValueError("the 95 % CI is [nan, nan]; [bold]not markup[/bold]"), EXIT_BAD_INPUT),
    ],
)
def test_user_errors_become_one_line_and_an_exit_code(exc, code, capsys) -> None:
    with pytest.raises(typer.Exit) as info:
        exit_on_user_error(_command)(exc)
    assert info.value.exit_code == code
    assert capsys.readouterr().err.strip() == f"error: {exc}"


def test_other_exceptions_and_typer_exits_pass_through() -> None:
    wrapped = exit_on_user_error(_command)
    with pytest.raises(KeyError):
        wrapped(KeyError("bug"))
    with pytest.raises(typer.Exit) as info:
        wrapped(typer.Exit(0))
    assert info.value.exit_code == 0
    assert inspect.signature(wrapped) == inspect.signature(_command) and wrapped.__doc__ == "A command."
    assert exit_on_user_error(wrapped) is wrapped
