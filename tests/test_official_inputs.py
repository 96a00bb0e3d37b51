"""``--option protocol=official`` against the official harnesses' own input code, sample by sample.

VSI-Super-Wild: a handful of released rows of each task (read from the shared data folder) get small
counter videos named as the official videos; egoworld's official requests are compared with what the official
``doc_to_visual`` / ``doc_to_text`` build (frame indices, their order, video or images, text). The official
task module is not in this repository: set ``VSI_SUPER_WILD_REPO`` to a checkout of ``THUSI-Lab/VSI-Super-Wild``
(commit 1506301; the file read is ``tasks/vsi_super_wild/utils.py``) to run that comparison. Its decoder is
replaced by a stand-in that returns the frame indices (decord's ``VideoReader``, PIL's ``fromarray`` and
``_clone_images``); its index arithmetic and text run as published. Without the checkout the same samples are
checked against the documented facts (``np.linspace(0, total - 1, 12, dtype=int)``, the intro sentence).

Beyond3D: the official prompt is tested byte for byte against logged inputs in ``test_beyond3d_*``; its
official inputs in the video setting are the query-time prefix as one video. EXPLORE-Bench: the official
API clients send the prompt text, then the image.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest

# the shared data folder, as tests/conftest.py finds it (a module-level import of conftest is ambiguous under
# pytest: tests/reliability has its own)
DATA = Path(os.environ.get("EGOWORLD_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
VSI_QA = DATA / "vsi-super-wild" / "vsi_super_wild_qa.jsonl"


PER_TASK = 3
VPO_INTRO = (
    "The first 12 images are uniformly sampled from the video; the next 4 are Frame 1, Frame 2, Frame 3, and "
    "Frame 4 (in order).\n\n"
)


def _rows() -> list[dict[str, Any]]:
    """A few rows of each task: the VPO / VMR rows whose frames come earliest (short test videos)."""
    assert VSI_QA.is_file(), f"the released VSI-Super-Wild QA file is absent: {VSI_QA} (set EGOWORLD_DATA)"
    rows = [json.loads(line) for line in VSI_QA.read_text().splitlines() if line.strip()]
    out = []
    for task in ("VOC", "VMR", "VPO", "VOO"):
        of_task = [r for r in rows if r["task_type"] == task]
        of_task.sort(key=lambda r: max(r["frame_indices"] or [0]))
        out += of_task[:PER_TASK]
    return out


def _frame_total(row: dict[str, Any], k: int) -> int:
    """Frames of a row's test video; the first VPO video ends before its last query frame (clamped)."""
    last = max(row["frame_indices"] or [0])
    if row["task_type"] == "VPO" and k == 0:
        return last - 3
    return last + 25 + 7 * k


@pytest.fixture(scope="module")
def official_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The rows imported with counter videos, and egoworld's requests under both protocols."""
    from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa
    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.core.folders.store import ResponseStore
    from egoworld.core.run_config import RunConfig
    from egoworld.media.testvideo import write_counter_video
    from egoworld.runner.run import run_benchmark

    root = tmp_path_factory.mktemp("official_inputs")
    rows = _rows()
    qa = root / "qa.jsonl"
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    videos = root / "videos"
    videos.mkdir()
    totals: dict[str, int] = {}
    for k, row in enumerate(rows):
        name = row["video_name"]
        if name not in totals:
            totals[name] = _frame_total(row, k % PER_TASK)
            write_counter_video(videos / name, frames=totals[name], size=(64, 48), gop=30)
    bench_dir = root / "bench"
    import_vsi_wild_qa(qa, bench_dir, videos=videos)
    bench = load_benchmark(bench_dir)
    requests: dict[str, dict[str, dict[str, Any]]] = {}
    manifests = {}
    for protocol in ("official", "egoworld"):
        out = root / f"run-{protocol}"
        cfg = RunConfig(
            bench=bench_dir,
            model="oracle",
            out=out,
            setting="frames",
            frames=8,
            options={"protocol": protocol} if protocol == "official" else {},
            progress=False,
        )
        summary = run_benchmark(cfg)
        # egoworld refuses a listed frame past the video's end; the official task clamps it (first VPO row)
        assert summary.errors == (0 if protocol == "official" else 1)
        manifests[protocol] = json.loads((out / "run.json").read_text())
        with ResponseStore(out / "responses.sqlite", readonly=True) as store:
            requests[protocol] = {sid: store.request(key) for sid, _, _, key, _ in store.planned()}
    return {
        "rows": rows,
        "bench": bench,
        "videos": videos,
        "totals": totals,
        "requests": requests,
        "manifests": manifests,
    }


def _content(request: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """A request's media parts and its text (one user message: media, then one text part)."""
    (message,) = request["messages"]
    *media, text = message["content"]
    assert text["type"] == "text"
    return media, text["text"]


def _official_module(videos: Path, totals: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The official task module with a decoder stand-in that returns frame indices."""
    repo = os.environ.get("VSI_SUPER_WILD_REPO")
    local = Path(__file__).parent / "official_code" / "vsi_super_wild" / "utils.py"
    path = Path(repo) / "tasks" / "vsi_super_wild" / "utils.py" if repo else local
    if not path.is_file():
        pytest.skip("the official VSI-Super-Wild task code is absent (set VSI_SUPER_WILD_REPO to a checkout)")
    spec = importlib.util.spec_from_file_location("official_vsi_super_wild_utils", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class Reader:  # decord.VideoReader: the frame count, and a batch that is its indices
        def __init__(self, video_path: str, ctx: object = None, num_threads: int = 1) -> None:
            self.total = totals[Path(video_path).name]

        def __len__(self) -> int:
            return self.total

        def get_batch(self, indices: list[int]) -> SimpleNamespace:
            return SimpleNamespace(asnumpy=lambda: list(indices))

    monkeypatch.setattr(mod, "VideoReader", Reader)
    monkeypatch.setattr(mod, "cpu", lambda i: None)
    monkeypatch.setattr(mod, "Image", SimpleNamespace(fromarray=lambda frame: int(frame)))
    monkeypatch.setattr(mod, "_clone_images", list)
    monkeypatch.setenv("VSI_SUPER_WILD_VIDEO_ROOT", str(videos))
    return mod


def _egoworld_visual(media: list[dict[str, Any]], videos: Path) -> list[Any]:
    """egoworld's media in the official ``doc_to_visual`` form: frame indices, or the video's path."""
    if len(media) == 1 and media[0]["type"] == "video":
        assert media[0]["role"] == "video-file"
        return [str(videos / Path(media[0]["video"]).name)]
    assert all(p["type"] == "image" and not p.get("label") for p in media)
    return [p["frame"] for p in media]


def test_every_sample_matches_the_official_task_code(
    official_run: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = _official_module(official_run["videos"], official_run["totals"], monkeypatch)
    seen = set()
    for row in official_run["rows"]:
        media, text = _content(official_run["requests"]["official"][row["doc_id"]])
        assert _egoworld_visual(media, official_run["videos"]) == mod.doc_to_visual(row), row["doc_id"]
        assert text == mod.doc_to_text(row), row["doc_id"]
        seen.add(row["task_type"])
    assert seen == {"VOC", "VMR", "VPO", "VOO"}


def test_official_inputs_follow_the_documented_layout(official_run: dict[str, Any]) -> None:
    """Without the official code: the facts of the official task, per sample."""
    for row in official_run["rows"]:
        media, text = _content(official_run["requests"]["official"][row["doc_id"]])
        total = official_run["totals"][row["video_name"]]
        options = "\n".join(row["options"] or [])
        if row["task_type"] == "VPO":
            context = np.linspace(0, total - 1, 12, dtype=int).tolist()
            queries = [min(i, total - 1) for i in row["frame_indices"]]
            assert [p["frame"] for p in media] == context + queries
            assert [p["role"] for p in media] == ["context"] * 12 + ["query"] * 4
            assert text == f"{VPO_INTRO}{row['question']}\n\nOptions:\n{options}\n\n" + (
                "Answer with only the letter (A, B, C, or D)."
            )
        else:
            assert [(p["type"], p["role"]) for p in media] == [("video", "video-file")]
            assert media[0]["video"].endswith(row["video_name"])
            if row["task_type"] == "VOC":
                assert text == f"{row['question']}\n\nAnswer with only a single integer number."
            else:
                assert (
                    text
                    == f"{row['question']}\n\nOptions:\n{options}\n\nAnswer with only the letter (A, B, C, or D)."
                )


def test_the_egoworld_protocol_differs_and_run_json_records_the_protocol(
    official_run: dict[str, Any],
) -> None:
    """egoworld's default layout is not the official one (the comparison above can fail), and run.json says
    which protocol a run used; egoworld-protocol runs keep their inputs as before."""
    reqs = official_run["requests"]
    for row in official_run["rows"]:
        if reqs["egoworld"].get(row["doc_id"]) is None:  # (the refused VPO row)
            continue
        ours, text = _content(reqs["egoworld"][row["doc_id"]])
        theirs, official_text = _content(reqs["official"][row["doc_id"]])
        assert [p["type"] for p in ours] != [p["type"] for p in theirs]
        if row["task_type"] == "VPO":
            assert official_text == VPO_INTRO + text
            assert [p.get("label") for p in ours][-4:] == ["Frame 1", "Frame 2", "Frame 3", "Frame 4"]
        else:
            assert official_text == text
        if row["task_type"] == "VMR":
            assert any(p.get("role") == "indicated_moment" for p in ours)
    manifests = official_run["manifests"]
    assert manifests["official"]["inputs"]["protocol"] == "official"
    assert manifests["official"]["config"]["options"] == {"protocol": "official"}
    assert "protocol" not in manifests["egoworld"]["inputs"]
    assert "options" not in manifests["egoworld"]["config"]
