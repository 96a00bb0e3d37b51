"""``egoworld world synth``: world sets with progress, resumption and identical bytes in parallel."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.core.folders.hashing import sha256_file
from egoworld.world.episode_folder import find_episodes, load_episode

runner = CliRunner()


def _hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}


def test_synth_actions_resumes_and_refuses_mixed_parameters(tmp_path: Path) -> None:
    out = tmp_path / "w"
    r = runner.invoke(
        app,
        ["world", "synth", "actions", "--episodes", "2", "--actions", "30", "--seed", "3", "--out", str(out)],
    )
    assert r.exit_code == 0, r.output
    assert [p.name for p in find_episodes(out)] == ["actions_000", "actions_001"]
    stamp = os.stat(out / "actions_000" / "episode.json").st_mtime_ns
    (out / ".actions_002.partial").mkdir()  # an interrupted earlier run
    (out / ".actions_002.partial" / "junk").write_text("x")
    r = runner.invoke(
        app,
        ["world", "synth", "actions", "--episodes", "3", "--actions", "30", "--seed", "3", "--out", str(out)],
    )
    assert r.exit_code == 0, r.output
    assert "2 already there, 1 made" in r.output
    assert os.stat(out / "actions_000" / "episode.json").st_mtime_ns == stamp
    assert not (out / ".actions_002.partial").exists() and (out / "actions_002" / "initial.png").is_file()
    r = runner.invoke(
        app,
        ["world", "synth", "actions", "--episodes", "3", "--actions", "30", "--seed", "4", "--out", str(out)],
    )
    assert r.exit_code == 2 and "another seed" in r.output
    r = runner.invoke(
        app,
        [
            "world",
            "synth",
            "actions",
            "--episodes",
            "1",
            "--actions",
            "30",
            "--seed",
            "4",
            "--out",
            str(out),
            "--force",
        ],
    )
    assert r.exit_code == 0 and load_episode(out / "actions_000").meta["seed"] == 4


def test_parallel_jobs_give_the_same_bytes(tmp_path: Path) -> None:
    args = ["world", "synth", "actions", "--episodes", "3", "--actions", "20", "--seed", "8"]
    assert runner.invoke(app, [*args, "--out", str(tmp_path / "seq")]).exit_code == 0
    r = runner.invoke(app, [*args, "--out", str(tmp_path / "par"), "--jobs", "2"])
    assert r.exit_code == 0, r.output
    assert _hashes(tmp_path / "seq") == _hashes(tmp_path / "par")


def test_synth_kitchen_and_walk_from_the_command_line(tmp_path: Path) -> None:
    r = runner.invoke(
        app,
        [
            "world",
            "synth",
            "kitchen",
            "--minutes",
            "2",
            "--fps",
            "0.5",
            "--size",
            "96",
            "--out",
            str(tmp_path / "k"),
        ],
    )
    assert r.exit_code == 0, r.output
    ep = load_episode(tmp_path / "k" / "kitchen_000")
    assert ep.camera.kind == "fisheye" and len(ep.poses) == 60
    r = runner.invoke(
        app,
        [
            "world",
            "synth",
            "walk",
            "--minutes",
            "0.5",
            "--fps",
            "0.5",
            "--size",
            "128",
            "--view-size",
            "32",
            "--out",
            str(tmp_path / "w"),
        ],
    )
    assert r.exit_code == 0, r.output
    assert (tmp_path / "w" / "walk_000" / "left.mp4").is_file()
    r = runner.invoke(app, ["world", "synth", "kitchen", "--minutes", "1", "--out", str(tmp_path / "bad")])
    assert r.exit_code == 2 and "2 to 40" in r.output
    r = runner.invoke(app, ["world", "show", str(tmp_path / "k"), "--png", str(tmp_path / "k.png")])
    assert r.exit_code == 0, r.output


def test_synth_kitchen_no_render_writes_the_same_truth_without_media(tmp_path: Path) -> None:
    """``--no-render``: the episode files of a rendered kitchen (but for ``media`` and the config's
    ``render``), and no video / visibility / detections (a text-only Beyond3D build reads it:
    `test_beyond3d_option_mix.test_fixture_chance_of_a_1000_anchor_build`)."""
    from egoworld.sim.kitchen.synth import KitchenConfig, synth_kitchen

    common = ["world", "synth", "kitchen", "--episodes", "1", "--minutes", "2", "--fps", "1", "--size", "64"]
    out = tmp_path / "truth"
    r = runner.invoke(app, [*common, "--seed", "5", "--no-render", "--out", str(out)])
    assert r.exit_code == 0, r.output
    folder = out / "kitchen_000"
    assert not any((folder / f).exists() for f in ("video.mp4", "visibility.npz", "detections.jsonl"))
    bare = load_episode(folder)
    assert bare.media.video is None and bare.media.extra == {"sim": "sim.json"}
    assert bare.meta["config"]["render"] is False
    cfg = KitchenConfig(minutes=2.0, fps=1.0, size=64)
    assert "render" not in cfg.to_json()  # rendered sets keep their config (and resume)
    full = load_episode(synth_kitchen(tmp_path / "rendered", "kitchen_000", 5, cfg))
    assert (folder / "sim.json").read_bytes() == (tmp_path / "rendered" / "sim.json").read_bytes()
    for name in ("poses.jsonl", "fixtures.jsonl", "objects.jsonl", "actions.jsonl"):
        assert (folder / name).read_bytes() == (tmp_path / "rendered" / name).read_bytes(), name
    assert bare.model_copy(update={"media": full.media, "meta": full.meta}) == full
    again = runner.invoke(app, [*common, "--seed", "5", "--out", str(out)])
    assert again.exit_code == 2 and "other parameters" in again.output  # rendered ≠ ground truth only
    walk = runner.invoke(app, ["world", "synth", "walk", "--no-render", "--out", str(tmp_path / "w")])
    assert walk.exit_code != 0 and "kitchen option" in walk.output
