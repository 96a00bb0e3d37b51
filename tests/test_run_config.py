"""`egoworld run --config FILE` / `--from RUN_DIR`: schema from the command's options, precedence, refusals,
and a byte-identical re-run."""

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
    res = runner.invoke(app, ["explore", "run", "--help"])
    assert res.exit_code == 0 and "--config" in res.output and "--from" in res.output


def test_explore_run_takes_config_and_from(tmp_path):
    from egoworld.benchmarks.explore.build import ActionEpisode, build_from_episodes
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
    cfg = tmp_path / "explore.yaml"
    cfg.write_text(
        f"bench: {tmp_path / 'bench'}\nmodel: copy-initial\nout: {tmp_path / 'e1'}\n"
        "strategy: stepwise\nsegment_num: 2\nprogress: false\n"
    )
    res = runner.invoke(app, ["explore", "run", "--config", str(cfg)])
    assert res.exit_code == 0, res.output
    m1 = json.loads((tmp_path / "e1" / "run.json").read_text())
    assert m1["command"]["name"] == "explore run" and m1["command"]["config"]["segment_num"] == 2
    assert m1["explore"]["strategy"]["segment_num"] == 2

    res = runner.invoke(
        app, ["explore", "run", "--from", str(tmp_path / "e1"), "--out", str(tmp_path / "e2")]
    )
    assert res.exit_code == 0, res.output
    m2 = json.loads((tmp_path / "e2" / "run.json").read_text())
    assert m2["explore"] == m1["explore"] and m2["counts"] == m1["counts"]
    assert m2["command"]["config"] == {**m1["command"]["config"], "out": str(tmp_path / "e2")}

    res = runner.invoke(app, ["run", "--from", str(tmp_path / "e1"), "--out", str(tmp_path / "e3")])
    assert res.exit_code == 2 and "egoworld explore run" in res.output


def test_values_are_cast_by_the_option_types():
    import enum
    from pathlib import Path
    from typing import Annotated

    import typer

    from egoworld.core.files import InputFileError
    from egoworld.runner.config_file import _cast, to_config

    class Fmt(enum.Enum):
        jpeg = "jpeg"
        png = "png"

    opt = typer.Option()
    assert _cast("png", Annotated[Fmt, opt], "image_format", "f") is Fmt.png
    assert to_config({"image_format": Fmt.png, "bench": Path("b")}) == {"image_format": "png", "bench": "b"}
    assert _cast("2", Annotated[int, opt], "frames", "f") == 2
    assert _cast(0.5, Annotated[float | None, opt], "temperature", "f") == 0.5
    assert _cast("no", Annotated[bool, opt], "progress", "f") is False
    assert _cast(["a", "b"], Annotated[list[str] | None, opt], "model_arg", "f") == ["a", "b"]
    assert _cast(["VMR", "VOC"], Annotated[str | None, opt], "tasks", "f") == "VMR,VOC"
    for value, ann in (("gif", Fmt), (True, int), ("x", float), ("maybe", bool), ({"a": 1}, str | None)):
        with pytest.raises(InputFileError, match="key 'k'"):
            _cast(value, Annotated[ann, opt], "k", "f")
