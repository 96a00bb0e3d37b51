"""After a run: the most frequent reasons of the requests that still fail, on stderr."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.errors import console


def print_error_reasons(run_dir: Path) -> None:
    """After a run: the most frequent reasons of the requests that still fail (nothing when none do)."""
    from egoworld.core.progress import format_reasons, top_reasons
    from egoworld.core.run_config import STORE_FILE
    from egoworld.core.store import ResponseStore

    if not (run_dir / STORE_FILE).is_file():
        return
    with ResponseStore(run_dir / STORE_FILE, readonly=True) as store:
        failed = store.planned_errors()
    if failed:
        console.print(
            format_reasons(top_reasons(failed), len(failed)), highlight=False, markup=False, soft_wrap=True
        )
