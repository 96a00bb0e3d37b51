"""Building Beyond3D from small rendered sim kitchens: trajectories, determinism, choices, media fields for
the three settings, the temporal-cues variant, the CLI, and the HD-EPIC movements-only path on the real
``assoc_info.json``."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.beyond3d import SPATIAL_TASKS, STEP, TASK_ORDER
from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
from egoworld.benchmarks.beyond3d.build.common import chance_of
from egoworld.benchmarks.beyond3d.build.cues import cue_variant
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.world import load_episode, save_episode
from sim_worlds import sim_kitchens

GEO = "none"  # geometric visibility only: the tiny test images are too small for the simulated detector


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("b3d_world")
    # the older pace: this world (15 min, seed 1) fills 40 anchors with it, only 26 with HD-EPIC work sessions
    return sim_kitchens(out, episodes=3, minutes=5.0, seed=1, pace="classic")


@pytest.fixture(scope="module")
def bench_dir(world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("b3d_bench")
    build_beyond3d([world], out, BuildConfig(anchors=40, controls=40, seed=3, detections=GEO))
    return out


def test_trajectories_have_eight_steps_with_dependencies(bench_dir: Path) -> None:
    bench = load_benchmark(bench_dir)
    assert bench.tasks() == list(TASK_ORDER)
    traj: dict[str, list] = {}
    for s in bench.samples:
        if s.trajectory is None:
            assert (
                s.task == "visibility" and s.choices[s.answer] == "Yes" and s.metadata["anchor"] == "visible"
            )
            continue
        traj.setdefault(s.trajectory.id, []).append(s)
    assert len(traj) == 40 and sum(s.trajectory is None for s in bench.samples) == 40
    for steps in traj.values():
        assert [s.task for s in steps] == list(TASK_ORDER)
        by_task = {s.task: s for s in steps}
        for s in steps:
            assert s.trajectory.step == STEP[s.task]
            want = {o.id for o in steps if STEP[o.task] < STEP[s.task]}
            assert set(s.trajectory.depends_on) == want
        assert by_task["visibility"].choices[by_task["visibility"].answer] == "No"
        q = by_task["visibility"].metadata["query_s"]
        assert all(s.metadata["query_s"] == q for s in steps)
        assert by_task["visibility"].metadata["horizon_s"] >= 2


def test_same_inputs_give_identical_bytes_and_seed_matters(
    world: Path, bench_dir: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    build_beyond3d([world], again, BuildConfig(anchors=40, controls=40, seed=3, detections=GEO))
    for name in ("samples.jsonl", "manifest.json", "build_report.json"):
        assert (again / name).read_bytes() == (bench_dir / name).read_bytes()
    other = tmp_path / "other"
    build_beyond3d([world], other, BuildConfig(anchors=40, controls=40, seed=4, detections=GEO))
    assert (other / "samples.jsonl").read_bytes() != (bench_dir / "samples.jsonl").read_bytes()


def test_choices_texts_and_computed_chance(bench_dir: Path) -> None:
    bench = load_benchmark(bench_dir)
    chance = chance_of(bench.samples)
    for task, info in bench.manifest.tasks.items():
        assert info.chance == pytest.approx(chance[task])
    assert bench.manifest.builder["chance_macro"] == pytest.approx(np.mean(list(chance.values())), abs=1e-3)
    pat = re.compile(r"^(\d\d):(\d\d):(\d\d) — (\d+) seconds? before the end$")
    for s in bench.samples:
        if "choice_times_s" in s.metadata:
            q = int(round(s.metadata["query_s"]))
            for text, t in zip(s.choices, s.metadata["choice_times_s"], strict=True):
                h, m, sec, n = (int(x) for x in pat.match(text).groups())
                assert h * 3600 + m * 60 + sec == t and n == q - t and 0 <= t <= q
            assert s.metadata["choice_bands"][s.answer] == "correct"
            times = s.metadata["choice_times_s"]
            assert sorted(times).index(times[s.answer]) + 1 == s.metadata["correct_rank"]
        if s.task in SPATIAL_TASKS:
            assert s.metadata["choice_classes"][s.answer] == s.metadata["gold_class"]
            assert s.question.startswith("At <TIME ")
    counts = {}
    for s in bench.samples:
        if "correct_rank" in s.metadata:
            counts.setdefault(s.task, []).append(s.metadata["correct_rank"])
    for ranks in counts.values():
        per = np.bincount(ranks, minlength=6)[1:]
        assert per.max() - per.min() <= 1  # every chronological rank equally often (40 = 8 × 5)
    for task in SPATIAL_TASKS:  # every class of every 3D type equally often (10 per quadrant, 14/13/13)
        classes = Counter(s.metadata["gold_class"] for s in bench.samples if s.task == task)
        assert max(classes.values()) - min(classes.values()) <= 1 and len(classes) in (3, 4), (task, classes)


def test_cue_variant_keeps_ids_and_adds_cues(bench_dir: Path, tmp_path: Path) -> None:
    base = load_benchmark(bench_dir)
    var = cue_variant(bench_dir, tmp_path / "cues", "moves")
    assert [s.id for s in var.samples] == [s.id for s in base.samples]
    s = var.samples[0]
    assert s.metadata["cue"].startswith("Temporal cue: The camera wearer moved the ")
    assert "<TIME " in s.metadata["cue"] and s.metadata["cue"].endswith(
        "Focus on these intervals when tracking the object."
    )
    assert var.manifest.builder["cues"] == "moves" and var.manifest.builder["base_hash"] == base.hash
    from egoworld.core.plugin import plugin_for

    text = plugin_for("beyond3d").prompt.question_text(s, s.choices)
    assert text.index("Temporal cue:") < text.index("Question: ") and text.endswith(
        "Select the best option and output only its letter."
    )
    with pytest.raises(InputFileError, match="already carries cues"):
        cue_variant(tmp_path / "cues", tmp_path / "cues2", "moves")


def test_episodes_with_a_video_get_media_for_all_settings(tmp_path: Path) -> None:
    pytest.importorskip("av")
    from egoworld.core.run_config import RunConfig
    from egoworld.media.testvideo import write_counter_video
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run

    world = sim_kitchens(tmp_path / "w", episodes=1, minutes=5.5, seed=2, size=192, objects=24)
    folder = world / "kitchen_000"
    ep = load_episode(folder)
    # a counter video in place of the rendered one: every frame shows its own index
    write_counter_video(folder / "video.mp4", frames=len(ep.poses), fps=1, size=(192, 192), gop=10)
    out = tmp_path / "bench"
    build_beyond3d([world], out, BuildConfig(anchors=10, controls=5, detections=GEO))
    bench = load_benchmark(out)
    assert (out / "videos" / f"{ep.id}.mp4").resolve() == (folder / "video.mp4").resolve()
    for s in bench.samples:
        v = s.media.video
        assert v.path == f"videos/{ep.id}.mp4" and v.start_s == 0 and v.end_s == s.metadata["query_s"]
        if s.task.startswith("object_object"):
            (f,) = s.media.frames
            assert f.role == "last_frame" and f.time_s == s.metadata["query_s"]
            assert list(f.marker) == s.metadata["marker"]
            u, w = f.marker
            assert 0 <= u < 192 and 0 <= w < 192
        else:
            assert s.media.frames == ()
    for setting, policy in (("last-frame", "last"), ("frames", "fps-end:1")):
        run_dir = tmp_path / f"run-{setting}"
        summary = run_benchmark(
            RunConfig(
                bench=out,
                model="oracle",
                out=run_dir,
                setting=setting,
                frame_policy=policy,
                frames=400,
                overlays="fisheye=0.9,timestamp",
                progress=False,
                max_pixels=0,
            )
        )
        assert summary.errors == 0 and summary.ok == len(bench.samples)
        assert score_run(run_dir)["overall"] == 100.0


def test_build_errors_name_the_folder(tmp_path: Path, world: Path) -> None:
    with pytest.raises(InputFileError, match=re.escape(str(tmp_path))):
        build_beyond3d([tmp_path], tmp_path / "out")
    dup = tmp_path / "dup"
    first = sorted(p for p in world.iterdir() if p.is_dir())[0]
    save_episode(load_episode(first), dup / "copy")
    with pytest.raises(InputFileError, match="episode ids must be unique"):
        build_beyond3d([world, dup], tmp_path / "out2")


def test_cli_build_and_check(world: Path, tmp_path: Path) -> None:
    from egoworld.cli import app

    res = CliRunner().invoke(
        app,
        [
            "build",
            "beyond3d",
            "--world",
            str(world),
            "--out",
            str(tmp_path / "b"),
            "--anchors",
            "20",
            "--controls",
            "10",
            "--detections",
            "none",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "170 questions (20 out-of-sight anchors, 10 visible controls)" in res.output
    assert "chance macro" in res.output
    res = CliRunner().invoke(
        app, ["build", "beyond3d", "--world", str(tmp_path / "nothing"), "--out", str(tmp_path / "c")]
    )
    assert res.exit_code == 2 and "no episode folders" in res.output


# --- HD-EPIC: movements only ---------------------------------------------------------------------------------

VIDEO = "P01-20240202-110250"


def _raw_last_placement(tracks: list[dict], q: float) -> float | None:
    """Independent reading of assoc_info.json: end of the latest track that ended by ``q`` (None while a
    track is running at ``q``)."""
    if any(t["time_segment"][0] <= q < t["time_segment"][1] for t in tracks):
        return None
    ends = [t["time_segment"][1] for t in tracks if t["time_segment"][1] <= q]
    return max(ends) if ends else None


@pytest.mark.slow
def test_hd_epic_assoc_info_builds_last_placement_time_only(data_dir: Path, tmp_path: Path) -> None:
    from egoworld.world.hd_epic import iter_hd_epic_episodes

    root = data_dir / "hd-epic"
    (ep,) = list(iter_hd_epic_episodes(root, videos=[VIDEO]))
    save_episode(ep, tmp_path / "world" / ep.id)
    from egoworld.cli import app

    res = CliRunner().invoke(
        app,
        [
            "build",
            "beyond3d",
            "--world",
            str(tmp_path / "world"),
            "--out",
            str(tmp_path / "bench"),
            "--anchors",
            "60",
        ],
    )
    assert res.exit_code == 0, res.output
    for task in (
        "visibility",
        "last_visible_time",
        "nearest_fixture",
        "object_camera_direction",
        "object_object_distance",
    ):
        assert f"skipped {task}:" in res.output
    assert "3D object positions" in res.output and "text only" in res.output
    bench = load_benchmark(tmp_path / "bench")
    assert bench.tasks() == ["last_placement_time"] and len(bench.samples) == 60
    raw = json.loads((root / "scene-and-object-movements" / "assoc_info.json").read_text())[VIDEO]
    for s in bench.samples:
        q = s.metadata["query_s"]
        gold = _raw_last_placement(raw[s.metadata["object"]]["tracks"], q)
        assert gold is not None and s.metadata["gold_time_s"] == pytest.approx(gold, abs=1e-6)
        shown = int(np.floor(gold + 0.5))
        text = s.choices[s.answer]
        assert text.startswith(f"{shown // 3600:02d}:{shown % 3600 // 60:02d}:{shown % 60:02d}")
        assert (
            text.split(" — ")[1]
            == f"{int(q) - shown} second{'' if int(q) - shown == 1 else 's'} before the end"
        )
        assert s.media.empty and s.question.startswith(f"The {s.metadata['object_name']} was moved earlier")
    ranks = np.bincount([s.metadata["correct_rank"] for s in bench.samples], minlength=6)[1:]
    assert ranks.tolist() == [12] * 5
