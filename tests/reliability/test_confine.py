"""Class 1: media paths never escape the benchmark folder (or the roots its manifest declares).

Every hostile path is refused before a byte of it is read: ``bench check``, ``run`` (any setting), the
EXPLORE request chains and the builders share one rule (`egoworld.core.folders.confine`). Importers refuse ids that would
become paths outside their ``--out``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import (
    assert_untouched,
    egoworld,
    refused,
    run_args,
    sample_row,
    sent_bytes,
    write_bench,
)

HOSTILE = {
    "dotdot-image": lambda o, b: {"images": [{"path": "../outside/secret.png"}]},
    "absolute-image": lambda o, b: {"images": [{"path": str(o.png)}]},
    "dotdot-video": lambda o, b: {"video": {"path": "../outside/secret.mp4"}},
    "etc-passwd-video": lambda o, b: {"video": {"path": "/etc/passwd"}},
    "deep-dotdot-video": lambda o, b: {"video": {"path": "videos/../../outside/secret.mp4"}},
    "nul-byte-image": lambda o, b: {"images": [{"path": "images/a.png\x00../../outside/secret.png"}]},
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_bench_check_refuses_media_outside_the_folder(tmp_path, outside, kind):
    bench = tmp_path / "bench"
    media = HOSTILE[kind](outside, bench)
    write_bench(bench, [sample_row("ok"), sample_row("bad", media=media)])
    field = "media.video.path" if "video" in media else "media.images.0.path"
    refused(
        egoworld("bench", "check", "--bench", bench),
        "samples.jsonl, line 2 (id bad)",
        f"field '{field}'",
        "outside the benchmark folder",
        "fix:",
    )
    assert_untouched(outside)


def test_a_link_inside_the_folder_to_outside_is_refused_unless_declared(tmp_path, outside):
    bench = tmp_path / "bench"
    (bench / "images").mkdir(parents=True)
    os.symlink(outside.png, bench / "images" / "scene.png")
    write_bench(bench, [sample_row(media={"images": [{"path": "images/scene.png"}]})])
    refused(
        egoworld("bench", "check", "--bench", bench), "line 1 (id q0)", "images/scene.png", str(outside.png)
    )
    # declared as a link the builder made: accepted, and `bench check` shows where it points
    write_bench(
        bench,
        [sample_row(media={"images": [{"path": "images/scene.png"}]})],
        media_roots=["images/scene.png"],
    )
    ok = egoworld("bench", "check", "--bench", bench)
    assert ok.code == 0, ok.output
    assert f"media root: images/scene.png → {outside.png}" in ok.output
    assert_untouched(outside)


def test_a_declared_videos_link_does_not_open_the_rest_of_the_disk(tmp_path, outside):
    bench = tmp_path / "bench"
    videos = tmp_path / "videos"
    videos.mkdir()
    bench.mkdir()
    os.symlink(videos, bench / "videos", target_is_directory=True)
    rows = [sample_row(media={"video": {"path": "videos/../../outside/secret.mp4"}})]
    write_bench(bench, rows, media_roots=["videos"])
    refused(
        egoworld("bench", "check", "--bench", bench),
        "field 'media.video.path'",
        "declared media roots (videos)",
    )
    assert_untouched(outside)


@pytest.mark.parametrize(
    "roots, needle",
    [(["/"], "would allow every file"), (["../outside"], "climbs out of the folder")],
)
def test_manifest_cannot_declare_the_whole_disk(tmp_path, roots, needle):
    bench = write_bench(tmp_path / "bench", [sample_row()], media_roots=roots)
    refused(egoworld("bench", "check", "--bench", bench), "manifest.json", "media_roots", needle)


def test_manifest_samples_file_cannot_point_outside(tmp_path, outside):
    outside.put("samples.jsonl", b"")  # would be read if the name were followed
    bench = write_bench(tmp_path / "bench", [sample_row()], samples_file="../outside/samples.jsonl")
    refused(
        egoworld("bench", "check", "--bench", bench), "manifest.json", "samples_file", "not a plain file name"
    )
    assert_untouched(outside)


@pytest.mark.parametrize("setting", ["frames", "last-frame", "text"])
def test_run_refuses_before_sending_anything(tmp_path, outside, server, setting):
    """The audit's case: the secret PNG was sent byte-exact to the server and copied into the cache."""
    bench = tmp_path / "bench"
    (bench / "videos").mkdir(parents=True)
    from egoworld.media.testvideo import write_counter_video

    write_counter_video(bench / "videos" / "a.mp4", frames=12, fps=6, size=(64, 48), gop=6)
    rows = [
        sample_row("ok", media={"video": {"path": "videos/a.mp4"}}),
        sample_row("bad", media={"video": {"path": "videos/a.mp4"}, "images": [{"path": str(outside.png)}]}),
    ]
    write_bench(bench, rows)
    out = tmp_path / "run"
    res = egoworld(*run_args(bench, out, server, "--setting", setting, "--frames", "2"))
    refused(res, "samples.jsonl, line 2 (id bad)", "media.images.0.path", "refused before reading it")
    assert server.bodies == []
    assert outside.png_bytes not in sent_bytes(server)
    cache = tmp_path / "cache"
    assert not cache.exists() or not any(p.is_file() and p.stat().st_size > 0 for p in cache.rglob("*.png"))
    assert_untouched(outside)


def test_the_resolver_refuses_a_link_swapped_after_loading(tmp_path, outside):
    """Time of check vs time of use: the path is checked again where the media engine reads it."""
    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.core.folders.confine import MediaOutsideError

    bench = tmp_path / "bench"
    (bench / "images").mkdir(parents=True)
    (bench / "images" / "a.png").write_bytes(outside.png_bytes)
    write_bench(bench, [sample_row(media={"images": [{"path": "images/a.png"}]})])
    loaded = load_benchmark(bench)
    (bench / "images" / "a.png").unlink()
    os.symlink(outside.png, bench / "images" / "a.png")
    with pytest.raises(MediaOutsideError, match="images/a.png"):
        loaded.resolve("images/a.png")
    assert_untouched(outside)


def test_inside_media_and_declared_links_are_still_read(tmp_path, server):
    """The rule is not "refuse everything": media inside the folder and behind a declared link is sent."""
    from conftest import secret_png
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.schema import ImageInput, Media, Sample, TaskInfo
    from egoworld.media.testvideo import write_counter_video

    shared = tmp_path / "shared-videos"
    shared.mkdir()
    write_counter_video(shared / "a.mp4", frames=12, fps=6, size=(64, 48), gop=6)
    bench = tmp_path / "bench"
    bench.mkdir()
    os.symlink(shared, bench / "videos", target_is_directory=True)
    (bench / "scene.png").write_bytes(secret_png())
    sample = Sample(
        id="q0", benchmark="toy", task="MC", question="Q?", answer_type="choice", choices=("a", "b"), answer=0,
        media=Media(video={"path": "videos/a.mp4"}, images=(ImageInput(path="scene.png"),)),
    )  # fmt: skip
    tasks = {"MC": TaskInfo(answer_type="choice", metric="accuracy")}
    save_benchmark(bench, name="toy", tasks=tasks, samples=[sample], media_roots=["videos"])
    assert json.loads((bench / "manifest.json").read_text())["media_roots"] == ["videos"]
    res = egoworld(*run_args(bench, tmp_path / "run", server, "--setting", "frames", "--frames", "2"))
    assert res.code == 0, res.output
    assert secret_png() in sent_bytes(server)


def test_save_benchmark_refuses_a_builder_that_points_outside(tmp_path, outside):
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.folders.confine import MediaOutsideError
    from egoworld.core.schema import ImageInput, Media, Sample, TaskInfo

    sample = Sample(
        id="q0", benchmark="toy", task="MC", question="Q?", answer_type="choice", choices=("a", "b"), answer=0,
        media=Media(images=(ImageInput(path=str(outside.png)),)),
    )  # fmt: skip
    tasks = {"MC": TaskInfo(answer_type="choice", metric="accuracy")}
    with pytest.raises(MediaOutsideError, match="sample q0"):
        save_benchmark(tmp_path / "bench", name="toy", tasks=tasks, samples=[sample])
    assert not (tmp_path / "bench" / "manifest.json").exists()
    assert_untouched(outside)


# -- importers: ids that would become paths -------------------------------------------------------------------
@pytest.mark.parametrize("start_frame", ["../x.png", "/etc/passwd", "a/../../x.png", ".."])
def test_import_explore_refuses_a_start_frame_that_is_a_path(tmp_path, start_frame):
    anno = tmp_path / "anno.json"
    anno.write_text(json.dumps([{"start_frame": start_frame, "atomic_actions": "C opens the door"}]))
    out = tmp_path / "bench"
    res = egoworld("import", "explore-anno", anno, "--out", out)
    refused(res, str(anno), "item 0", "field 'start_frame'", "not a plain file name")
    assert not (out / "manifest.json").exists()


def test_import_vsi_wild_refuses_a_video_name_that_is_a_path(tmp_path):
    row = {
        "doc_id": "d0", "video_name": "../../secret.mp4", "task_type": "VOC", "question": "How many?",
        "answer": 3, "frame_indices": [], "options": None,
    }  # fmt: skip
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps(row) + "\n")
    refused(
        egoworld("import", "vsi-wild-qa", qa, "--out", tmp_path / "b"), f"{qa}, line 1", "field 'video_name'"
    )


def _hd_epic_root(root: Path, video: str, duration: str = "60.0") -> Path:
    (root / "scene-and-object-movements").mkdir(parents=True)
    (root / "youtube-links").mkdir(parents=True)
    assoc = {video: {"a1": {"name": "cup", "tracks": [{"track_id": "t1", "time_segment": [1.0, 2.0]}]}}}
    (root / "scene-and-object-movements" / "assoc_info.json").write_text(json.dumps(assoc))
    (root / "youtube-links" / "HD_EPIC_YouTube_URLs.csv").write_text(
        f"video_id,youtube_url,duration\n{video},https://youtu.be/x,{duration}\n"
    )
    return root


@pytest.mark.parametrize("video", ["../../escaped", "P01/../../../escaped", "ABSOLUTE"])
def test_world_import_hd_epic_never_writes_outside_out(tmp_path, video):
    video = str(tmp_path / "escaped") if video == "ABSOLUTE" else video
    src = _hd_epic_root(tmp_path / "hd", video)
    out = tmp_path / "deep" / "world"
    out.mkdir(parents=True)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    res = egoworld("world", "import", "hd-epic", src, "--out", out)
    refused(res, "assoc_info.json", "field 'video id'", "not a plain file name")
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_world_import_epic_kitchens_refuses_a_video_id_that_is_a_path(tmp_path):
    root = tmp_path / "ek"
    root.mkdir()
    head = "narration_id,participant_id,video_id,narration_timestamp,start_timestamp,stop_timestamp,start_frame,stop_frame,narration,verb,verb_class,noun,noun_class,all_nouns,all_noun_classes"
    (root / "EPIC_100_validation.csv").write_text(
        head
        + "\nx_0,P01,../P01_11,00:00:00.560,00:00:00.00,00:00:01.89,1,113,take plate,take,0,plate,2,['plate'],[2]\n"
    )
    (root / "EPIC_100_video_info.csv").write_text(
        "video_id,duration,fps,resolution\n../P01_11,10.0,60,1920x1080\n"
    )
    out = tmp_path / "w" / "world"
    res = egoworld("world", "import", "epic-kitchens", root, "--out", out)
    refused(res, "EPIC_100_validation.csv", "field 'video_id'")
    assert not (tmp_path / "w" / "P01_11").exists()


def test_world_show_refuses_an_episode_id_that_is_a_path(tmp_path, monkeypatch):
    """``world show`` writes ``<id>.png``: an id of ``../x`` would put it outside the current folder."""
    ep = tmp_path / "w" / "ep"
    ep.mkdir(parents=True)
    (ep / "episode.json").write_text(
        json.dumps({"format": "egoworld.episode/1", "id": "../../pwned", "duration_s": 5, "fps": 30})
    )
    cwd = tmp_path / "here"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    refused(egoworld("world", "show", ep), "episode.json", "field 'id'", "not a plain file name")
    assert not (tmp_path / "pwned.png").exists()


# -- worlds: episode media ---------------------------------------------------------------------------------
def _episode(folder: Path, media: dict, **header) -> Path:
    folder.mkdir(parents=True)
    doc = {"format": "egoworld.episode/1", "id": folder.name, "duration_s": 5, "fps": 30, "media": media}
    (folder / "episode.json").write_text(json.dumps(doc | header))
    return folder


@pytest.mark.parametrize(
    "media, field",
    [
        ({"video": "/etc/passwd"}, "media.video"),
        ({"video": "../../outside/secret.mp4"}, "media.video"),
        ({"images": {"initial": "../../outside/secret.png"}}, "media.images.initial"),
    ],
)
def test_world_show_refuses_episode_media_outside_the_episode(tmp_path, outside, monkeypatch, media, field):
    """The audit's ``/etc/passwd`` as a video: ``world show`` opened it to draw a contact sheet."""
    ep = _episode(tmp_path / "w" / "e1", media)
    monkeypatch.chdir(tmp_path)
    res = egoworld("world", "show", ep)
    refused(res, "episode.json", f"field '{field}'", "outside the episode folder", "--videos")
    assert not (tmp_path / "e1.png").exists()
    assert_untouched(outside)


def test_build_refuses_a_world_whose_video_is_outside(tmp_path, outside):
    """A builder never links a file a world points at outside itself into a benchmark."""
    world = tmp_path / "w"
    _episode(world / "e1", {"video": str(outside.mp4)})
    res = egoworld("build", "beyond3d", "--world", world, "--out", tmp_path / "bench")
    refused(res, "episode.json", "field 'media.video'", "outside the episode folder")
    assert not (tmp_path / "bench" / "manifest.json").exists()
    assert_untouched(outside)


def test_a_declared_videos_dir_is_allowed_for_world_media(tmp_path, outside):
    from egoworld.world.episode_folder import load_episode

    ep = _episode(tmp_path / "w" / "e1", {"video": str(outside.mp4), "roots": [str(outside.root)]})
    assert load_episode(ep).media.video == str(outside.mp4)


# -- a link swapped after a run: later stages speak instead of reading -------------------------------------
def _swap_to_outside(link: Path, target: Path) -> None:
    link.unlink()
    os.symlink(target, link)


def test_score_and_rerun_refuse_a_benchmark_whose_media_now_points_outside(tmp_path, outside, server):
    from conftest import secret_png
    from egoworld.core.folders.bench_folder import save_benchmark
    from egoworld.core.schema import ImageInput, Media, Sample, TaskInfo

    bench = tmp_path / "bench"
    (bench / "images").mkdir(parents=True)
    (bench / "images" / "a.png").write_bytes(secret_png())
    sample = Sample(
        id="q0", benchmark="toy", task="MC", question="Q?", answer_type="choice", choices=("a", "b"), answer=0,
        media=Media(images=(ImageInput(path="images/a.png"),)),
    )  # fmt: skip
    tasks = {"MC": TaskInfo(answer_type="choice", metric="accuracy")}
    save_benchmark(bench, name="toy", tasks=tasks, samples=[sample])
    run = tmp_path / "run"
    assert egoworld("run", "--bench", bench, "--model", "random", "--out", run, "--no-progress").code == 0
    _swap_to_outside(bench / "images" / "a.png", outside.png)  # samples and manifest unchanged: same hash
    refused(egoworld("score", "--run", run), "samples.jsonl, line 1 (id q0)", "field 'media.images.0.path'")
    res = egoworld(*run_args(bench, tmp_path / "run2", server, "--setting", "frames"))
    refused(res, "images/a.png", "refused before reading it")
    assert server.bodies == []
    assert_untouched(outside)


@pytest.mark.slow
def test_explore_build_and_run_refuse_an_initial_image_swapped_to_outside(tmp_path, outside):
    world = tmp_path / "world"
    assert egoworld("world", "synth", "actions", "--episodes", "1", "--seed", "0", "--out", world).code == 0
    bench = tmp_path / "bench"
    assert egoworld("build", "explore", "--world", world, "--out", bench).code == 0
    (image,) = sorted((bench / "images").iterdir())
    _swap_to_outside(image, outside.png)
    refused(
        egoworld("bench", "check", "--bench", bench),
        "field 'media.images.0.path'",
        "outside the benchmark folder",
    )
    res = egoworld(
        "run", "--bench", bench, "--model", "copy-initial", "--setting", "image", "--out", tmp_path / "run"
    )
    refused(res, "samples.jsonl, line 1", "field 'media.images.0.path'")
    assert not (tmp_path / "run" / "responses.sqlite").exists()
    assert_untouched(outside)


def test_vsi_durations_never_probes_a_video_outside_videos_dir(tmp_path, outside):
    videos = tmp_path / "videos"
    videos.mkdir()
    bench = write_bench(tmp_path / "bench", [sample_row(metadata={"video_name": "../outside/secret.mp4"})])
    res = egoworld("import", "vsi-wild-durations", "--bench", bench, "--videos", videos)
    refused(res, "sample q0", "field 'metadata.video_name'", "not a plain file name")
    assert_untouched(outside)
