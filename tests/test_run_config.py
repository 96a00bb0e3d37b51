"""`egoworld run --config FILE` / `--from RUN_DIR`: schema from the command's options, precedence, refusals,
a byte-identical re-run, and a benchmark's run options (``--option NAME=VALUE``, ``options:`` in a config)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from benchmarks_factory import balanced_mc_bench
from egoworld.cli import app

pytest.importorskip("yaml")
runner = CliRunner()


def _run(*argv: str):
    return runner.invoke(app, ["run", *argv])


def test_config_file_flags_override_and_run_json_records_it(tmp_path):
    balanced_mc_bench(tmp_path / "bench", n_mc=8, n_int=4)
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        f"bench: {tmp_path / 'bench'}\nmodel: random\nout: {tmp_path / 'r1'}\n"
        "permutations: 3\nseed: 5\ntasks: [MC]\nprogress: false\nframe-policy: uniform-round\n"
        "model_arg: {int_range: 0-9}\n"
    )
    res = _run("--config", str(cfg), "--seed", "7")
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "r1" / "run.json").read_text())
    assert manifest["seed"] == 7 and manifest["permutations"] == "3"
    assert manifest["selection"]["tasks"] == ["MC"] and manifest["counts"]["planned"] == 8 * 3
    recorded = manifest["command"]
    assert recorded["name"] == "run"
    c = recorded["config"]
    assert c["seed"] == 7 and c["tasks"] == "MC" and c["frame_policy"] == "uniform-round"
    assert c["model_arg"] == ["int_range=0-9"] and c["progress"] is False and c["out"] == str(tmp_path / "r1")
    assert {"bench", "model", "setting", "frames", "max_pixels", "concurrency", "executor"} <= set(c)


def test_unknown_key_and_bad_values_are_refused_by_name(tmp_path):
    balanced_mc_bench(tmp_path / "bench", n_mc=4, n_int=0)
    cfg = tmp_path / "run.yaml"
    cfg.write_text(f"bench: {tmp_path / 'bench'}\nmodel: random\nout: {tmp_path / 'r'}\nframs: 8\n")
    res = _run("--config", str(cfg))
    assert res.exit_code == 2 and "unknown key 'frams'" in res.output and "'frames'" in res.output
    assert not (tmp_path / "r").exists()
    cfg.write_text(f"bench: {tmp_path / 'bench'}\nmodel: random\nout: {tmp_path / 'r'}\nframes: many\n")
    res = _run("--config", str(cfg))
    assert res.exit_code == 2 and "key 'frames'" in res.output
    cfg.write_text("model: random\n")
    res = _run("--config", str(cfg))
    assert res.exit_code == 2 and "missing --bench, --out" in res.output
    cfg.write_text("- a list\n")
    assert _run("--config", str(cfg)).exit_code == 2


def test_from_run_reproduces_scores_byte_for_byte(tmp_path):
    balanced_mc_bench(tmp_path / "bench", n_mc=12, n_int=6)
    r1, r2, r3 = (tmp_path / n for n in ("r1", "r2", "r3"))
    argv = ["--bench", str(tmp_path / "bench"), "--model", "random", "--out", str(r1)]
    res = _run(*argv, "--permutations", "4", "--epochs", "2", "--seed", "11", "--no-progress")
    assert res.exit_code == 0, res.output
    assert _run("--from", str(r1), "--out", str(r2)).exit_code == 0
    for r in (r1, r2):
        assert runner.invoke(app, ["score", "--run", str(r)]).exit_code == 0
    assert (r2 / "scores.json").read_bytes() == (r1 / "scores.json").read_bytes()
    assert (r2 / "scores.jsonl").read_bytes() == (r1 / "scores.jsonl").read_bytes()
    m1, m2 = (json.loads((r / "run.json").read_text()) for r in (r1, r2))
    assert m2["command"]["config"] == {**m1["command"]["config"], "out": str(r2)}

    # a new model over the recorded settings
    assert _run("--from", str(r1), "--out", str(r3), "--model", "oracle").exit_code == 0
    assert runner.invoke(app, ["score", "--run", str(r3)]).exit_code == 0
    m3 = json.loads((r3 / "run.json").read_text())
    assert m3["model_spec"] == "oracle" and m3["epochs"] == 2 and m3["seed"] == 11
    assert json.loads((r3 / "scores.json").read_text())["overall"] == 100.0

    res = _run("--from", str(tmp_path / "bench"), "--out", str(tmp_path / "r4"))
    assert res.exit_code == 2 and "no run.json" in res.output


def test_run_help_lists_config_options():
    res = runner.invoke(app, ["run", "--help"])
    assert res.exit_code == 0 and "--config" in res.output and "--from" in res.output


def _explore_bench(tmp_path):
    from egoworld.benchmarks.explore.build.builder import ActionEpisode, build_from_episodes
    from egoworld.benchmarks.explore.instances import SceneObject

    things = ["cup", "plate", "knife", "pan", "bowl", "spoon"]
    episodes = []
    for i, n in enumerate((20, 120)):
        img = tmp_path / f"src{i}.png"
        img.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([i]) * 32)
        episodes.append(
            ActionEpisode(
                id=f"ep{i}",
                actions=[f"C picks up the {things[k % 6]}" for k in range(n)],
                final_scene=[SceneObject(t, f"a used {t}", ("in the sink",)) for t in things[2:]],
                initial_image=img,
                initial_scene=[SceneObject(t, f"a clean {t}", ("on the table",)) for t in things[:4]],
            )
        )
    build_from_episodes(episodes, tmp_path / "bench", tiny_size=2)
    return tmp_path / "bench"


def test_benchmark_options_come_from_a_config_mapping_and_from(tmp_path):
    bench = _explore_bench(tmp_path)
    cfg = tmp_path / "explore.yaml"
    cfg.write_text(
        f"bench: {bench}\nmodel: copy-initial\nout: {tmp_path / 'e1'}\nsetting: image\n"
        "options: {strategy: stepwise, segment_num: 2}\nprogress: false\n"
    )
    res = _run("--config", str(cfg))
    assert res.exit_code == 0, res.output
    m1 = json.loads((tmp_path / "e1" / "run.json").read_text())
    assert m1["command"]["name"] == "run"
    assert m1["command"]["config"]["options"] == ["strategy=stepwise", "segment_num=2"]
    assert m1["explore"]["strategy"] == {"kind": "stepwise", "turns": "single", "segment_num": 2}

    res = _run("--from", str(tmp_path / "e1"), "--out", str(tmp_path / "e2"))
    assert res.exit_code == 0, res.output
    m2 = json.loads((tmp_path / "e2" / "run.json").read_text())
    assert m2["explore"] == m1["explore"] and m2["counts"] == m1["counts"]
    assert m2["command"]["config"] == {**m1["command"]["config"], "out": str(tmp_path / "e2")}

    # a flag given on the command line replaces the recorded options
    res = _run("--from", str(tmp_path / "e1"), "--out", str(tmp_path / "e3"), "--option", "strategy=one-go")
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "e3" / "run.json").read_text())["explore"]["strategy"] == {"kind": "one-go"}


def test_from_reads_a_run_recorded_with_the_older_top_level_option_keys(tmp_path):
    """Runs made before ``--option`` recorded EXPLORE's flags as keys of their own (null when not given)."""
    bench = _explore_bench(tmp_path)
    argv = ["--bench", str(bench), "--model", "oracle", "--setting", "image", "--no-progress"]
    res = _run(*argv, "--out", str(tmp_path / "new"), "--option", "strategy=stepwise", "--option", "turns=multi",
               "--option", "segment_num=2")  # fmt: skip
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "new" / "run.json").read_text())
    config = manifest["command"]["config"]
    del config["options"]
    older = {"strategy": "stepwise", "segment_num": 2, "window_size": None, "turns": "multi", "subset": None}
    manifest["command"]["config"] = {**config, **older}
    (tmp_path / "new" / "run.json").write_text(json.dumps(manifest))
    res = _run("--from", str(tmp_path / "new"), "--out", str(tmp_path / "again"))
    assert res.exit_code == 0, res.output
    again = json.loads((tmp_path / "again" / "run.json").read_text())
    assert again["explore"] == manifest["explore"] and again["counts"] == manifest["counts"]
    assert again["command"]["config"]["options"] == ["strategy=stepwise", "segment_num=2", "turns=multi"]
    # an older config file's top-level key is refused with the fix
    cfg = tmp_path / "old.yaml"
    cfg.write_text(f"bench: {bench}\nmodel: oracle\nout: {tmp_path / 'o'}\nstrategy: stepwise\n")
    res = _run("--config", str(cfg))
    assert res.exit_code == 2 and "goes under 'options:'" in " ".join(res.output.split())


def test_unknown_or_bad_benchmark_options_are_refused_by_name(tmp_path):
    bench = _explore_bench(tmp_path)
    argv = ["--bench", str(bench), "--model", "oracle", "--out", str(tmp_path / "r"), "--no-progress"]
    res = _run(*argv, "--option", "strategy=stepwise", "--option", "segment_nm=2")
    assert res.exit_code == 2, res.output
    line = " ".join(res.output.split())
    assert "--option segment_nm: benchmark 'explore' takes no run option 'segment_nm'" in line
    assert "(its options: strategy, segment_num, window_size, turns, subset, protocol)" in line
    assert "did you mean --option segment_num=" in line
    assert len(res.output.strip().splitlines()) <= 3  # one line (wrapped by the terminal width at most)
    for item, message in (
        ("segment_num=two", "segment_num 'two': expected an integer"),
        ("strategy=sideways", "strategy 'sideways': expected one-go or stepwise"),
        ("turns=many", "turns 'many': expected single or multi"),
        ("subset=huge", "subset 'huge': expected one of full, tiny, short, medium, long"),
        ("strategy", "expected NAME=VALUE"),
    ):
        res = _run(*argv, "--option", item)
        assert res.exit_code == 2 and message in " ".join(res.output.split()), (item, res.output)
    # the benchmark's own checks still speak as before
    res = _run(*argv, "--option", "strategy=stepwise", "--option", "segment_num=1")
    assert res.exit_code == 2 and "segment_num must be at least 2, got 1" in res.output
    assert not (tmp_path / "r" / "responses.sqlite").exists()

    balanced_mc_bench(tmp_path / "mc", n_mc=4, n_int=0)
    res = _run(
        "--bench", str(tmp_path / "mc"), "--model", "random", "--out", str(tmp_path / "m"), "--option", "x=1"
    )
    assert res.exit_code == 2
    assert "takes no run option 'x' (its options: none)" in " ".join(res.output.split())


def test_values_are_cast_by_the_option_types():
    import enum
    from pathlib import Path
    from typing import Annotated

    import typer

    from egoworld.core.folders.files import InputFileError
    from egoworld.runner.config_file import cast, to_config

    class Fmt(enum.Enum):
        jpeg = "jpeg"
        png = "png"

    opt = typer.Option()
    assert cast("png", Annotated[Fmt, opt], "image_format", "f") is Fmt.png
    assert to_config({"image_format": Fmt.png, "bench": Path("b")}) == {"image_format": "png", "bench": "b"}
    assert cast("2", Annotated[int, opt], "frames", "f") == 2
    assert cast(0.5, Annotated[float | None, opt], "temperature", "f") == 0.5
    assert cast("no", Annotated[bool, opt], "progress", "f") is False
    assert cast(["a", "b"], Annotated[list[str] | None, opt], "model_arg", "f") == ["a", "b"]
    assert cast(["VMR", "VOC"], Annotated[str | None, opt], "tasks", "f") == "VMR,VOC"
    for value, ann in (("gif", Fmt), (True, int), ("x", float), ("maybe", bool), ({"a": 1}, str | None)):
        with pytest.raises(InputFileError, match="key 'k'"):
            cast(value, Annotated[ann, opt], "k", "f")


def test_run_options_parse_by_their_declared_type():
    from egoworld.core.plugin import BenchmarkPlugin, RunOption, UnknownRunOption, parse_run_options

    plugin = BenchmarkPlugin(
        name="toy",
        run_options=(
            RunOption("fast", bool, False, "skip the slow part"),
            RunOption("ratio", float, 0.5, "a share"),
            RunOption("mode", str, "a", "a mode", ("a", "b", "c")),
            RunOption("n", int),
        ),
    )
    got = parse_run_options(plugin, {"n": "3", "fast": "yes", "ratio": 0.25, "mode": "c"})
    assert got == {"fast": True, "ratio": 0.25, "mode": "c", "n": 3}  # in the declared order
    assert parse_run_options(plugin, {"fast": False}) == {"fast": False}
    for given, message in (
        ({"fast": "maybe"}, "fast 'maybe': expected true or false"),
        ({"ratio": "half"}, "ratio 'half': expected a number"),
        ({"n": True}, "n True: expected an integer"),
        ({"mode": "d"}, "mode 'd': expected one of a, b, c"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_run_options(plugin, given)
    with pytest.raises(
        UnknownRunOption, match=r"takes no run option 'm' \(its options: fast, ratio, mode, n\)"
    ):
        parse_run_options(plugin, {"m": "a"})
    assert plugin.run_options[2].describe() == "mode=a | b | c (default a): a mode"
    assert plugin.run_options[3].describe() == "n=INT"
