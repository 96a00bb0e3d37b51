"""The PyAV decoder on generated H.264 videos with a burned-in frame counter: exact frames for every
policy (GOP 2 s and 10 s, B-frames, variable frame rate), least decoding (non-reference frames that are not
targets are discarded, non-reference targets still decoded), and clear errors."""

from __future__ import annotations

import os
import random
from pathlib import Path

import av
import numpy as np
import pytest

from egoworld.media.decoder import SEEK_COST, DecodeStats, FrameDecoder, decode_frames, plan_runs, seek_cost
from egoworld.media.index import probe
from egoworld.media.media_error import MediaError
from egoworld.media.parallel import decode_parallel, queue_order
from egoworld.media.policies import Clip, parse_policy
from egoworld.media.testvideo import read_counter, write_counter_video

VIDEOS = {
    # name: (frames, writer options)
    "gop2s": (450, {"gop": 60, "bframes": 2}),  # 15 s at 30 fps, keyframe every 2 s
    "gop10s": (750, {"gop": 300, "bframes": 3}),  # 25 s, keyframe every 10 s
    "vfr": (300, {"gop": 30, "bframes": 2, "vfr": True}),  # frame durations 1/30, 1/15, 1/60 s
    "intra12": (120, {"gop": 12, "bframes": 0}),
}
POLICIES = ("uniform", "uniform-round", "uniform-center", "uniform-start", "fps:2", "fps-end:1", "last")


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[str, tuple[Path, list[float]]]:
    root = tmp_path_factory.mktemp("videos")
    out = {}
    for name, (frames, opts) in VIDEOS.items():
        path = root / f"{name}.mp4"
        times = write_counter_video(path, frames=frames, size=(128, 96), **opts)
        out[name] = (path, times)
    return out


def planned_frames(index, targets, skip: bool = True, seek_cost: int = SEEK_COST) -> int:
    """Frames the least-work rule decodes: per target, continue unless seeking saves more than
    ``seek_cost``; with ``skip``, the non-reference frames passed on the way are not decoded (the targets
    always are)."""
    total, last = 0, None
    for t in sorted(set(targets)):
        key = index.keyframes[index.keyframe_slot(t)]
        first = key if last is None or last < key - 1 - seek_cost else last + 1
        total += t - first + 1
        if skip:
            total -= index.nonref_in(first, t - 1)
        last = t
    return total


def ffmpeg_nonref(path, index) -> list[int]:
    """Frames FFmpeg's H.264 decoder discards with skip_frame=NONREF over a full decode."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.codec_context.skip_frame = "NONREF"
        kept = {index.position(f.pts) for f in container.decode(stream)}
    return sorted(set(range(index.count)) - kept)


def _decode(path, index, targets, size=(64, 48)):
    stats = DecodeStats()
    got = list(decode_frames(path, index, targets, size=size, threads=2, stats=stats))
    return got, stats


@pytest.mark.parametrize("name", list(VIDEOS))
def test_frame_table_matches_what_was_written(videos, name):
    path, times = videos[name]
    index = probe(path)
    assert index.count == len(times)
    assert all(abs(index.time_of(i) - t) < 1e-9 for i, t in enumerate(times))
    gop = VIDEOS[name][1]["gop"]
    assert index.keyframes == tuple(range(0, len(times), gop))


@pytest.mark.parametrize("name", list(VIDEOS))
@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_decodes_exactly_its_frames_with_least_decoding(videos, name, policy):
    path, _ = videos[name]
    index = probe(path)
    clip = Clip.of(index, 1.0, index.duration_s - 0.5)
    sel = parse_policy(policy).select(index, clip, 16)
    got, stats = _decode(path, index, sel.indices)
    assert [i for i, _ in got] == list(sel.indices)
    assert [read_counter(img) for _, img in got] == list(sel.indices)  # the pixels are those frames
    assert all(img.shape == (48, 64, 3) for _, img in got)  # resized while decoding
    assert stats.frames == planned_frames(index, sel.indices)
    assert stats.frames <= index.theoretical_minimum(list(sel.indices)) + SEEK_COST * len(sel.indices)
    assert stats.converted == len(sel.indices)


@pytest.mark.parametrize("name", list(VIDEOS))
def test_random_targets_are_exact(videos, name):
    path, _ = videos[name]
    index = probe(path)
    rng = random.Random(f"targets-{name}")
    for _ in range(4):
        targets = sorted(rng.sample(range(index.count), rng.randint(1, 25)))
        got, stats = _decode(path, index, targets, size=None)
        assert [read_counter(img) for _, img in got] == targets
        assert got[0][1].shape == (96, 128, 3)
        assert stats.frames == planned_frames(index, targets)


def test_dense_targets_decode_in_one_pass_and_sparse_ones_seek(videos):
    path, _ = videos["gop2s"]
    index = probe(path)
    targets = range(0, index.count, 3)
    _, dense = _decode(path, index, targets)
    passed = sum(1 for i in index.nonref if i < index.count - 3 and i % 3)  # non-targets discarded
    assert dense.seeks == 1 and dense.frames == index.count - 2 - passed  # continues: never seeks again
    sparse_targets = [59, 179, 299, 419]  # the last frame of GOPs 0, 2, 4, 6
    got, sparse = _decode(path, index, sparse_targets)
    assert [read_counter(img) for _, img in got] == sparse_targets
    assert sparse.seeks == 4  # one GOP each, the GOPs between skipped
    assert sparse.frames == 4 * 60 - sum(index.nonref_in(t - 59, t - 1) for t in sparse_targets)


def test_gop10s_first_frames_of_a_gop_decode_only_up_to_them(videos):
    path, _ = videos["gop10s"]
    index = probe(path)
    got, stats = _decode(path, index, [300, 301, 600])
    assert [read_counter(img) for _, img in got] == [300, 301, 600]
    assert stats.frames == 3 and stats.seeks == 2


def test_out_of_range_frame_names_the_file_and_frame(videos):
    path, _ = videos["intra12"]
    index = probe(path)
    with pytest.raises(MediaError, match=rf"{path.name}, frame 120: the video has 120 frames"):
        list(decode_frames(path, index, [5, 120]))


def test_truncated_video_names_the_file_and_the_first_missing_frame(tmp_path):
    full = tmp_path / "full.mp4"
    write_counter_video(full, frames=240, size=(64, 48), gop=30, faststart=True)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    with pytest.raises(MediaError, match=r"cut\.mp4, frame \d+: the file is truncated.*fix:"):
        probe(cut)
    no_index = tmp_path / "no_index.mp4"  # moov at the end, cut off
    write_counter_video(no_index, frames=60, size=(64, 48), gop=30)
    no_index.write_bytes(no_index.read_bytes()[:2000])
    with pytest.raises(
        MediaError, match=r"no_index\.mp4: cannot open the video; the file is damaged or truncated"
    ):
        probe(no_index)


def test_corrupt_bytes_name_the_file_and_the_frame(tmp_path):
    good = tmp_path / "good.mp4"
    write_counter_video(good, frames=240, size=(64, 48), gop=30, faststart=True)
    data = bytearray(good.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 3000] = random.Random(1).randbytes(3000)
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    index = probe(bad)  # the table is intact; the payload is not
    with pytest.raises(MediaError, match=r"bad\.mp4, frame \d+: (decoding failed|the decoder)") as info:
        list(decode_frames(bad, index, range(0, index.count, 5)))
    assert info.value.frame is not None and 0 < info.value.frame < index.count
    assert os.fspath(bad) == info.value.path


@pytest.mark.parametrize("name", ["gop2s", "vfr"])
def test_parallel_decoders_produce_the_same_frames_with_the_same_work(videos, name):
    path, _ = videos[name]
    index = probe(path)
    targets = sorted(random.Random(name).sample(range(index.count), 30))
    runs = plan_runs(index, targets, 0)  # single-threaded workers: a seek costs nothing
    assert len(runs) >= 3 and sum((m for m, _ in runs), []) == targets  # contiguous, covering, in order
    stats = DecodeStats()
    got = list(decode_parallel(path, index, targets, size=(64, 48), workers=3, stats=stats))
    assert sorted(i for i, _ in got) == targets
    assert all(read_counter(img) == i for i, img in got)
    assert stats.frames == planned_frames(index, targets, seek_cost=0) == sum(cost for _, cost in runs)
    assert stats.seeks == len(runs) and stats.drains == len(runs)  # one seek per run, each drained
    assert len(stats.worker_cpu_s) == 3 and all(s >= 0 for s in stats.worker_wall_s)
    assert stats.decode_s > 0 and stats.convert_s > 0 and stats.decode_wall_s > 0 and stats.convert_wall_s > 0
    # the split over the workers adds up to the whole
    assert sum(stats.worker_runs) == len(runs) and sum(stats.worker_packets) == stats.packets
    assert len(stats.worker_runqueue_s) == len(stats.worker_start_s) == 3
    assert all(q >= 0 for q in stats.worker_runqueue_s)


def test_the_parallel_queue_hands_out_the_longest_runs_first(videos):
    path, _ = videos["gop10s"]
    index = probe(path)
    targets = [5, 280, 310, 330, 600, 700]  # runs from the keyframes 0, 300, 600: to 280, 330 and 700
    order = queue_order(index, targets)
    costs = {tuple(m): cost for m, cost in plan_runs(index, targets, 0)}
    assert sorted(sum(order, [])) == targets and len(order) == len(costs)
    assert [costs[tuple(m)] for m in order] == sorted(costs.values(), reverse=True)
    assert order == [[5, 280], [600, 700], [310, 330]]  # plan order would be 5 …, 310 …, 600 …


def test_a_run_stops_feeding_packets_once_its_last_target_is_in_the_decoder(videos):
    """Draining: the packets after the last target's (in decode order) are never fed, so a run decodes
    only up to its last target, not the B-frame reorder delay beyond it."""
    path, _ = videos["gop2s"]
    index = probe(path)
    targets = [10, 75, 200, 330]  # one run each, mid-GOP
    stats = DecodeStats()
    with FrameDecoder(path, index, size=(64, 48), threads=1, stats=stats) as dec:
        got = list(dec.frames(targets))
    assert [read_counter(img) for _, img in got] == targets
    assert stats.drains == 4 and stats.seeks == 4
    with av.open(str(path)) as container:  # display positions in decode order
        order = [index.position(p.pts) for p in container.demux(container.streams.video[0]) if p.size]
    fed = 0
    for t in targets:  # from the keyframe to the last packet (in decode order) of a frame up to t
        start = order.index(index.keyframes[index.keyframe_slot(t)])
        fed += max(i for i in range(start, len(order)) if order[i] <= t) - start + 1
    assert stats.packets == fed
    assert stats.frames == planned_frames(index, targets, seek_cost=0)


def test_parallel_decoding_reports_the_first_error(tmp_path):
    good = tmp_path / "good.mp4"
    write_counter_video(good, frames=240, size=(64, 48), gop=30, faststart=True)
    data = bytearray(good.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 3000] = random.Random(2).randbytes(3000)
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    index = probe(bad)
    with pytest.raises(MediaError, match=r"bad\.mp4, frame \d+"):
        list(decode_parallel(bad, index, range(5, index.count, 20), workers=2))


@pytest.mark.parametrize("name", list(VIDEOS))
def test_nonreference_table_is_what_the_decoder_discards(videos, name):
    path, _ = videos[name]
    index = probe(path)
    assert list(index.nonref) == ffmpeg_nonref(path, index)
    if VIDEOS[name][1]["bframes"]:
        assert len(index.nonref) > index.count // 5  # x264's non-reference B-frames
    else:
        assert index.nonref == ()


def test_nonreference_table_from_start_codes(tmp_path):
    """MPEG-TS carries Annex B NAL units (start codes) instead of length prefixes."""
    path = tmp_path / "annexb.ts"
    write_counter_video(path, frames=90, size=(64, 48), gop=30, bframes=3)
    index = probe(path)
    assert index.nonref and list(index.nonref) == ffmpeg_nonref(path, index)


@pytest.mark.parametrize("name", ["gop2s", "gop10s", "vfr"])
@pytest.mark.parametrize("threads", [1, 2])
def test_nonreference_targets_are_exact_and_skipping_changes_no_pixel(videos, name, threads):
    path, _ = videos[name]
    index = probe(path)
    rng = random.Random(f"nonref-{name}")
    refs = [i for i in range(index.count) if i not in set(index.nonref)]
    targets = sorted(rng.sample(index.nonref, 8) + rng.sample(refs, 4))
    runs = {}
    for skip in (True, False):
        stats = DecodeStats()
        got = list(
            decode_frames(path, index, targets, size=(64, 48), threads=threads, stats=stats, skip_nonref=skip)
        )
        assert [i for i, _ in got] == targets
        assert [read_counter(img) for _, img in got] == targets
        assert stats.frames == planned_frames(index, targets, skip=skip, seek_cost=seek_cost(threads))
        runs[skip] = (got, stats)
    (skipped, with_skip), (full, without) = runs[True], runs[False]
    assert with_skip.skip_runs > 0 and without.skip_runs == 0
    assert with_skip.frames < without.frames  # the skip path decoded less …
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(skipped, full, strict=True))  # … same pixels


def test_a_long_gop_decodes_only_reference_frames_between_targets(videos):
    path, _ = videos["gop10s"]
    index = probe(path)
    targets = [120, 290]  # one GOP, far apart: continue through it, discarding non-reference frames
    got, stats = _decode(path, index, targets)
    assert [read_counter(img) for _, img in got] == targets
    assert stats.seeks == 1
    assert stats.frames == 291 - index.nonref_in(0, 289) == index.theoretical_minimum(targets)
