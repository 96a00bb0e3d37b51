"""`egoworld.interchange.inspect_task`: `inspect eval` asks an egoworld benchmark with Inspect's own solvers
(mockllm, no network) and each sample's score is egoworld's score of the reply."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from egoworld.core.folders.bench_folder import load_benchmark  # noqa: E402
from egoworld.interchange import inspect_task  # noqa: E402
from test_inspect_citizen import text_bench  # noqa: E402

REPLY = "ANSWER: B"


def _expected(bench: Path) -> dict[str, float]:
    """egoworld's scores of REPLY: 1 where B is the gold letter; counts get nothing parseable."""
    b = load_benchmark(bench)
    return {s.id: 1.0 if s.answer_type == "choice" and s.answer == 1 else 0.0 for s in b.samples}


def test_inspect_eval_scores_with_egoworlds_rules(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    bench = text_bench(tmp_path / "bench")
    outputs = [ModelOutput.from_content("mockllm/model", REPLY) for _ in range(8)]
    for out in outputs:  # (mockllm counts tokens with tiktoken otherwise, which downloads its tables)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    model = get_model("mockllm/model", custom_outputs=outputs)
    task = inspect_task.egoworld_benchmark(bench=str(bench))
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and log.eval.task.endswith("egoworld/toytext")
    got = {s.id: s.scores["egoworld_scorer"].value for s in log.samples}
    assert got == _expected(bench)
    mc = next(s for s in log.samples if s.id == "q1")
    assert mc.choices == ["red", "green", "blue", "grey"] and mc.target == "B"
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(sum(got.values()) / len(got))


def test_inspect_cli_finds_the_task(tmp_path: Path) -> None:
    """The path `python -m egoworld.interchange.inspect_task` prints is what `inspect eval` / `inspect list`
    take (a full `inspect eval` with mockllm needs tiktoken's downloaded tables, so it runs in-process above)."""
    env = {**os.environ, "HOME": str(tmp_path)}
    where = subprocess.run(
        [sys.executable, "-m", "egoworld.interchange.inspect_task"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    path, _, name = where.partition("@")
    assert name == "egoworld_benchmark" and Path(path).is_file()
    cmd = [
        sys.executable,
        "-m",
        "inspect_ai",
        "list",
        "tasks",
        Path(path).name,
    ]  # (list takes relative paths)
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=env, timeout=300, check=False, cwd=Path(path).parent
    )
    assert proc.returncode == 0 and "egoworld_benchmark" in proc.stdout, proc.stdout + proc.stderr
