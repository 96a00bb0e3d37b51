"""`RunSummary`: what one run command did (requests planned, reused, sent, failed), for its last line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark


@dataclass
class RunSummary:
    out: Path
    planned: int = 0
    called: int = 0
    reused: int = 0
    ok: int = 0
    errors: int = 0
    blocked: int = 0
    seconds: float = 0.0
    served_models: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    media_bytes: int = 0  # encoded images and clips in the requests sent
    media_bytes_max: int = 0  # the largest request's
    samples: int | None = None  # set for a run of request chains (a sample may take several requests)
    short_frames: dict[str, int] = field(default_factory=dict)  # sample → frames sent, where < --frames
    #: the benchmark the run loaded (its end-of-run scoring reads it instead of loading it again)
    bench: Benchmark | None = field(default=None, repr=False, compare=False)
    #: run.json's score table before a run that repeated a complete one (nothing sent, the store kept as it
    #: was): the scores files written from that store are still the run's
    kept_scores: dict[str, Any] | None = None

    def line(self, label: str = "") -> str:
        """The warnings, one a line, then the counts (after ``label: `` when a label is given)."""
        warned = "".join(f"\nwarning: {w}" for w in self.warnings)
        head = f"{label}: " if label else ""
        if self.samples is not None:
            return (
                "".join(f"warning: {w}\n" for w in self.warnings)
                + head
                + (
                    f"{self.samples} samples: {self.reused} requests already done, {self.called} sent ({self.ok} ok, "
                    f"{self.errors} errors), {self.blocked} steps waiting on failed turns — {self.seconds:.1f} s"
                )
            )
        return (
            warned.lstrip("\n")
            + ("\n" if warned else "")
            + head
            + (
                f"{self.planned} requests: {self.reused} already done, {self.called} sent "
                f"({self.ok} ok, {self.errors} errors), {self.blocked} waiting on failed steps — {self.seconds:.1f} s"
                + self.payload_line()
            )
        )

    def payload_line(self) -> str:
        """``; media 12.3 MB per request (max 13.1 MB)`` when requests carrying media were sent."""
        if not self.called or not self.media_bytes:
            return ""
        mean = self.media_bytes / self.called / 1e6
        return f"; media {mean:.2f} MB per request (max {self.media_bytes_max / 1e6:.2f} MB)"

    def payload(self) -> dict[str, Any]:
        """Bytes per request sent (encoded media; a data URL is 4/3 of it), for the run manifest."""
        mean = round(self.media_bytes / self.called) if self.called else 0
        return {"requests_sent": self.called, "mean": mean, "max": self.media_bytes_max}
