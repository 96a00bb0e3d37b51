"""An egoworld benchmark as an Inspect task: ``inspect eval`` asks its questions with Inspect's own solvers
(``multiple_choice`` for choice questions, ``generate`` for the rest) and scores each reply with egoworld's
rules (or ``scoring=official``), so the log's samples carry egoworld's per-question scores::

    inspect eval "$(python -m egoworld.interchange.inspect_task)" -T bench=bench/vsi_wild --model openai/M

(``python -m egoworld.interchange.inspect_task`` prints this file's ``path@task``.) Questions are sent as text:
egoworld's video frames and images are not built inside Inspect (use `egoworld run` then `egoworld export
inspect` for runs with media). Free-answer tasks (which need egoworld's judge) are left out.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, generate, multiple_choice, solver

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.hashing import canonical_json
from egoworld.core.folders.store import ResponseRow
from egoworld.core.permutations import permutation_id
from egoworld.core.plugin import plugin_for
from egoworld.core.schema import Sample as EgoSample

TASK_NAME = "egoworld_benchmark"


def _order(sample: EgoSample) -> str:
    """The option order id of an unshuffled question (what `egoworld run` keys it by)."""
    return permutation_id(tuple(range(len(sample.choices))) if sample.choices else None)


def to_inspect(sample: EgoSample, bench: Benchmark) -> Sample:
    """One question as an Inspect sample: choice questions leave the options to ``multiple_choice``."""
    prompt = plugin_for(bench.name).prompt
    choice = sample.answer_type == "choice" and bool(sample.choices)
    return Sample(
        id=sample.id,
        input=sample.question if choice else prompt.question_text(sample, None),
        choices=list(sample.choices or ()) if choice else None,
        target=prompt.gold_reply(sample, None) or "",
        metadata={"egoworld_sample": sample.id, "task": sample.task, "answer_type": sample.answer_type},
    )


def _selected(bench: Benchmark, tasks: str | None) -> list[EgoSample]:
    wanted = {t.strip() for t in tasks.split(",")} if tasks else None
    unknown = sorted((wanted or set()) - set(bench.manifest.tasks))
    if unknown:
        raise ValueError(
            f"-T tasks={tasks}: {bench.root} has no task {unknown[0]!r} ({', '.join(bench.manifest.tasks)})"
        )
    return [s for s in bench.samples if s.answer_type != "free" and (wanted is None or s.task in wanted)]


@solver
def egoworld_solver() -> Solver:
    """``multiple_choice`` for questions with options, plain ``generate`` for the others."""
    choose, answer = multiple_choice(), generate()

    async def solve(state: TaskState, gen: Generate) -> TaskState:
        return await (choose if state.choices else answer)(state, gen)

    return solve


@scorer(metrics=[mean(), stderr()])
def egoworld_scorer(bench: str, scoring: str = "egoworld") -> Any:
    """egoworld's score of the reply (``scoring="official"``: the benchmark's official rules), on 0–1."""
    from egoworld.scoring.score import score_row

    b = load_benchmark(bench)

    async def score(state: TaskState, target: Target) -> Score:
        sample = b.sample(str(state.metadata["egoworld_sample"]))
        order = _order(sample)
        raw = state.output.completion
        resp = ResponseRow("", sample.id, order, 0, "ok", raw, None, None, None, None, None, None, None, 1)
        row = score_row(sample, order, 0, resp, b.manifest.tasks[sample.task].metric, scoring=scoring)
        return Score(
            value=float(row["score"] or 0.0),
            answer=None if row["pred"] is None else canonical_json(row["pred"]),
            explanation=f"extracted by rule {row.get('rule')}" if row.get("rule") else None,
            metadata={"parsed": row["parsed"], "task": sample.task},
        )

    return score


@task
def egoworld_benchmark(bench: str, tasks: str | None = None, scoring: str = "egoworld") -> Task:
    """The questions of the benchmark folder ``bench`` (``tasks``: a comma-separated subset)."""
    b = load_benchmark(bench)
    samples = [to_inspect(s, b) for s in _selected(b, tasks)]
    if not samples:
        raise ValueError(
            f"{b.root}: no questions to ask (free-answer tasks need egoworld's judge: use egoworld run)"
        )
    return Task(
        dataset=MemoryDataset(samples, name=b.name),
        solver=egoworld_solver(),
        scorer=egoworld_scorer(bench, scoring),
        name=f"egoworld/{b.name}",
        version=b.manifest.version,
        metadata={"benchmark_hash": b.hash, "setting": "text", "scoring": scoring},
    )


if __name__ == "__main__":
    print(f"{__file__}@{TASK_NAME}")
