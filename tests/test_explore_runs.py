"""EXPLORE runs end to end: one-go and stepwise strategies through the runner's request chains (oracle,
copy-initial and an OpenAI-compatible server on 127.0.0.1), their request keys and step labels pinned, resume
of multi-turn chains, costs, the standard plan + `egoworld score --judge`, and the CLI (import, run with
``--option strategy=…``, score predictions, agreement, reports)."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.explore.build.builder import ActionEpisode, build_from_episodes
from egoworld.benchmarks.explore.instances import SceneObject
from egoworld.benchmarks.explore.paper_tables import explore_report
from egoworld.benchmarks.explore.strategy import Strategy
from egoworld.cli import app
from egoworld.core.folders.files import read_json
from egoworld.core.folders.store import ResponseStore
from egoworld.core.run_config import RunConfig
from egoworld.runner.run import run_benchmark
from egoworld.runner.summary import RunSummary
from egoworld.scoring.score import score_run
from openai_test_server import FakeOpenAIServer

THINGS = ["cup", "plate", "knife", "pan", "bowl", "spoon", "kettle", "towel", "bottle", "apple"]
LENGTHS = (30, 150, 240, 260)


def _episode(tmp: Path, i: int, n_actions: int) -> ActionEpisode:
    img = tmp / f"src{i}.png"
    img.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([i]) * 32)
    initial = [SceneObject(t, f"a clean {t}", ("on the table",)) for t in THINGS[:6]]
    final = [
        SceneObject(t, f"a used {t} with crumbs", ("in the sink" if k % 2 else "on the counter",))
        for k, t in enumerate(THINGS[3:9])
    ]
    actions = [
        f"C picks up the {THINGS[k % 10]}" if k % 2 else f"C puts down the {THINGS[k % 10]}"
        for k in range(n_actions)
    ]
    return ActionEpisode(
        id=f"ep{i}", actions=actions, final_scene=final, initial_image=img, initial_scene=initial
    )


@pytest.fixture(scope="module")
def world_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("explore_world")
    build_from_episodes([_episode(tmp, i, n) for i, n in enumerate(LENGTHS)], tmp / "bench", tiny_size=4)
    return tmp / "bench"


def _options(strategy: Strategy) -> dict[str, object]:
    """Run options (``RunConfig.options``) of a strategy, as `egoworld run --option strategy=…` gives them."""
    return {
        "strategy": strategy.kind,
        "segment_num": strategy.segment_num,
        "window_size": strategy.window_size,
        "turns": strategy.turns,
    }


def _config(bench: Path, out: Path, model: str, strategy: Strategy = Strategy(), **kw) -> RunConfig:
    kw.setdefault("setting", "image")
    return RunConfig(bench=bench, model=model, out=out, options=_options(strategy), progress=False, **kw)


def _run(bench: Path, out: Path, model: str, strategy: Strategy = Strategy(), **kw) -> RunSummary:
    return run_benchmark(_config(bench, out, model, strategy, **kw))


def _plan_digest(run: Path) -> tuple[str, list[str]]:
    """A digest of the run's (sample, step label, request key) rows, and its step labels."""
    with ResponseStore(run / "responses.sqlite", readonly=True) as store:
        rows = sorted(f"{s} {p} {k}" for s, p, _e, k, _r in store.planned())
        labels = sorted({p for _s, p, _e, _k, _r in store.planned()})
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16], labels


#: (strategy, setting, model) → digest of the request keys and the step labels, as the EXPLORE driver wrote
#: them before runs went through the one runner: an older run folder resumes without re-sending anything
PINNED = [
    (Strategy(), "image", "oracle", "99b5f2f338187e7f", ["one-go"]),
    (Strategy(), "text", "oracle", "38f95b55637cb894", ["one-go"]),
    (Strategy("stepwise", segment_num=3), "image", "oracle", "03cfafa3bfd90970", ["list"]),
    (Strategy("stepwise", segment_num=3), "text", "oracle", "6e1d943dcf4244e2", ["list"]),
    (
        Strategy("stepwise", window_size=100, turns="multi"),
        "image",
        "oracle",
        "244d8f578e8ac767",
        ["turn-001", "turn-002", "turn-003"],
    ),
    (
        Strategy("stepwise", window_size=100, turns="multi"),
        "text",
        "oracle",
        "fd6419362a0655da",
        ["turn-001", "turn-002", "turn-003"],
    ),
    (
        Strategy("stepwise", segment_num=4, turns="multi"),
        "image",
        "oracle",
        "fa2359faed012dfe",
        ["turn-001", "turn-002", "turn-003", "turn-004"],
    ),
    (
        Strategy("stepwise", segment_num=4, turns="multi"),
        "text",
        "oracle",
        "e0f6711a7a8e9291",
        ["turn-001", "turn-002", "turn-003", "turn-004"],
    ),
    (  # turn k's key covers turn k-1's reply: another model's replies give other keys
        Strategy("stepwise", segment_num=4, turns="multi"),
        "image",
        "copy-initial",
        "ad5999c064374960",
        ["turn-001", "turn-002", "turn-003", "turn-004"],
    ),
]


@pytest.mark.parametrize(("strategy", "setting", "model", "digest", "labels"), PINNED)
def test_request_keys_and_step_labels_are_pinned(
    world_bench: Path, tmp_path: Path, strategy: Strategy, setting: str, model: str, digest: str, labels: list
) -> None:
    summary = _run(world_bench, tmp_path / "r", model, strategy, setting=setting)
    assert summary.errors == summary.blocked == 0
    assert _plan_digest(tmp_path / "r") == (digest, labels)
    again = _run(world_bench, tmp_path / "r", model, strategy, setting=setting)
    assert again.called == 0 and again.reused == summary.called


#: `egoworld run --setting S --option …` (model M) → sha256 of the sorted request keys, their number, and
#: digests of run.json's ``config`` and ``explore`` blocks: recorded with the flags these options replaced
#: (``--strategy stepwise --segment-num 4`` …) before they went, so a run folder made with the old flags
#: resumes under the new spelling without re-sending anything and keeps its run.json
PINNED_CLI = [
    (
        "image",
        ["strategy=stepwise", "segment_num=4"],
        "oracle",
        "b37d02cd6f267b1a36c4b589972ecb7fa35c1bd171e73896a1cbf7b259d8c48a",
        4,
        "89b2c9198d4ca29f",
        "4f0f83ae0aae9cb4",
    ),
    (
        "image",
        ["strategy=stepwise", "segment_num=4", "turns=multi"],
        "oracle",
        "3f267601a335581e8d38e1efb785d37f68cd70a8029a02bfdf5924be870d6dd9",
        16,
        "89b2c9198d4ca29f",
        "c03be9d049c4f726",
    ),
    (
        "image",
        ["strategy=one-go"],
        "oracle",
        "e5dfb2a25ecf9c1601e53e82b74c2ca6d9dea2c3d4e9d62c2d80eaa5eaafecbc",
        4,
        "89b2c9198d4ca29f",
        "07b606fd07634fea",
    ),
    (
        "image",
        [],
        "oracle",
        "e5dfb2a25ecf9c1601e53e82b74c2ca6d9dea2c3d4e9d62c2d80eaa5eaafecbc",
        4,
        "89b2c9198d4ca29f",
        "07b606fd07634fea",
    ),
    (
        "image",
        ["strategy=stepwise", "window_size=100", "turns=multi"],
        "copy-initial",
        "8457a9192f0ab75f26399d69763e85dfecd4ce818e7881ee9d572a9580a92b72",
        9,
        "89b2c9198d4ca29f",
        "b746cd9bc62ccd6e",
    ),
    (
        "text",
        ["strategy=stepwise", "segment_num=3", "subset=long"],
        "oracle",
        "c4fc340828ac0ac3757e0e3248f0131d91dffec3afc6a030fdaa5fca57913f23",
        2,
        "89b2c9198d4ca29f",
        "73ab46dd9e637e2a",
    ),
    (
        "text",
        ["strategy=one-go", "subset=tiny"],
        "oracle",
        "d4315125f2a236ce2ff1a997cb25ada64f8e8d264c626449ee4c8266a9fc4bd2",
        2,
        "89b2c9198d4ca29f",
        "ee5f313193177c2e",
    ),
    (
        "text",
        ["strategy=stepwise", "segment_num=2", "turns=multi", "subset=short"],
        "copy-initial",
        "df1452ba6e2aba22938dac3caf9a5827842764761870683a9be2976bff465514",
        2,
        "89b2c9198d4ca29f",
        "bf823e1f40a0aef7",
    ),
]


def _block(manifest: dict, name: str) -> str:
    return hashlib.sha256(json.dumps(manifest.get(name), sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("setting", "options", "model", "keys", "n", "config", "explore"), PINNED_CLI)
def test_run_options_reproduce_the_old_flags_request_keys(
    world_bench: Path, tmp_path: Path, setting: str, options: list, model: str, keys: str, n: int, config: str,
    explore: str,
) -> None:  # fmt: skip
    argv = [
        "run",
        "--bench",
        str(world_bench),
        "--model",
        model,
        "--out",
        str(tmp_path / "r"),
        "--no-progress",
    ]
    argv += ["--setting", setting, *(x for o in options for x in ("--option", o))]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    with ResponseStore(tmp_path / "r/responses.sqlite", readonly=True) as store:
        got = sorted(k for _s, _p, _e, k, _r in store.planned())
    assert (hashlib.sha256("\n".join(got).encode()).hexdigest(), len(got)) == (keys, n)
    manifest = read_json(tmp_path / "r/run.json")
    assert (_block(manifest, "config"), _block(manifest, "explore")) == (config, explore)
    assert manifest["command"]["config"]["options"] == (options or None)


def test_run_help_lists_every_benchmarks_options_and_no_benchmark_flag() -> None:
    from egoworld.core import registry
    from egoworld.core.plugin import plugin_for

    text = CliRunner().invoke(app, ["run", "--help"]).output
    for flag in ("--strategy", "--segment-num", "--window-size", "--turns", "--subset"):
        assert flag not in text
    declared = [o for n in registry.names(registry.BENCHMARKS) for o in plugin_for(n).run_options]
    assert {o.name for o in declared} >= {"strategy", "segment_num", "window_size", "turns", "subset"}
    options = text.split("Benchmark run options:")[1]
    for o in declared:
        assert o.describe() in " ".join(options.split()), o.name
    assert text.rstrip().splitlines()[-2].strip() == "Example:"  # the example still ends the help
    listed = CliRunner().invoke(app, ["explore", "--help"]).output.split("Commands:")[1].split()
    assert "score" in listed and "run" not in listed
    res = CliRunner().invoke(app, ["explore", "run", "--help"])
    assert res.exit_code != 0  # the old alias is gone: `egoworld run --option …`


def test_explore_options_refuse_the_standard_plans_settings(world_bench: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        ["run", "--bench", str(world_bench), "--model", "oracle", "--out", str(tmp_path / "c"),
         "--option", "strategy=one-go", "--epochs", "2"],
    )  # fmt: skip
    assert res.exit_code != 0 and "--epochs" in res.output


def test_oracle_and_copy_initial_bracket_on_long_sequences(world_bench: Path, tmp_path: Path) -> None:
    for name in ("oracle", "copy-initial"):
        _run(world_bench, tmp_path / name, name)
        score_run(tmp_path / name, options={"judge": "lexical"})
    oracle = read_json(tmp_path / "oracle/scores.json")["explore"]["partitions"]
    copy = read_json(tmp_path / "copy-initial/scores.json")["explore"]["partitions"]
    assert oracle["long"]["n"] == 2 and oracle["long"]["s_obj"] >= 95
    assert copy["long"]["s_obj"] < oracle["long"]["s_obj"] - 15
    assert copy["full"]["s_uni"] < oracle["full"]["s_uni"] - 15
    tables = explore_report([tmp_path / "oracle", tmp_path / "copy-initial"], tmp_path / "rep").read_text()
    assert "oracle · one-go" in tables and "copy-initial · one-go" in tables and "NOT comparable" in tables
    rows = (tmp_path / "rep/explore_table2.csv").read_text().splitlines()
    assert rows[0].startswith("Model,Judge,Short S_obj") and len(rows) == 3


def test_stepwise_single_and_multi_turn_with_baselines(world_bench: Path, tmp_path: Path) -> None:
    single = Strategy("stepwise", segment_num=3, turns="single")
    multi = Strategy("stepwise", window_size=100, turns="multi")
    _run(world_bench, tmp_path / "single", "oracle", single)
    _run(world_bench, tmp_path / "multi", "copy-initial", multi)
    s = score_run(tmp_path / "single", options={"judge": "lexical"})
    m = score_run(tmp_path / "multi", options={"judge": "lexical"})
    assert s["parse_rate"] == 100.0 and s["explore"]["partitions"]["full"]["s_obj"] >= 95
    assert s["explore"]["cost"]["requests"] == len(LENGTHS)
    # windows of 100 actions: 1 + 2 + 3 + 3 turns
    assert (
        m["explore"]["cost"]["requests"] == 9
        and read_json(tmp_path / "multi/run.json")["cost"]["requests"] == 9
    )
    rows = [json.loads(line) for line in (tmp_path / "multi/scores.jsonl").read_text().splitlines()]
    assert [r["predicted_scenes"] for r in rows] == [1, 2, 3, 3]
    one_go = tmp_path / "og"
    _run(world_bench, one_go, "oracle")
    with pytest.raises(ValueError, match="strategy"):
        _run(world_bench, one_go, "oracle", single)
    tables = explore_report([tmp_path / "single", tmp_path / "multi", one_go], tmp_path / "rep").read_text()
    assert (tmp_path / "rep/plots/explore_sweep_segment_num.png").stat().st_size > 1000
    assert (tmp_path / "rep/plots/explore_sweep_window_size.png").stat().st_size > 1000
    assert "| oracle · stepwise-seg3-single | stepwise-seg3-single |" in tables
    assert "| copy-initial · stepwise-win100-multi | stepwise-win100-multi | " in tables


def test_multi_turn_server_run_carries_previous_scene_resends_image_and_resumes(
    world_bench: Path, tmp_path: Path
) -> None:
    broken = {"on": True}

    def reply(prompt: str) -> str:
        return f"Scene number {prompt.count('picks up')} shows a cup on the table."

    def fault(
        prompt: str,
    ) -> str | None:  # turn 3 of the 260-action sequence (32 "picks up") fails while broken
        return (
            "500"
            if broken["on"] and "after previous actions" in prompt and prompt.count("picks up") == 32
            else None
        )

    strategy = Strategy("stepwise", segment_num=4, turns="multi")
    args = {"base_url": "", "max_retries": "0", "backoff": "0.01", "timeout": "5"}
    with FakeOpenAIServer(reply=reply, fault=fault) as srv:
        args["base_url"] = srv.base_url
        cfg = _config(
            world_bench, tmp_path / "r", "openai:fake-vlm", strategy, model_args=args, concurrency=4
        )
        first = run_benchmark(cfg)
        assert first.errors == 1 and first.blocked == 1 and first.ok == 14
        assert all(any(p.get("type") == "image_url" for p in b["messages"][0]["content"]) for b in srv.bodies)
        texts = [
            "\n".join(p["text"] for p in b["messages"][0]["content"] if p["type"] == "text")
            for b in srv.bodies
        ]
        carried = [t for t in texts if "after previous actions" in t]
        assert len(carried) == 11 and all('"Scene number ' in t for t in carried)  # previous reply quoted
        assert read_json(tmp_path / "r/run.json")["status"] == "incomplete"
        broken["on"] = False
        sent_before = len(srv.bodies)
        second = run_benchmark(cfg)
        assert second.called == 2 and second.reused == 14 and second.errors == 0
        assert len(srv.bodies) == sent_before + 2
    manifest = read_json(tmp_path / "r/run.json")
    assert manifest["status"] == "complete" and manifest["cost"]["prompt_tokens"] == 42 * 16
    with ResponseStore(tmp_path / "r/responses.sqlite", readonly=True) as store:
        labels = sorted({p for _s, p, _e, _k, _r in store.planned()})
    assert labels == ["turn-001", "turn-002", "turn-003", "turn-004"]
    summary = score_run(tmp_path / "r", options={"judge": "lexical"})
    assert summary["complete"] and summary["explore"]["cost"]["ok_requests"] == 16


def test_generic_runner_one_go_then_score_with_judge_and_report(world_bench: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "run",
            "--bench",
            str(world_bench),
            "--model",
            "oracle",
            "--out",
            str(tmp_path / "g"),
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["score", "--run", str(tmp_path / "g"), "--judge", "lexical"])
    assert res.exit_code == 0, res.output
    summary = read_json(tmp_path / "g/scores.json")
    assert (
        summary["tasks"]["scene"]["metric"] == "s_uni"
        and summary["explore"]["partitions"]["full"]["s_obj"] >= 95
    )
    res = runner.invoke(app, ["report", "--run", str(tmp_path / "g"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rep/index.html").is_file()
    res = runner.invoke(app, ["score", "--run", str(tmp_path / "g"), "--judge", "nonsense"])
    assert res.exit_code == 2 and "lexical" in res.output


def test_cli_import_score_predictions_and_agreement(tmp_path: Path) -> None:
    anno = [
        {
            "start_frame": f"f{i}.jpg",
            "atomic_actions": "|".join(f"C step {j}" for j in range(20 + i)),
            "end_frame_info": [
                {"category": "cup", "description": "a red cup", "relation": ["on the table"]},
                {"category": "knife", "description": "a steel knife", "relation": ["next to the cup"]},
                {"category": "towel", "description": "a striped towel", "relation": []},
            ],
        }
        for i in range(4)
    ]
    preds = {
        "f0.jpg": "A red cup is on the table. A steel knife lies next to the cup. A striped towel hangs.",
        "f1.jpg": "A blue cup stands in the sink. A knife is in the drawer.",
        "f2.jpg": ["An empty table.", "A red cup on the table. The towel is folded."],
        "f3.jpg": "The room is dark.",
    }
    (tmp_path / "anno.json").write_text(json.dumps(anno))
    (tmp_path / "preds.json").write_text(json.dumps(preds))
    runner = CliRunner()
    res = runner.invoke(
        app, ["import", "explore-anno", str(tmp_path / "anno.json"), "--out", str(tmp_path / "b")]
    )
    assert res.exit_code == 0, res.output

    def judge_reply(prompt: str) -> str:
        return "5" if "red cup" in prompt.split("Phrase")[0] else "1"

    with FakeOpenAIServer(reply=judge_reply) as srv:
        for out, judge in (("lex", "lexical"), ("llm", f"openai:qwen3-8b,base_url={srv.base_url}")):
            res = runner.invoke(
                app,
                [
                    "explore",
                    "score",
                    "--bench",
                    str(tmp_path / "b"),
                    "--predictions",
                    str(tmp_path / "preds.json"),
                    "--out",
                    str(tmp_path / out),
                    "--judge",
                    judge,
                ],
            )
            assert res.exit_code == 0, res.output
            assert "S_uni" in res.output
    res = runner.invoke(
        app, ["explore", "agreement", "--run", str(tmp_path / "lex"), "--run", str(tmp_path / "llm")]
    )
    assert res.exit_code == 0, res.output
    result = json.loads(res.output)
    assert result["n"] > 0 and -1.0 <= result["spearman"] <= 1.0
    res = runner.invoke(
        app, ["explore", "agreement", "--run", str(tmp_path / "llm"), "--template", str(tmp_path / "h.csv")]
    )
    assert res.exit_code == 0, res.output
    with (tmp_path / "h.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    llm_rows = [json.loads(line) for line in (tmp_path / "llm/scores.jsonl").read_text().splitlines()]
    truth = {
        (r["sample"], it["kind"], it["object"], it["relation"]): it["score"]
        for r in llm_rows
        for it in r["items"]
    }
    for r in rows:  # "humans" who agree with the judge up to a monotone transform → Spearman 1
        rel = int(r["relation"]) if r["relation"] else None
        r["score"] = str(2 * truth[(r["sample"], r["kind"], int(r["object"]), rel)] + 1)
    with (tmp_path / "h.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    res = runner.invoke(
        app, ["explore", "agreement", "--run", str(tmp_path / "llm"), "--human", str(tmp_path / "h.csv")]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["spearman"] == pytest.approx(1.0)
    res = runner.invoke(
        app,
        [
            "explore",
            "report",
            "--run",
            str(tmp_path / "lex"),
            "--run",
            str(tmp_path / "llm"),
            "--out",
            str(tmp_path / "rep"),
        ],  # fmt: skip
    )
    assert res.exit_code == 0, res.output
    assert "openai:qwen3-8b" in res.output and "Description length" in res.output


def _world_episode(folder: Path, i: int, n_actions: int) -> None:
    from egoworld.world.episode import Action, Episode, EpisodeMedia, SceneGraph
    from egoworld.world.episode import SceneObject as WorldObject
    from egoworld.world.episode_folder import save_episode

    folder.mkdir(parents=True)
    (folder / "initial.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([100 + i]) * 16)
    acts = tuple(
        Action(start_s=float(k), end_s=k + 0.5, text=f"C moves the {THINGS[k % 10]}")
        for k in range(n_actions)
    )
    graphs = (
        SceneGraph(
            label="initial",
            time_s=0.0,
            image="initial.png",
            objects=tuple(
                WorldObject(category=t, description=f"a clean {t}", relations=("on the table",))
                for t in THINGS[:5]
            ),
        ),
        SceneGraph(
            label="middle",
            time_s=n_actions / 2,
            objects=(WorldObject(category="cup", description="a cup in a hand", relations=("held by C",)),),
        ),
        SceneGraph(
            label="final",
            time_s=float(n_actions),
            objects=tuple(
                WorldObject(
                    category=t,
                    description=f"a wet {t}",
                    relations=("in the sink",),
                    key_state="wet" if i == 1 and t == "bowl" else None,
                )
                for t in THINGS[4:9]
            ),
        ),
    )
    save_episode(
        Episode(
            id=f"world{i}",
            duration_s=n_actions + 1.0,
            fps=30.0,
            actions=acts,
            scene_graphs=graphs,
            media=EpisodeMedia(images={"initial": "initial.png"}),
        ),
        folder,
    )


def test_build_from_world_episodes_cli_then_baselines_bracket(tmp_path: Path) -> None:
    for i, n in enumerate((220, 230)):
        _world_episode(tmp_path / "world" / f"ep{i}", i, n)
    runner = CliRunner()
    res = runner.invoke(
        app, ["build", "explore", "--world", str(tmp_path / "world"), "--out", str(tmp_path / "b")]
    )
    assert res.exit_code == 0, res.output
    bench = tmp_path / "b"
    samples = [json.loads(line) for line in (bench / "samples.jsonl").read_text().splitlines()]
    assert [s["task"] for s in samples] == ["scene", "abnormal"]
    assert (
        samples[0]["metadata"]["partition"] == "long"
        and samples[0]["answer"]["middle"][0]["after_action"] == 110
    )
    assert (bench / "images/world0.png").is_file() and len(samples[0]["metadata"]["initial_scene"]) == 5
    for name in ("oracle", "copy-initial"):
        _run(bench, tmp_path / name, name)
    oracle = score_run(tmp_path / "oracle", options={"judge": "lexical"})["explore"]
    copy = score_run(tmp_path / "copy-initial", options={"judge": "lexical"})["explore"]
    assert oracle["partitions"]["long"]["s_obj"] >= 95 > copy["partitions"]["long"]["s_obj"] + 15
    assert oracle["abnormal"]["s_key"] >= 4.0 > copy["abnormal"]["s_key"] + 1


def test_epic_sequences_drive_cost_studies(tmp_path: Path, data_dir: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "build",
            "explore",
            "--epic",
            str(data_dir / "epic-kitchens-100"),
            "--out",
            str(tmp_path / "e"),
            "--per-partition",
            "1",
            "--seed",
            "2",
        ],
    )
    assert res.exit_code == 0, res.output
    samples = [json.loads(line) for line in (tmp_path / "e/samples.jsonl").read_text().splitlines()]
    n_actions = [s["metadata"]["n_actions"] for s in samples]
    with FakeOpenAIServer(reply=lambda prompt: "A kitchen counter with a plate.") as srv:
        cfg = _config(
            tmp_path / "e",
            tmp_path / "r",
            "openai:fake-vlm",
            Strategy("stepwise", window_size=50, turns="multi"),
            setting="text",
            model_args={"base_url": srv.base_url},
        )
        summary = run_benchmark(cfg)
    assert summary.errors == 0 and summary.ok == sum(-(-n // 50) for n in n_actions)
    scores = score_run(tmp_path / "r", options={"judge": "lexical"})
    assert scores["explore"]["unannotated"] == 3 and scores["explore"]["partitions"] == {}
    assert scores["explore"]["cost"]["prompt_tokens"] == 42 * summary.ok
    assert all("image_url" not in json.dumps(b) for b in srv.bodies)


@pytest.mark.slow
def test_oracle_and_copy_initial_on_simulated_long_action_scenes(tmp_path: Path) -> None:
    """The sim's action scenes: things come out of closed fridges, cupboards and drawers during 300 actions,
    so describing the initial scene misses objects the final frame shows."""
    from egoworld.benchmarks.explore.build.from_world import build_from_world
    from egoworld.sim.actions.synth import ActionConfig
    from egoworld.sim.worldset import synth_world_set

    synth_world_set("actions", tmp_path / "worlds", 4, 3, ActionConfig(n_actions=300, abnormal_rate=0.0))
    bench = tmp_path / "bench"
    build_from_world([tmp_path / "worlds"], bench, seed=0, tiny_size=4)
    for name in ("oracle", "copy-initial"):
        _run(bench, tmp_path / name, name)
        score_run(tmp_path / name, options={"judge": "lexical"})
    oracle = read_json(tmp_path / "oracle/scores.json")["explore"]["partitions"]["long"]
    copy = read_json(tmp_path / "copy-initial/scores.json")["explore"]["partitions"]["long"]
    assert oracle["n"] == copy["n"] == 4
    assert oracle["s_obj"] >= 95
    assert copy["s_obj"] < oracle["s_obj"] - 5 and copy["s_uni"] < oracle["s_uni"] - 5


def test_official_protocol_sends_text_before_the_image(world_bench: Path, tmp_path: Path) -> None:
    """``--option protocol=official``: the official API clients' order (prompt text, then the image); the
    same text and image bytes as the egoworld protocol, which sends the image first; run.json records it."""
    from egoworld.core.folders.store import ResponseStore

    contents = {}
    for protocol in ("egoworld", "official"):
        out = tmp_path / protocol
        cfg = _config(world_bench, out, "oracle", limit=2)
        cfg.options["protocol"] = protocol
        assert run_benchmark(cfg).errors == 0
        with ResponseStore(out / "responses.sqlite", readonly=True) as store:
            contents[protocol] = [
                store.request(k)["messages"][0]["content"] for _, _, _, k, _ in store.planned()
            ]
        inputs = json.loads((out / "run.json").read_text())["inputs"]
        assert inputs.get("protocol") == (None if protocol == "egoworld" else "official")
    assert len(contents["official"]) == 2
    for ours, theirs in zip(contents["egoworld"], contents["official"], strict=True):
        assert [p["type"] for p in ours] == ["image", "text"]
        assert [p["type"] for p in theirs] == ["text", "image"]
        assert ours[::-1] == theirs
