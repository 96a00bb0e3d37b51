"""Progress for long commands: a rich bar on a terminal; when stderr is not one (nohup, SLURM, ``> log``)
a plain line every few seconds (``EGOWORLD_PROGRESS_EVERY``, default 10) and one at the end, so a log
shows how far a job got, its rate and what is left.

`progress_bar` returns an object with rich's ``add_task`` / ``update`` / ``advance`` calls either way.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

EVERY_ENV = "EGOWORLD_PROGRESS_EVERY"


def _clock(seconds: float) -> str:
    s = int(max(0, seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else (f"{m}m{s:02d}s" if m else f"{s}s")


class PlainProgress:
    """rich-Progress-like: one plain line per ``every`` seconds per task, and a last one on exit."""

    def __init__(self, stream: TextIO | None = None, every: float | None = None):
        self.stream = stream or sys.stderr
        self.every = every if every is not None else float(os.environ.get(EVERY_ENV, "10") or 10)
        self.tasks: dict[int, dict[str, Any]] = {}
        self._ids = 0

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for tid in self.tasks:
            self._print(tid)

    def add_task(
        self, description: str, total: float | None = None, completed: float = 0, **fields: Any
    ) -> int:
        tid = self._ids
        self._ids += 1
        now = time.monotonic()
        if fields.pop("visible", True) is False:
            return tid  # hidden on a terminal: no lines either
        self.tasks[tid] = {
            "description": description,
            "total": total,
            "done": float(completed),
            "start": now,
            "last": now,
            "fields": fields,
        }
        return tid

    def advance(self, task: int, advance: float = 1) -> None:
        self.update(task, advance=advance)

    def update(
        self,
        task: int,
        *,
        advance: float = 0,
        completed: float | None = None,
        total: float | None = None,
        **fields: Any,
    ) -> None:
        t = self.tasks.get(task)
        if t is None:
            return
        t["done"] = completed if completed is not None else t["done"] + advance
        if total is not None:
            t["total"] = total
        t["fields"].update(fields)
        now = time.monotonic()
        if now - t["last"] >= self.every:
            t["last"] = now
            self._print(task)

    def line(self, task: int) -> str:
        t = self.tasks[task]
        done, total = t["done"], t["total"]
        elapsed = time.monotonic() - t["start"]
        rate = done / elapsed if elapsed > 0 else 0.0
        parts = [f"{t['description']}: {int(done)}" + (f"/{int(total)}" if total else "")]
        if total:
            parts[0] += f" ({100.0 * done / total:.1f}%)"
        parts.append(f"{rate:.2f}/s")
        parts.append(f"elapsed {_clock(elapsed)}")
        if total and rate > 0 and done < total:
            parts.append(f"eta {_clock((total - done) / rate)}")
        status = str(t["fields"].get("status") or "")
        if status:
            parts.append(status)
        return "[progress] " + " · ".join(parts)

    def _print(self, task: int) -> None:
        print(self.line(task), file=self.stream, flush=True)


class _Off:
    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, *a: Any, **k: Any) -> int:
        return 0

    def update(self, *a: Any, **k: Any) -> None:
        return None

    def advance(self, *a: Any, **k: Any) -> None:
        return None


def progress_bar(enabled: bool = True, *, stream: TextIO | None = None) -> Any:
    """A rich bar when ``stream`` (stderr) is a terminal, plain lines when it is not, nothing when disabled."""
    if not enabled:
        return _Off()
    stream = stream or sys.stderr
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return PlainProgress(stream)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Status(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(str(task.fields.get("status", "")))

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        Status(),
        console=Console(file=stream),
        transient=False,
    )


def top_reasons(reasons: list[str], k: int = 5) -> list[tuple[str, int]]:
    """The ``k`` most frequent failure reasons (first line, at most 200 characters), most frequent first."""
    counts: dict[str, int] = {}
    for r in reasons:
        key = (str(r or "unknown").strip().splitlines() or ["unknown"])[0][:200]
        counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def format_reasons(reasons: list[tuple[str, int]], total: int | None = None) -> str:
    """``top error reasons:`` and one indented ``N × reason`` line each; empty when there are none."""
    if not reasons:
        return ""
    head = "top error reasons" + (f" ({total} failed):" if total else ":")
    return "\n".join([head, *(f"  {n:>6} × {text}" for text, n in reasons)])
