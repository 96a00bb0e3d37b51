"""Command-line wiring of the runner: ``--config FILE`` and ``--from RUN_DIR`` for every run command."""

from __future__ import annotations

import typer

#: run commands that take a config file (a command a build does not have is skipped)
RUN_COMMANDS = (("run",), ("explore", "run"))


def register(app: typer.Typer, import_app: typer.Typer, build_app: typer.Typer) -> None:
    from egoworld.runner.cache_cli import cache_app
    from egoworld.runner.config_file import add_config_options

    app.add_typer(cache_app, name="cache")

    for path in RUN_COMMANDS:
        add_config_options(app, path)
