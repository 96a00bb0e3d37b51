"""EXPLORE-Bench ``--option protocol=official`` against the official inference code, on the wire.

egoworld's requests (what an OpenAI-compatible server on 127.0.0.1 receives) are compared with the messages
the official code builds for the same sample: ``infer/infer_utils.py`` ``construct_messages`` (the prompt of
the one-go and of the stepwise single-rollout strategies, segments by number or by window) and the API
client ``infer/models/GPT/GPT.py`` ``process_messages`` (one user message: the prompt text, then the image
as a base64 data URL). The official code is not in this repository: set ``EXPLORE_BENCH_REPO`` to a checkout
of ``JackYu6/EXPLORE-Bench`` to run that comparison; its API client's private import (``licloud``) is
replaced by a stand-in, nothing else. Without the checkout the same requests are checked against the
documented facts (text part first, then the image, the prompt equal to egoworld's own).
"""

from __future__ import annotations

import base64
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from egoworld.benchmarks.explore.build.builder import ActionEpisode, build_from_episodes
from egoworld.benchmarks.explore.instances import SceneObject
from egoworld.core.run_config import RunConfig
from egoworld.runner.run import run_benchmark
from openai_test_server import FakeOpenAIServer

THINGS = ["cup", "plate", "knife", "pan", "bowl", "spoon", "kettle", "towel"]
#: (strategy options, the official construct_messages arguments)
STRATEGIES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "one-go": ({}, {"infer_strategy": "single-step", "segment_num": 1}),
    "segments": (
        {"strategy": "stepwise", "segment_num": 4},
        {"infer_strategy": "multi-step", "segment_num": 4, "rollout": "single-rollout"},
    ),
    "window": (
        {"strategy": "stepwise", "window_size": 50},
        {"infer_strategy": "multi-step", "segment_num": 1, "rollout": "single-rollout", "window_size": 50},
    ),
}


def _episode(tmp: Path, i: int, n_actions: int) -> ActionEpisode:
    img = tmp / f"scene{i}.jpg"
    img.write_bytes(b"\xff\xd8\xff\xe0" + bytes([i + 1]) * 64)
    initial = [SceneObject(t, f"a clean {t}", ("on the table",)) for t in THINGS[:4]]
    final = [SceneObject(t, f"a used {t}", ("in the sink",)) for t in THINGS[2:6]]
    actions = [
        f"C picks up the {THINGS[k % 8]}" if k % 2 else f"C puts the {THINGS[k % 8]} down"
        for k in range(n_actions)
    ]
    return ActionEpisode(
        id=f"ep{i}", actions=actions, final_scene=final, initial_image=img, initial_scene=initial
    )


@pytest.fixture(scope="module")
def sent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Per strategy: the bodies the server received from an ``official`` protocol run, with each sample's
    actions and initial image."""
    from egoworld.core.folders.bench_folder import load_benchmark

    tmp = tmp_path_factory.mktemp("explore_official")
    build_from_episodes(
        [_episode(tmp, i, n) for i, n in enumerate((30, 130, 210))], tmp / "bench", tiny_size=3
    )
    bench = load_benchmark(tmp / "bench")
    out: dict[str, list[dict[str, Any]]] = {}
    for name, (options, _) in STRATEGIES.items():
        with FakeOpenAIServer(reply=lambda prompt: '["A kitchen."]') as srv:
            cfg = RunConfig(
                bench=tmp / "bench",
                model="openai:fake-vlm",
                model_args={"base_url": srv.base_url},
                out=tmp / f"run-{name}",
                setting="image",
                options={**options, "protocol": "official"},
                progress=False,
            )
            assert run_benchmark(cfg).errors == 0
            bodies = list(srv.bodies)
        assert len(bodies) == len(bench.samples)
        # each episode has its own number of actions: a prompt's count of them names its sample
        by_count = {len(s.question.split("|")): s for s in bench.samples}
        rows = []
        for body in bodies:
            text = body["messages"][0]["content"][0]["text"]
            sample = by_count[text.count("C pu") + text.count("C pi")]
            image = bench.resolve(sample.media.images[0].path)
            rows.append({"body": body, "actions": sample.question, "image": image})
        out[name] = rows
    return out


def _official(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    """The official ``infer_utils`` and GPT client modules (a stand-in for the client's private import)."""
    repo = os.environ.get("EXPLORE_BENCH_REPO")
    if not repo or not (Path(repo) / "infer" / "infer_utils.py").is_file():
        pytest.skip("the official EXPLORE-Bench code is absent (set EXPLORE_BENCH_REPO to a checkout)")
    infer = Path(repo) / "infer"
    monkeypatch.syspath_prepend(str(infer))
    licloud = ModuleType("licloud")
    licloud_openai = ModuleType("licloud.openai")
    licloud_openai.LiOpenAI = object  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "licloud", licloud)
    monkeypatch.setitem(sys.modules, "licloud.openai", licloud_openai)

    def load(name: str, path: Path) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load("official_explore_infer_utils", infer / "infer_utils.py"), load(
        "official_explore_gpt", infer / "models" / "GPT" / "GPT.py"
    )


def test_every_request_matches_the_official_inference_code(
    sent: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    utils, gpt = _official(monkeypatch)
    client = gpt.GPT.__new__(gpt.GPT)
    for name, (_, official_args) in STRATEGIES.items():
        for row in sent[name]:
            image = Path(row["image"])
            (tmp_path / "images").mkdir(exist_ok=True)
            (tmp_path / "images" / image.name).write_bytes(image.read_bytes())
            sample = {
                "start_frame": image.name,
                "atomic_actions": row["actions"],
                "dataset_path": str(tmp_path),
            }
            theirs = client.process_messages(utils.construct_messages(sample, **official_args)["messages"])
            assert row["body"]["messages"] == theirs, name


def test_official_requests_follow_the_documented_layout(sent: dict[str, list[dict[str, Any]]]) -> None:
    """Without the official code: one user message, the prompt text, then the initial image (its bytes)."""
    from egoworld.benchmarks.explore.prompts import one_go_prompt

    for name, rows in sent.items():
        for row in rows:
            (message,) = row["body"]["messages"]
            assert message["role"] == "user"
            assert [p["type"] for p in message["content"]] == ["text", "image_url"], name
            url = message["content"][1]["image_url"]["url"]
            assert (
                url == "data:image/jpeg;base64," + base64.b64encode(Path(row["image"]).read_bytes()).decode()
            )
            if name == "one-go":
                assert message["content"][0]["text"] == one_go_prompt(row["actions"])
