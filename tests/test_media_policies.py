"""Frame-sampling policies: exact indices, endpoint rules, clips, caps, and names."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from egoworld.media.index import VideoIndex
from egoworld.media.policies import Clip, parse_policy, uniform_offsets


def cfr_index(n: int, fps: int = 30) -> VideoIndex:
    """A frame table of ``n`` frames at ``fps`` (time base 1/90000), keyframes every 60 frames."""
    step = 90000 // fps
    return VideoIndex(
        pts=tuple(i * step for i in range(n)),
        keyframes=tuple(range(0, n, 60)),
        seek_ts=tuple(i * step for i in range(0, n, 60)),
        time_base=Fraction(1, 90000),
        width=64,
        height=48,
        codec="h264",
    )


def vsi_super_wild_rule(total: int, n: int) -> list[int]:
    """The rule of the VSI-Super-Wild / VSI-Bench lmms-eval tasks, written out as they do it."""
    n = min(n, total)
    return sorted(set(np.linspace(0, total - 1, n, dtype=int).tolist()))


@pytest.mark.parametrize(("total", "n"), [(18000, 128), (1000, 32), (999, 128), (130, 128), (7, 16), (1, 4)])
def test_uniform_is_the_vsi_super_wild_rule_with_both_endpoints(total, n):
    got = uniform_offsets("uniform", total, n)
    assert got == vsi_super_wild_rule(total, n)
    assert got[0] == 0 and got[-1] == total - 1
    assert len(got) == min(n, total)


def test_alternative_uniform_rules_and_their_endpoints():
    assert uniform_offsets("uniform-start", 100, 4) == [0, 25, 50, 75]  # first in, last out
    assert uniform_offsets("uniform-center", 100, 4) == [12, 37, 62, 87]  # neither endpoint
    assert uniform_offsets("uniform-round", 10, 4) == [0, 3, 6, 9]  # 0, 3, 6, 9 exactly
    assert uniform_offsets("uniform", 10, 4) == [0, 3, 6, 9]
    assert uniform_offsets("uniform-round", 11, 4) == [0, 3, 7, 10]  # 3.33 → 3, 6.67 → 7
    assert uniform_offsets("uniform", 11, 4) == [0, 3, 6, 10]  # floor: 6.67 → 6
    for rule in ("uniform", "uniform-round", "uniform-center", "uniform-start"):
        assert uniform_offsets(rule, 5, 9) == [0, 1, 2, 3, 4]  # n >= N: every frame


def test_uniform_over_a_clip_offsets_into_the_video():
    index = cfr_index(900)  # 30 s
    clip = Clip.of(index, 10.0, 20.0)
    assert (clip.first, clip.last) == (300, 600)
    sel = parse_policy("uniform").select(index, clip, 5)
    assert sel.indices == (300, 375, 450, 525, 600)
    assert sel.times == (10.0, 12.5, 15.0, 17.5, 20.0)


def test_fps_and_fps_end_anchor_at_the_clip_start_and_end():
    index = cfr_index(900)
    clip = Clip.of(index, None, 12.5)  # Beyond3D: the clip ends at the query time
    start = parse_policy("fps:1").select(index, clip, 128)
    end = parse_policy("fps-end:1").select(index, clip, 128)
    assert start.indices == tuple(range(0, 375, 30))  # 0 s … 12 s: the query moment is missed
    assert end.indices == tuple(range(15, 376, 30))  # 0.5 s … 12.5 s: ends exactly at the query frame
    assert end.indices[-1] == clip.last == 375
    capped = parse_policy("fps:1").select(index, Clip.of(index, None, None), 8)
    assert len(capped.indices) == 8 and capped.indices[0] == 0 and capped.indices[-1] == 870


def test_at_and_last_pick_the_nearest_frame_ties_later():
    index = cfr_index(300)
    assert parse_policy("at:1,2.5,2.51").select(index, Clip.of(index, None, None), 8).indices == (30, 75)
    assert index.nearest(1 / 60) == 1  # exactly between frames 0 and 1 → the later
    assert parse_policy("last").select(index, Clip.of(index, 0, 4.0), 8).indices == (120,)
    with pytest.raises(ValueError, match="outside the clip"):
        parse_policy("at:9").select(index, Clip.of(index, 0, 4.0), 8)


def test_policies_on_a_variable_frame_rate_table_use_timestamps():
    steps = [3000, 6000, 1500]  # 1/30, 1/15, 1/60 s
    pts = [0]
    for i in range(299):
        pts.append(pts[-1] + steps[i % 3])
    index = VideoIndex(tuple(pts), (0,), (0,), Fraction(1, 90000), 64, 48, "h264")
    sel = parse_policy("fps:2").select(index, Clip.of(index, None, None), 1000)
    times = [index.time_of(i) for i in range(index.count)]
    grid = [k / 2 for k in range(int(times[-1] * 2) + 1)]
    brute = sorted(
        {min(range(len(times)), key=lambda j, g=g: (round(abs(times[j] - g), 9), -j)) for g in grid}
    )
    assert list(sel.indices) == brute  # the frame nearest each 0.5 s step, by timestamp, not by count
    assert list(sel.indices) != [round(g * 30) for g in grid]  # which a constant-rate assumption would give


def test_policy_names_are_canonical_and_bad_names_are_explained():
    assert parse_policy(" FPS:1.0 ").name == "fps:1"
    assert parse_policy("at:1.50,3").name == "at:1.5,3"
    for bad in ("uniformly", "fps:0", "fps:x", "at:", "at:-1"):
        with pytest.raises(ValueError, match="known: uniform"):
            parse_policy(bad)
