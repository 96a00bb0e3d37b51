"""The four views of a panorama: consistent geometry (a right turn moves what was ahead into the LEFT view —
the issue says "right view", which is backwards), cutting a user's 360° video into view videos, the CLI."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.core.folders.files import InputFileError
from egoworld.geometry.equirect import perspective_sampler
from egoworld.geometry.transforms import make_transform, rotation_about
from egoworld.media.writer import VideoWriter, read_video
from egoworld.sim.head import head_poses
from egoworld.sim.render.renderer import Renderer
from egoworld.sim.walk.synth import NEAR_RADIUS, WalkConfig, WalkWorld, synth_walk
from egoworld.sim.world_cameras import equirect
from egoworld.world.episode_folder import load_episode, save_episode
from egoworld.world.panorama_views import VIEW_ORDER, cut_views, render_view, view_samplers


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    err = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return float(10 * np.log10(255**2 / max(err, 1e-9)))


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = WalkConfig(minutes=6.0, fps=0.5, pano_width=128, view_size=32, min_pixels=3)
    return synth_walk(tmp_path_factory.mktemp("vsi_views") / "walk_a", "walk_a", 5, cfg)


def test_turning_right_brings_what_was_ahead_into_the_left_view() -> None:
    world = WalkWorld("walk_geo", 2, WalkConfig(minutes=1.0))
    eye = np.array([*world.places[0].point(2.0, 0.0), 1.7])
    static = [x for x in world.instances if x.walker is None and x.place == world.places[0].id]
    target = min(static, key=lambda x: abs(np.hypot(*(np.asarray(x.position) - eye[:2])) - 6.0))
    d = np.asarray(target.position) - eye[:2]
    pose = head_poses(eye[None], np.array([math.degrees(math.atan2(d[1], d[0]))]), np.zeros(1))[0]
    cam = equirect(512)
    render = Renderer(cam, far=NEAR_RADIUS)
    prims = world.primitives(0.0, pose[:3, 3])
    turn_right = make_transform(rotation_about("y", 90.0), np.zeros(3))  # + yaw turns right
    before = render.render(prims, pose, world.background).ids
    after = render.render(prims, pose @ turn_right, world.background).ids
    views = view_samplers((cam.height, cam.width), 128, mode="nearest")
    seen_before = {v: int((views[v](before) == target.inst).sum()) for v in VIEW_ORDER}
    seen_after = {v: int((views[v](after) == target.inst).sum()) for v in VIEW_ORDER}
    assert (
        seen_before["front"] > 20 and seen_before["left"] == seen_before["right"] == seen_before["back"] == 0
    )
    assert seen_after["left"] == seen_before["front"]
    assert seen_after["front"] == seen_after["right"] == seen_after["back"] == 0
    # the whole view, not just the target: left view after the turn == front view before it, pixel for pixel;
    # and a right turn is the panorama rolled a quarter turn to the left
    np.testing.assert_array_equal(views["left"](after), views["front"](before))
    np.testing.assert_array_equal(views["front"](after), views["right"](before))
    np.testing.assert_array_equal(after, np.roll(before, -cam.width // 4, axis=1))


def test_cut_views_of_a_panorama_video(walk: Path, tmp_path: Path) -> None:
    meta = cut_views(walk / "pano.mp4", tmp_path / "views", size=32)
    pano = read_video(walk / "pano.mp4")
    n = pano.shape[0]
    assert n == 180
    for v in VIEW_ORDER:
        m = meta[v]
        assert m["frames"] == n and m["duration_s"] == 360.0 and m["video"] == f"{v}.mp4"
        mine = read_video(tmp_path / "views" / f"{v}.mp4")
        sim = read_video(walk / f"{v}.mp4")
        assert mine.shape == sim.shape == (n, 32, 32, 3)
        want = perspective_sampler(pano.shape[1:3], (32, 32), yaw_deg=m["yaw_deg"])(pano)
        off = perspective_sampler(pano.shape[1:3], (32, 32), yaw_deg=m["yaw_deg"] + 20)(pano)
        good = np.mean([_psnr(a, b) for a, b in zip(mine, want, strict=True)])
        wrong = np.mean([_psnr(a, b) for a, b in zip(mine, off, strict=True)])
        # the walk's own views are rendered directly (sharper than any cut from a small panorama): close
        walk_own = np.mean([_psnr(a, b) for a, b in zip(mine, sim, strict=True)])
        assert good > 30 and wrong < good - 10 and walk_own > max(20, wrong + 3), (v, good, walk_own, wrong)
    # a right turn of the whole video: its left view is the original front view
    rolled = tmp_path / "rolled.mp4"
    with VideoWriter(rolled, 0.5, (pano.shape[2], pano.shape[1])) as vw:
        for frame in pano[:12]:
            vw.write(np.roll(frame, -pano.shape[2] // 4, axis=1))
    cut_views(rolled, tmp_path / "rolled_views", size=32)
    left = read_video(tmp_path / "rolled_views" / "left.mp4")
    front = read_video(tmp_path / "views" / "front.mp4")[:12]
    assert min(_psnr(a, b) for a, b in zip(left, front, strict=True)) > 28
    assert render_view(pano[5], -90.0, 32).shape == (32, 32, 3)


def test_a_recording_without_view_videos_is_refused_then_built(walk: Path, tmp_path: Path) -> None:
    """A user's own 360° recording: panorama + poses + annotations, views cut by egoworld."""
    from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig

    rec = tmp_path / "rec"
    shutil.copytree(walk, rec)
    for v in VIEW_ORDER:
        (rec / f"{v}.mp4").unlink()
    ep = load_episode(rec)
    extra = {k: p for k, p in ep.media.extra.items() if k not in VIEW_ORDER}
    meta = {k: x for k, x in ep.meta.items() if k not in ("views", "generator", "config", "seed")}
    save_episode(
        ep.model_copy(update={"media": ep.media.model_copy(update={"extra": extra}), "meta": meta}), rec
    )
    with pytest.raises(InputFileError, match="egoworld vsi-wild views"):
        build_vsi_wild([rec], tmp_path / "b0")
    cut_views(rec / "pano.mp4", rec / "views", size=32)
    ep = load_episode(rec)
    extra = ep.media.extra | {v: f"views/{v}.mp4" for v in VIEW_ORDER}
    save_episode(ep.model_copy(update={"media": ep.media.model_copy(update={"extra": extra})}), rec)
    bench = build_vsi_wild([rec], tmp_path / "b1", BuildConfig(per_task=8)).bench
    assert set(bench.manifest.counts) == {"VMR", "VPO", "VOO", "VOC"} and all(bench.manifest.counts.values())
    assert all(s.metadata["duration_s"] == 360.0 for s in bench.samples)


def test_cli_views_and_build(walk: Path, tmp_path: Path) -> None:
    from egoworld.cli import app

    runner = CliRunner()
    res = runner.invoke(
        app, ["vsi-wild", "views", str(walk / "pano.mp4"), "--out", str(tmp_path / "v"), "--size", "16"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.strip().splitlines()[-1])["left"]["yaw_deg"] == -90.0
    assert (tmp_path / "v" / "back.mp4").is_file()
    out = tmp_path / "b"
    res = runner.invoke(
        app,
        ["build", "vsi-wild", "--world", str(walk), "--out", str(out), "--questions-per-task", "8", "--seed", "2",
         "--vmr-moment", "timestamp"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "VMR correct letters: {'A': 2, 'B': 2, 'C': 2, 'D': 2}" in res.stdout
    m = json.loads((out / "manifest.json").read_text())
    assert (
        m["seed"] == 2
        and m["builder"]["config"]["per_task"] == 8
        and m["builder"]["config"]["vmr"]["moment"] == "timestamp"
    )
    vmr = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines() if '"VMR"' in x]
    assert vmr and all("frames" not in r["media"] and "At 00:" in r["question"] for r in vmr)
    res = runner.invoke(app, ["build", "vsi-wild", "--world", str(tmp_path / "nothing"), "--out", str(out)])
    assert res.exit_code == 2 and "no episode folders" in res.output


@pytest.mark.slow
def test_demo_end_to_end(tmp_path: Path) -> None:
    """``egoworld vsi-wild demo``: walks of every duration group → benchmark → baselines with Shuffle24 → report."""
    from egoworld.cli import app

    res = CliRunner().invoke(app, ["vsi-wild", "demo", "--out", str(tmp_path), "--questions-per-task", "40"])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "report" / "tables.md").read_text()
    assert "| Model | VMR | VPO | VOO | VOC | Overall |" in md and "120+ min" in md
    assert (tmp_path / "report" / "plots" / "vsi_wild_shuffle24.png").is_file()
