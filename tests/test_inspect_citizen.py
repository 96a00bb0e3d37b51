"""`egoworld export inspect` writes a log Inspect itself works with: `inspect score LOG --scorer match` re-scores
it (no network), the model is rebuilt from Inspect's own fields (``model_base_url``, the generate config), the
results share the samples' 0–1 scale; `egoworld import inspect` reads such a log back as a run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.core.folders.bench_folder import save_benchmark
from egoworld.core.schema import Sample, TaskInfo
from openai_test_server import FakeOpenAIServer

pytest.importorskip("inspect_ai")
runner = CliRunner()


def text_bench(root: Path) -> Path:
    """Six text-only four-option questions, and two counts."""
    samples = [
        Sample(id=f"q{i}", benchmark="toytext", task="MC", cluster=f"c{i % 2}", question=f"Question {i}?",
               answer_type="choice", choices=("red", "green", "blue", "grey"), answer=i % 4)
        for i in range(6)
    ] + [
        Sample(id=f"n{i}", benchmark="toytext", task="COUNT", cluster="c0", question=f"How many {i}?",
               answer_type="integer", answer=3 + i)
        for i in range(2)
    ]  # fmt: skip
    tasks = {
        "MC": TaskInfo(answer_type="choice", metric="accuracy"),
        "COUNT": TaskInfo(answer_type="integer", metric="mra"),
    }
    save_benchmark(root, name="toytext", tasks=tasks, samples=samples)
    return root


def _reply(prompt: str) -> str:
    return "B" if "Question" in prompt else "4"


@pytest.fixture(scope="module")
def served_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A run of an OpenAI-compatible server with max_tokens and temperature set, scored and exported."""
    tmp = tmp_path_factory.mktemp("inspect")
    bench = text_bench(tmp / "bench")
    with FakeOpenAIServer(reply=_reply) as srv:
        argv = ["run", "--bench", str(bench), "--model", "openai:fake-vlm-1", "--out", str(tmp / "run"),
                "--model-arg", f"base_url={srv.base_url}", "--model-arg", "max_tokens=64",
                "--model-arg", "temperature=0.2", "--no-progress"]  # fmt: skip
        res = runner.invoke(app, argv)
        url = srv.base_url
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["score", "--run", str(tmp / "run")]).exit_code == 0
    log = tmp / "logs" / "run.eval"
    res = runner.invoke(app, ["export", "inspect", "--run", str(tmp / "run"), "--out", str(log)])
    assert res.exit_code == 0, res.output
    return tmp / "run", log, url


def test_model_fields_are_inspects(served_run: tuple[Path, Path, str]) -> None:
    from inspect_ai.log import read_eval_log

    run, log_path, url = served_run
    log = read_eval_log(str(log_path))
    spec = log.eval
    assert spec.model == "openai/fake-vlm-1" and spec.model_base_url == url and spec.model_args == {}
    assert spec.model_generate_config.max_tokens == 64 and spec.model_generate_config.temperature == 0.2
    assert log.plan.config.max_tokens == 64
    scores = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == pytest.approx(sum(r["score"] for r in scores) / len(scores))
    assert all(0.0 <= m.value <= 1.0 for m in metrics.values())


def test_inspect_rebuilds_the_model_from_the_log(
    served_run: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `inspect score` does first: ``get_model(model, base_url=model_base_url, **model_args)`` (the
    openai provider needs the ``openai`` package and a key, as the run itself did)."""
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import get_model

    _, log_path, url = served_run
    log = read_eval_log(str(log_path), header_only=True)
    model = get_model(
        model=log.eval.model,
        config=log.plan.config.merge(log.eval.model_generate_config),
        base_url=log.eval.model_base_url,
        **log.eval.model_args,
    )
    assert model.api.base_url == url and model.config.max_tokens == 64


def test_inspect_score_cli_rescores_a_log(tmp_path: Path) -> None:
    """The real `inspect score --scorer match`, in a subprocess without network, on a random-backend run."""
    bench = text_bench(tmp_path / "bench")
    res = runner.invoke(
        app,
        ["run", "--bench", str(bench), "--model", "random", "--out", str(tmp_path / "run"), "--no-progress"],
    )
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["score", "--run", str(tmp_path / "run")]).exit_code == 0
    log = tmp_path / "run.eval"
    assert (
        runner.invoke(app, ["export", "inspect", "--run", str(tmp_path / "run"), "--out", str(log)]).exit_code
        == 0
    )
    scored = tmp_path / "scored.eval"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "INSPECT_LOG_DIR": str(tmp_path), "NO_PROXY": "*"}
    cmd = [
        sys.executable,
        "-m",
        "inspect_ai",
        "score",
        str(log),
        "--scorer",
        "match",
        "--action",
        "append",
        "--output-file",
        str(scored),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from inspect_ai.log import read_eval_log

    out = read_eval_log(str(scored))
    assert out.eval.model == "none/random"
    names = {s.name for s in out.results.scores}
    assert "match" in names
    mean = next(s for s in out.results.scores if s.name == "match").metrics["accuracy"].value
    assert 0.0 <= mean <= 1.0


def _scores(run: Path) -> dict[str, float]:
    return {r["sample"]: r["score"] for r in map(json.loads, (run / "scores.jsonl").read_text().splitlines())}


def test_import_inspect_round_trip(served_run: tuple[Path, Path, str], tmp_path: Path) -> None:
    """An exported log comes back as a run (its benchmark found from the log) that scores the same, and the
    log's own scores agree with egoworld's."""
    run, log, _ = served_run
    res = runner.invoke(app, ["import", "inspect", str(log), "--out", str(tmp_path / "imp")])
    assert res.exit_code == 0, res.output
    assert "8 samples of openai/fake-vlm-1 (0 errors)" in res.output
    res = runner.invoke(app, ["score", "--run", str(tmp_path / "imp" / "run")])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "imp" / "run" / "scores.json").read_text())
    assert summary["reference_agreement"]["share"] == 100.0 and summary["reference_agreement"]["rows"] == 8
    assert _scores(tmp_path / "imp" / "run") == _scores(run)


def test_import_inspect_errors_and_refusals(served_run: tuple[Path, Path, str], tmp_path: Path) -> None:
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log

    run, log_path, _ = served_run
    log = read_eval_log(str(log_path))
    log.samples[0].error = EvalError(message="RateLimitError: 429", traceback="", traceback_ansi="")
    broken = tmp_path / "broken.json"
    write_eval_log(log, str(broken))
    bench = ["--bench", str(run.parent / "bench")]
    res = runner.invoke(app, ["import", "inspect", str(broken), *bench, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    assert "(1 errors)" in res.output and "WARNING: 1 of 8 samples" in res.output
    manifest = json.loads((tmp_path / "a" / "run" / "run.json").read_text())
    assert manifest["counts"]["error"] == 1 and manifest["imported_from"]["format"] == "inspect eval log"
    res = runner.invoke(
        app, ["import", "inspect", str(log_path), "--scorer", "nope", *bench, "--out", str(tmp_path / "b")]
    )
    assert res.exit_code != 0 and "no scorer 'nope'" in res.output
    log.samples[1].metadata = {}
    log.samples[1].id = "not-a-question"
    foreign = tmp_path / "foreign.json"
    write_eval_log(log, str(foreign))
    res = runner.invoke(app, ["import", "inspect", str(foreign), *bench, "--out", str(tmp_path / "c")])
    assert (
        res.exit_code != 0
        and "'not-a-question' is not in" in res.output
        and "pass the benchmark" in res.output
    )
    res = runner.invoke(
        app, ["import", "inspect", str(tmp_path / "missing.eval"), "--out", str(tmp_path / "d")]
    )
    assert res.exit_code != 0 and "not an Inspect log file" in res.output


def test_import_a_log_inspect_rescored(tmp_path: Path) -> None:
    """A log `inspect score --scorer match` re-scored imports with that scorer's verdicts as the reference."""
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.scorer import Score

    bench = text_bench(tmp_path / "bench")
    argv = [
        "run",
        "--bench",
        str(bench),
        "--model",
        "oracle",
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    assert runner.invoke(app, argv).exit_code == 0
    assert runner.invoke(app, ["score", "--run", str(tmp_path / "run")]).exit_code == 0
    assert (
        runner.invoke(
            app, ["export", "inspect", "--run", str(tmp_path / "run"), "--out", str(tmp_path / "r.eval")]
        ).exit_code
        == 0
    )
    log = read_eval_log(str(tmp_path / "r.eval"))
    for s in log.samples:  # what Inspect's match scorer writes: letter grades
        s.scores["match"] = Score(
            value="C" if s.scores["egoworld"].value == 1.0 else "I", answer=s.output.completion
        )
    write_eval_log(log, str(tmp_path / "m.eval"))
    out = tmp_path / "imp"
    res = runner.invoke(
        app, ["import", "inspect", str(tmp_path / "m.eval"), "--scorer", "match", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    refs = [json.loads(x) for x in (out / "run" / "reference.jsonl").read_text().splitlines()]
    assert {r["reference_scorer"] for r in refs} == {"match"}
    assert {r["sample"]: r["reference_score"] for r in refs if r["sample"].startswith("q")} == {
        k: v for k, v in _scores(tmp_path / "run").items() if k.startswith("q")
    }
