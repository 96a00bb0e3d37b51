"""EPIC-KITCHENS-100 action segments (real validation split) → episodes with timestamped actions."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from egoworld.world import load_episode
from egoworld.world.epic_kitchens import iter_epic_kitchens_episodes, parse_timestamp


@pytest.fixture(scope="module")
def episodes(data_dir: Path):
    return {ep.id: ep for ep in iter_epic_kitchens_episodes(data_dir / "epic-kitchens-100")}


def test_counts_fps_and_order(episodes) -> None:
    assert len(episodes) == 138
    assert sum(len(ep.actions) for ep in episodes.values()) == 9668
    assert len({ep.meta["participant"] for ep in episodes.values()}) == 32
    assert Counter(round(ep.fps, 2) for ep in episodes.values()) == {59.94: 133, 29.97: 3, 47.95: 1, 90.0: 1}
    for ep in episodes.values():
        keys = [(a.start_s, a.end_s) for a in ep.actions]
        assert keys == sorted(keys)  # the CSV is not sorted; the episode is


def test_first_actions_of_p01_11(episodes) -> None:
    ep = episodes["P01_11"]
    assert ep.duration_s == pytest.approx(561.527633)
    first = [(a.start_s, a.end_s, a.text, a.verb, a.noun) for a in ep.actions[:3]]
    assert first == [
        (0.0, 1.89, "take plate", "take", "plate"),
        (1.56, 2.45, "put down plate", "put-down", "plate"),
        (2.97, 13.79, "take pizza", "take", "pizza"),
    ]
    a = ep.actions[0]
    assert (a.id, a.meta["verb_class"], a.meta["noun_class"], a.meta["all_nouns"]) == (
        "P01_11_0",
        0,
        2,
        ["plate"],
    )


def test_frames_are_60_fps_whatever_the_video_fps(episodes) -> None:
    # the 29.97 fps video P18_02: frame numbers count 60 fps frames, so times come from timestamps
    ep = episodes["P18_02"]
    ratios = [a.meta["start_frame"] / a.start_s for a in ep.actions if a.start_s > 10]
    assert ep.fps == pytest.approx(29.97, abs=0.01)
    assert np.median(ratios) == pytest.approx(60.0, abs=0.05)


def test_end_past_duration_is_clipped(episodes) -> None:
    ep = episodes["P29_05"]
    last = ep.actions[-1]
    clipped = [a for e in episodes.values() for a in e.actions if "annotated_end_s" in a.meta]
    assert [a.id for a in clipped] == ["P29_05_563"]
    assert last.end_s == ep.duration_s and clipped[0].meta["annotated_end_s"] == 1821.75


def test_parse_timestamp() -> None:
    assert parse_timestamp("00:01:02.50") == 62.5
    assert parse_timestamp("1:00:00.00") == 3600.0
    with pytest.raises(ValueError):
        parse_timestamp("1:2:3:4")


def test_cli_import_and_show(data_dir: Path, tmp_path: Path) -> None:
    from egoworld.cli import app

    out = tmp_path / "ek"
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "world",
            "import",
            "epic-kitchens",
            str(data_dir / "epic-kitchens-100"),
            "--out",
            str(out),
            "--video-id",
            "P01_11",
        ],
    )
    assert res.exit_code == 0, res.output
    ep = load_episode(out / "P01_11")
    assert len(ep.actions) == 148 and ep.source["loader"] == "epic-kitchens-100"
    png = tmp_path / "ek.png"
    res = runner.invoke(app, ["world", "show", str(out / "P01_11"), "--png", str(png)])
    assert res.exit_code == 0 and "actions  148" in res.output and png.stat().st_size > 10_000
