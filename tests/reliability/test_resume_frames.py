"""`frames_sent` on resume (issue 24): a run stopped partway and resumed records the same frames figures in
run.json as the run that was never stopped — also for the samples the resumed run found already done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks_factory import short_clip_bench
from egoworld.core.model import Generation, Model, Request
from egoworld.core.run_config import RunConfig
from egoworld.runner.run import run_benchmark


class StopsAfter(Model):
    """Answers "A"; the ``stop``-th call stops the command as Ctrl-C would (None: never)."""

    backend = "test"

    def __init__(self, stop: int | None = None) -> None:
        self.stop, self.calls = stop, 0

    def identity(self):
        return {"backend": "test", "model": "stops-after"}

    async def generate(self, request: Request) -> Generation:
        self.calls += 1
        if self.stop is not None and self.calls >= self.stop:
            raise KeyboardInterrupt
        return Generation(text="A")


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return short_clip_bench(tmp_path_factory.mktemp("bench"))


def _run(bench: Path, out: Path, model: Model):
    cfg = RunConfig(
        bench=bench, model="test", out=out, setting="frames", frames=32, concurrency=1, progress=False
    )
    return run_benchmark(cfg, model=model)


def test_a_resumed_run_records_the_frames_of_the_samples_it_skipped(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    _run(bench, tmp_path / "whole", StopsAfter())
    whole = json.loads((tmp_path / "whole" / "run.json").read_text())
    assert whole["frames_sent"]["short"] == {"q0": 12, "q1": 9, "q3": 12}

    with pytest.raises(KeyboardInterrupt):  # stopped after the short samples q0 and q1 were answered
        _run(bench, tmp_path / "resumed", StopsAfter(stop=3))
    assert json.loads((tmp_path / "resumed" / "run.json").read_text())["status"] == "interrupted"
    summary = _run(bench, tmp_path / "resumed", StopsAfter())
    assert summary.reused == 2 and summary.called == 2
    resumed = json.loads((tmp_path / "resumed" / "run.json").read_text())
    assert resumed["status"] == "complete"
    assert resumed["frames_sent"] == whole["frames_sent"]
    assert resumed["warnings"] == whole["warnings"]
