"""The in-process Hugging Face backend on a tiny random Qwen2-VL built in the test (CPU, no download)."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from benchmarks_factory import balanced_mc_bench

pytest.importorskip("transformers", reason="install egoworld[hf] (make test does)")

from egoworld.core.model import ImagePart, Message, Request, TextPart  # noqa: E402
from egoworld.core.run_config import RunConfig  # noqa: E402
from egoworld.models.doctor import tiny_png  # noqa: E402
from egoworld.models.hf import HFModel, ImageTextProcessor, folder_revision  # noqa: E402
from egoworld.models.spec import create_model  # noqa: E402
from egoworld.runner.run import run_benchmark  # noqa: E402
from tiny_qwen2vl import write_tiny_qwen2vl  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_qwen2vl(tmp_path_factory.mktemp("qwen") / "tiny-qwen2vl")


def _request(key: str, text: str, image: bytes | None = None) -> Request:
    parts: tuple = (TextPart(text),)
    if image is not None:
        parts = (ImagePart(sha256=key, mime="image/png", load=lambda: image, label="Frame 1"), *parts)
    return Request(
        key=key,
        sample_id=key,
        messages=(Message("user", parts),),
        choices=None,
        permutation=None,
        epoch=0,
    )


def test_benchmark_run_batches_requests(tiny, tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    model = create_model(f"hf:{tiny}", {"max_new_tokens": "4", "batch_size": "4"})
    out = tmp_path / "run"
    summary = run_benchmark(
        RunConfig(bench=bench.root, model=f"hf:{tiny}", out=out, concurrency=8, progress=False), model=model
    )
    assert summary.ok == 12 and summary.errors == 0
    assert max(model.batches) > 1 and sum(model.batches) == 12
    assert isinstance(model._processor, ImageTextProcessor) and "orchvision" in model._processor.reason
    with sqlite3.connect(out / "responses.sqlite") as db:
        rows = db.execute("SELECT prompt_tokens, completion_tokens, served_model FROM responses").fetchall()
    assert all(p > 20 and 0 < c <= 4 for p, c, _ in rows)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["model"]["backend"] == "hf" and manifest["model"]["revision"] == folder_revision(tiny)


def test_images_expand_to_their_patch_tokens_and_greedy_is_repeatable(tiny):
    model = HFModel(str(tiny), max_new_tokens=3, batch_size=2)

    async def go():
        plain, with_image, again = await asyncio.gather(
            model.generate(_request("a", "How many chairs?")),
            model.generate(_request("b", "How many chairs?", tiny_png(64))),
            model.generate(_request("c", "How many chairs?", tiny_png(64))),
        )
        await model.aclose()
        return plain, with_image, again

    plain, with_image, again = asyncio.run(go())
    # a 64×64 image is resized to the 56×56 minimum: 4×4 patches merged 2×2 → 4 image tokens, plus the
    # label text "Frame 1:" and the vision start / end tokens
    label_tokens = len(model._processor.tokenizer("Frame 1:")["input_ids"])
    assert with_image.prompt_tokens - plain.prompt_tokens == 4 + 2 + label_tokens
    assert with_image.text == again.text


def test_identity_tracks_the_weights_folder(tiny, tmp_path):
    a = HFModel(str(tiny)).identity()
    assert a["revision"] == folder_revision(tiny) and a["generation"]["max_new_tokens"] == 256
    assert HFModel(str(tiny), max_new_tokens=8).identity() != a
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in tiny.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    cfg = json.loads((copy / "config.json").read_text())
    cfg["text_config"]["rms_norm_eps"] = 1e-5
    (copy / "config.json").write_text(json.dumps(cfg))
    assert folder_revision(copy) != folder_revision(tiny)


def test_a_model_that_cannot_load_is_one_fatal_error(tmp_path):
    from egoworld.core.model import ModelUnavailable

    bench = balanced_mc_bench(tmp_path / "b", n_mc=3, n_int=0)
    missing = tmp_path / "no-such-model"
    missing.mkdir()
    with pytest.raises(ModelUnavailable, match="could not be loaded"):
        run_benchmark(RunConfig(bench=bench.root, model=f"hf:{missing}", out=tmp_path / "r", progress=False))
    assert json.loads((tmp_path / "r" / "run.json").read_text())["status"] == "failed"
