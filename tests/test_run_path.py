"""The one run path: the `Runner`'s schedule (a request waits for those it depends on, a failed one blocks its
dependents), grouped store writes, and a resume of a finished run that sends and writes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import io
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmarks_factory import balanced_mc_bench
from egoworld.core.folders.store import ResponseStore
from egoworld.core.model import Generation, Model, ModelError, Request
from egoworld.core.plan import ItemId
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample
from egoworld.runner.outcome import finish_run
from egoworld.runner.ray_executor import RowSink
from egoworld.runner.run import run_benchmark
from egoworld.runner.summary import RunSummary
from egoworld.runner.worker import Runner

SAMPLE = Sample(id="s", benchmark="toy", task="T", question="?", answer_type="integer", answer=1)


@dataclass(frozen=True)
class Node:
    name: str
    deps: list[ItemId] = field(default_factory=list)
    sample: Sample = SAMPLE

    @property
    def id(self) -> ItemId:
        return ("s", self.name, 0)


class Echo:
    """Requests whose text is the node's name and the replies of the nodes it depends on."""

    inputs: dict[str, Any] = {}
    linked = True
    threaded = False

    def build(self, node: Node, replies: dict[ItemId, Any]) -> Request:
        text = "+".join([node.name, *(str(replies.get(d)) for d in node.deps)])
        return Request(key=text, sample_id="s", messages=(), choices=None, permutation=None, epoch=0)

    def reply(self, node: Node, raw: str) -> str:
        return raw


class Slow(Model):
    """Replies with the request key after a pause; fails the keys in ``fail``."""

    backend = "test"

    def __init__(self, fail: tuple[str, ...] = ()):
        self.fail, self.sent = fail, []

    def identity(self) -> dict[str, Any]:
        return {"backend": "test"}

    async def generate(self, request: Request) -> Generation:
        self.sent.append(request.key)
        await asyncio.sleep(0.01)
        if request.key in self.fail:
            raise ModelError("injected")
        return Generation(text=request.key.upper())


def test_a_request_waits_for_what_it_depends_on_and_a_failure_blocks_its_dependents() -> None:
    a, x = Node("a"), Node("x")
    nodes = [a, Node("b", [a.id]), x, Node("y", [x.id]), Node("z", [("s", "y", 0)]), Node("c")]
    model = Slow(fail=("x",))
    summary = RunSummary(out=Path("."))
    done: list[str] = []
    runner = Runner(Echo(), model, RowSink({}), concurrency=3)  # type: ignore[arg-type]
    asyncio.run(runner.execute(iter(nodes), summary, lambda: done.append("")))
    assert "b+A" in model.sent  # b was sent after a, with a's reply
    assert model.sent.index("b+A") > model.sent.index("a")
    assert "c" in model.sent and not any(k.startswith(("y", "z")) for k in model.sent)
    assert (summary.ok, summary.errors, summary.blocked, len(done)) == (3, 1, 2, 6)


class FullDisk(RowSink):
    """A store stand-in whose write of the reply to ``b`` fails (as on a full disk)."""

    def put(self, **kwargs: Any) -> None:
        if kwargs["key"] == "b":
            raise OSError("disk full")
        super().put(**kwargs)


def test_a_failing_write_stops_the_plan_after_the_requests_in_flight() -> None:
    model = Slow()
    store = FullDisk({})
    runner = Runner(Echo(), model, store, concurrency=3)  # type: ignore[arg-type]
    with pytest.raises(OSError, match="disk full"):
        asyncio.run(
            runner.execute(iter([Node(n) for n in "abcdefgh"]), RunSummary(out=Path(".")), lambda: None)
        )
    assert model.sent == ["a", "b", "c", "d"]  # (a's worker drew d before b failed) nothing after
    stored = [kw["key"] for op, _args, kw in store.ops if op == "put"]
    assert stored == ["a", "c", "d"]  # the requests in flight were answered and stored


def _run(cfg: RunConfig) -> RunSummary:
    with contextlib.redirect_stdout(io.StringIO()):
        summary = run_benchmark(cfg)
        finish_run(summary, cfg.out)
    return summary


def _stamps(out: Path) -> dict[str, int]:
    """When the store's file and the scores files were last written (opening a store touches its WAL)."""
    return {
        name: (out / name).stat().st_mtime_ns for name in ("responses.sqlite", "scores.json", "scores.jsonl")
    }


def test_a_finished_run_resumed_sends_nothing_and_keeps_its_store_and_scores(tmp_path: Path) -> None:
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=3)
    cfg = RunConfig(
        bench=bench.root, model="random", out=tmp_path / "r", permutations="shuffle24", progress=False
    )
    first = _run(cfg)
    files = {p.name: p.read_bytes() for p in cfg.out.iterdir() if p.name.startswith("scores")}
    stamps = _stamps(cfg.out)
    again = _run(cfg)
    assert again.kept_scores is not None and (again.reused, again.called) == (first.called, 0)
    assert _stamps(cfg.out) == stamps  # neither the store nor the scores files were written

    (cfg.out / "scores.json").write_text('{"n": 0}')  # scores of another scoring: scored again
    _run(cfg)
    assert {p.name: p.read_bytes() for p in cfg.out.iterdir() if p.name.startswith("scores")} == files

    with sqlite3.connect(cfg.out / "responses.sqlite") as db:  # a reply went missing: it is sent again
        db.execute("DELETE FROM responses WHERE key = (SELECT key FROM plan LIMIT 1)")
    fourth = _run(cfg)
    assert fourth.kept_scores is None and fourth.called == 1


def test_grouped_writes_commit_together_and_hold_plan_rows_back(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with ResponseStore(path) as store, sqlite3.connect(path) as reader:
        with store.grouped(3600.0):
            store.put(key="k", sample_id="s", permutation="-", epoch=0, status="ok", raw="A")
            store.plan("s", "-", 0, "k")
            assert store.is_ok("k")  # the writer sees its own writes
            assert reader.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0
            with store.transaction():  # a transaction inside a group commits the group first
                store.plan("s", "0123", 0, "k2")
            assert reader.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1
            store.plan("s", "1023", 0, "k3")
        assert reader.execute("SELECT COUNT(*) FROM plan").fetchone()[0] == 3
        assert store.plan_done() == (3, 1)  # (only k has a reply)
