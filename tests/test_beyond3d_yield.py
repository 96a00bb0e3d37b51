"""Anchor yield: 20 minutes of sim kitchen (4 × 5 min, HD-EPIC-paced stories) fill at least 30 exactly
balanced out-of-sight anchors (the stories before work sessions gave 14–17), and the story's pace
constants are the ones derived from HD-EPIC's 156 videos."""

from __future__ import annotations

from pathlib import Path

import pytest

from egoworld.benchmarks.beyond3d.build.builder import BuildConfig, build_beyond3d
from sim_worlds import sim_kitchens


def test_twenty_minutes_of_kitchen_fill_thirty_balanced_anchors(tmp_path: Path) -> None:
    worlds = sim_kitchens(tmp_path / "w", episodes=4, minutes=5.0, seed=0)
    report = build_beyond3d([worlds], tmp_path / "b", BuildConfig(anchors=30, controls=30, detections="none"))
    assert report.shortfall is None and report.anchors == 30, report.lines()
    assert report.controls == 30


#: the four seeds of 0–19 that hold the fewest (55–70 anchors; README "Kitchen story pace"): every seed fills 30
WORST_SEEDS = (8, 9, 10, 11)


@pytest.mark.slow
@pytest.mark.parametrize("seed", WORST_SEEDS)
def test_the_worst_seeds_still_hold_thirty_balanced_anchors(tmp_path: Path, seed: int) -> None:
    worlds = sim_kitchens(tmp_path / "w", episodes=4, minutes=5.0, seed=seed, render=False)
    # asked for more than the world holds, the build delivers the largest exactly balanced set it finds
    report = build_beyond3d(
        [worlds], tmp_path / "b", BuildConfig(anchors=1000, controls=0, detections="none")
    )
    assert report.anchors >= 30, report.lines()


def test_story_pace_is_hd_epics(data_dir: Path) -> None:
    from egoworld.sim.kitchen.tempo import HD_EPIC_MOVES_PER_MIN, HD_EPIC_REST_QUANTILES_S
    from egoworld.world.hd_epic.movement_stats import movement_stats

    hd = data_dir / "hd-epic"
    stats = movement_stats(
        hd / "scene-and-object-movements" / "assoc_info.json",
        hd / "youtube-links" / "HD_EPIC_YouTube_URLs.csv",
    )
    assert stats.videos == 156
    assert stats.moves_per_min_median == HD_EPIC_MOVES_PER_MIN
    assert stats.rest_quantiles_s == HD_EPIC_REST_QUANTILES_S
