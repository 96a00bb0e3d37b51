"""The run loop end to end with the built-in baselines: scores, resume, keys, trajectories."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

from benchmarks_factory import balanced_mc_bench
from egoworld.core.folders.bench_folder import load_benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.model import Generation, Model, ModelContext, Request
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample, TaskInfo, Trajectory
from egoworld.models.openai_compat import OpenAICompatModel
from egoworld.models.spec import create_model
from egoworld.runner.run import run_benchmark
from egoworld.scoring.score import score_run


def _cfg(bench, out, model="oracle", **kw) -> RunConfig:
    return RunConfig(bench=bench, model=model, out=out, progress=False, **kw)


def _rows(out) -> int:
    with sqlite3.connect(out / "responses.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def test_oracle_scores_100_on_all_official_questions(vsi_bench_dir, tmp_path):
    summary = run_benchmark(_cfg(vsi_bench_dir, tmp_path / "oracle"))
    assert summary.planned == 6980 and summary.ok == 6980
    scores = score_run(tmp_path / "oracle")
    assert scores["n"] == 6980 and scores["overall"] == 100.0 and scores["parse_rate"] == 100.0
    assert {t: e[e["metric"]] for t, e in scores["tasks"].items()} == {
        "VMR": 100,
        "VPO": 100,
        "VOO": 100,
        "VOC": 100,
    }


def test_random_is_at_chance_and_a_rerun_changes_nothing(vsi_bench_dir, tmp_path):
    out = tmp_path / "random"
    run_benchmark(_cfg(vsi_bench_dir, out, model="random", seed=0))
    first = score_run(out)
    scores_bytes = (out / "scores.json").read_bytes()
    jsonl_bytes = (out / "scores.jsonl").read_bytes()
    for task in ("VMR", "VPO", "VOO"):
        e = first["tasks"][task]
        assert abs(e["accuracy"] - 25.0) < 3 * e["sem"], (task, e)
    rows = _rows(out)
    again = run_benchmark(_cfg(vsi_bench_dir, out, model="random", seed=0))
    assert again.called == 0 and again.reused == 6980
    assert _rows(out) == rows
    score_run(out)
    assert (out / "scores.json").read_bytes() == scores_bytes
    assert (out / "scores.jsonl").read_bytes() == jsonl_bytes


def test_random_seed_changes_answers_and_keys(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b")
    run_benchmark(_cfg(bench.root, tmp_path / "s0", model="random", seed=0))
    run_benchmark(_cfg(bench.root, tmp_path / "s1", model="random", seed=1))
    with (
        sqlite3.connect(tmp_path / "s0/responses.sqlite") as a,
        sqlite3.connect(tmp_path / "s1/responses.sqlite") as b,
    ):
        ka = {r[0] for r in a.execute("SELECT key FROM responses")}
        kb = {r[0] for r in b.execute("SELECT key FROM responses")}
        ra = [r[0] for r in a.execute("SELECT raw FROM responses ORDER BY sample_id")]
        rb = [r[0] for r in b.execute("SELECT raw FROM responses ORDER BY sample_id")]
    assert not ka & kb and ra != rb


class AlwaysFirst(Model):
    backend = "test"

    def identity(self):
        return {"backend": "test", "model": "always-A"}

    async def generate(self, request: Request) -> Generation:
        return Generation(text="A" if request.choices else "3")


def test_shuffle24_always_first_position(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=40)
    out = tmp_path / "first"
    summary = run_benchmark(
        _cfg(bench.root, out, model="always-A", permutations="shuffle24"), model=AlwaysFirst()
    )
    assert summary.planned == 40 * 24 + 12
    st = score_run(out)["shuffle24"]["MC"]
    assert st["order_accuracy"] == [25.0] * 24
    assert st["pass_at_k"][5] == 100.0 and st["pass_at_k"][6] == 0.0
    assert st["order_bias_std"] == 0.0 and st["position_pick_rate"]["A"] == 100.0


def test_shuffle24_random_baseline(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=400, n_int=0)
    out = tmp_path / "rand"
    run_benchmark(_cfg(bench.root, out, model="random", permutations="shuffle24", concurrency=1))
    st = score_run(out)["shuffle24"]["MC"]
    assert st["top_k"][-1] == pytest.approx(100 * (1 - 0.75**24), abs=1.0)
    assert st["order_bias_std"] < 4.0  # sampling noise of 24 accuracies over 400 questions is ~2.2
    assert abs(sum(st["order_accuracy"]) / 24 - 25.0) < 3 * math.sqrt(25 * 75 / (400 * 24)) * 2


def test_prior_answers_a_constant_per_task(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=12)
    samples = [
        s.model_copy(update={"answer": 1}) if s.task == "MC" and s.id < "mc-006" else s for s in bench.samples
    ]
    bench = save_benchmark(tmp_path / "b2", name="toy", tasks=bench.manifest.tasks, samples=samples)
    model = create_model("prior", {}, ModelContext(benchmark=bench))
    assert model.table["MC"]["text"] == "backward" and model.table["COUNT"]["number"] == 1.0
    out = tmp_path / "prior"
    run_benchmark(_cfg(bench.root, out, model="prior", permutations="shuffle24"))
    score_run(out)
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert {r["pred"] for r in rows if r["task"] == "MC"} == {1}  # always the option "backward", in any order
    assert {r["pred"] for r in rows if r["task"] == "COUNT"} == {1}


def test_identity_changes_change_request_keys(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=4, n_int=0)

    def keys(model: Model, out) -> set[str]:
        run_benchmark(_cfg(bench.root, out, model="openai"), model=_Canned(model))
        with sqlite3.connect(out / "responses.sqlite") as db:
            return {r[0] for r in db.execute("SELECT key FROM responses")}

    base = keys(OpenAICompatModel("m1"), tmp_path / "a")
    assert keys(OpenAICompatModel("m1"), tmp_path / "a2") == base
    assert not keys(OpenAICompatModel("m2"), tmp_path / "b") & base
    assert not keys(OpenAICompatModel("m1", max_tokens=64), tmp_path / "c") & base
    assert not keys(OpenAICompatModel("m1", temperature=0.7), tmp_path / "d") & base
    assert not keys(OpenAICompatModel("m1", revision="abc"), tmp_path / "e") & base


class _Canned(Model):
    """Wraps a real backend's identity but answers locally (no server needed)."""

    def __init__(self, inner: Model):
        self.inner = inner
        self.backend = inner.backend

    def identity(self):
        return self.inner.identity()

    async def generate(self, request: Request) -> Generation:
        return Generation(text="B")


def test_a_run_that_stopped_before_its_first_response_does_not_hold_its_folder(tmp_path):
    """A dead server fails the run after its folder is made: the corrected command into the same --out runs."""
    from typer.testing import CliRunner

    from egoworld.cli import app

    bench = balanced_mc_bench(tmp_path / "b", n_mc=4, n_int=0)
    argv = ["run", "--bench", str(bench.root), "--out", str(tmp_path / "r"), "--no-progress"]
    dead = ["--model", "openai:fake-vlm", "--base-url", "http://127.0.0.1:9/v1", "--timeout", "2"]
    res = CliRunner().invoke(app, [*argv, *dead])
    assert res.exit_code != 0 and (tmp_path / "r" / "run.json").is_file(), res.output
    res = CliRunner().invoke(app, [*argv, "--model", "random"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "r" / "run.json").read_text())["model_spec"] == "random"
    # once it holds responses, the folder refuses another run, as before
    res = CliRunner().invoke(app, [*argv, "--model", "oracle"])
    assert res.exit_code == 2 and "holds another run" in res.output, res.output


def test_a_folder_refuses_a_different_run(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=4, n_int=0)
    run_benchmark(_cfg(bench.root, tmp_path / "r", model="oracle"))
    with pytest.raises(InputFileError, match="another run"):
        run_benchmark(_cfg(bench.root, tmp_path / "r", model="random"))
    # a larger selection of the same run is allowed and only adds what is new
    more = run_benchmark(_cfg(bench.root, tmp_path / "r", model="oracle", permutations="none", limit=None))
    assert more.called == 0


def test_limits_and_task_filters(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=10, n_int=10)
    s = run_benchmark(_cfg(bench.root, tmp_path / "a", per_task=3))
    assert s.planned == 6
    s = run_benchmark(_cfg(bench.root, tmp_path / "b2", tasks=["COUNT"], limit=4))
    assert s.planned == 4
    with pytest.raises(ValueError, match="not in this benchmark"):
        run_benchmark(_cfg(bench.root, tmp_path / "c", tasks=["NOPE"]))


def _trajectory_bench(root):
    samples = []
    for a in range(6):
        first = Sample(
            id=f"a{a}-s0",
            benchmark="traj",
            task="where",
            episode=f"e{a}",
            question=f"Where is object {a}?",
            answer_type="choice",
            choices=("sink", "hob", "fridge"),
            answer=a % 3,
            trajectory=Trajectory(id=f"a{a}", step=0),
        )
        second = Sample(
            id=f"a{a}-s1",
            benchmark="traj",
            task="visible",
            episode=f"e{a}",
            question=f"Is object {a} visible now?",
            answer_type="choice",
            choices=("No", "Yes"),
            answer=0,
            trajectory=Trajectory(id=f"a{a}", step=1, depends_on=(first.id,)),
        )
        samples += [first, second]
    tasks = {
        "where": TaskInfo(answer_type="choice", metric="accuracy"),
        "visible": TaskInfo(answer_type="choice", metric="accuracy"),
    }
    return save_benchmark(root, name="traj", tasks=tasks, samples=samples)


class Recorder(Model):
    backend = "test"

    def __init__(self, fail_first_steps: bool = False):
        self.prompts: dict[str, str] = {}
        self.fail = fail_first_steps

    def identity(self):
        return {"backend": "test", "model": "recorder", "fail": self.fail}

    async def generate(self, request: Request) -> Generation:
        from egoworld.core.model import ModelError

        self.prompts[request.sample_id] = request.messages[0].text
        if self.fail and request.sample_id.endswith("s0") and request.sample_id != "a0-s0":
            raise ModelError("injected failure")
        return Generation(text="B")


def test_trajectory_histories(tmp_path):
    bench = _trajectory_bench(tmp_path / "b")
    gold = Recorder()
    run_benchmark(_cfg(bench.root, tmp_path / "gold", model="x", history="gold"), model=gold)
    assert "A1: fridge" in gold.prompts["a2-s1"] and "Q1: Where is object 2?" in gold.prompts["a2-s1"]
    pred = Recorder()
    run_benchmark(_cfg(bench.root, tmp_path / "pred", model="x", history="pred", concurrency=3), model=pred)
    assert "A1: hob" in pred.prompts["a2-s1"]  # the model said B = hob for step 0
    none = Recorder()
    run_benchmark(_cfg(bench.root, tmp_path / "none", model="x"), model=none)
    assert "Q1:" not in none.prompts["a2-s1"]


def test_failed_steps_block_their_dependents_until_a_rerun(tmp_path):
    bench = _trajectory_bench(tmp_path / "b")
    out = tmp_path / "pred"
    s = run_benchmark(_cfg(bench.root, out, model="x", history="pred"), model=Recorder(fail_first_steps=True))
    assert s.errors == 5 and s.blocked == 5 and s.ok == 2
    s = run_benchmark(_cfg(bench.root, out, model="x", history="pred"), model=Recorder(fail_first_steps=True))
    assert s.reused == 2 and s.errors == 5
    scores = score_run(out)
    assert scores["errors"] == 5 and scores["missing"] == 5 and scores["n"] == 2 and not scores["complete"]


def test_selection_pulls_in_steps_a_trajectory_needs(tmp_path):
    bench = _trajectory_bench(tmp_path / "b")
    s = run_benchmark(_cfg(bench.root, tmp_path / "r", tasks=["visible"], limit=2, history="pred"))
    assert s.planned == 4 and s.ok == 4
    assert load_benchmark(bench.root).sample("a0-s1").trajectory.depends_on == ("a0-s0",)


def test_epochs_are_separate_requests_averaged_per_question(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=40, n_int=0)
    out = tmp_path / "r"
    s = run_benchmark(_cfg(bench.root, out, model="random", epochs=3))
    assert s.planned == s.ok == 120
    with sqlite3.connect(out / "responses.sqlite") as db:
        assert db.execute("SELECT COUNT(DISTINCT key) FROM responses").fetchone()[0] == 120
        per_sample = db.execute(
            "SELECT sample_id, COUNT(DISTINCT raw) FROM responses GROUP BY sample_id"
        ).fetchall()
    assert any(n > 1 for _, n in per_sample)  # epochs draw independently
    scores = score_run(out)
    assert scores["n"] == 40 and scores["rows"] == 120
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    by_sample: dict[str, list[float]] = {}
    for r in rows:
        by_sample.setdefault(r["sample"], []).append(r["score"])
    expected = sum(sum(v) / len(v) for v in by_sample.values()) / len(by_sample) * 100
    assert scores["tasks"]["MC"]["accuracy"] == pytest.approx(expected)


def test_a_typo_in_the_setting_then_the_corrected_command_into_the_same_folder(tmp_path):
    """``--setting frame`` (typo) is refused by name; the corrected command into the same --out runs."""
    from typer.testing import CliRunner

    from egoworld.cli import app

    bench = balanced_mc_bench(tmp_path / "b", n_mc=4, n_int=0)
    argv = [
        "run",
        "--bench",
        str(bench.root),
        "--out",
        str(tmp_path / "r"),
        "--model",
        "random",
        "--no-progress",
    ]
    res = CliRunner().invoke(app, [*argv, "--setting", "frame"])
    assert res.exit_code == 2 and "frame" in res.output, res.output
    res = CliRunner().invoke(app, [*argv, "--setting", "text"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "r" / "run.json").read_text())["status"] == "complete"
