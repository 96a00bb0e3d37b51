"""In-process Hugging Face transformers backend: ``hf:<local folder or hub id>``.

Loads ``AutoModelForImageTextToText`` and the model's processor, renders each request with the model's chat
template (images first, then text, as the runner orders them), and generates in batches: requests from the
runner's concurrent workers queue up and one background thread runs ``generate`` on up to ``batch_size`` at
a time. Greedy by default. Documented for the Qwen2-VL / Qwen2.5-VL / Qwen3-VL and InternVL3.5 (-hf) families.

The identity in request keys holds the model path, its revision (the hub commit when known, else a digest of
``config.json`` and the size and first MiB of each weight file) and the generation settings.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from egoworld.core.model import (
    EncodedMediaCache,
    Generation,
    ImagePart,
    Model,
    ModelError,
    ModelUnavailable,
    Request,
    TextPart,
)

#: processor classes to use when ``AutoProcessor`` returns only a tokenizer (it does for folders whose
#: ``processor_config.json`` is missing)
PROCESSOR_BY_MODEL_TYPE = {
    "qwen2_vl": "Qwen2VLProcessor",
    "qwen2_5_vl": "Qwen2_5_VLProcessor",
    "qwen3_vl": "Qwen3VLProcessor",
    "internvl": "InternVLProcessor",
}


def folder_revision(path: Path) -> str:
    """A cheap content digest of a local model folder (config + size and first MiB of each weight file)."""
    h = hashlib.sha256()
    for f in sorted(path.iterdir()):
        if f.name in ("config.json", "generation_config.json") or f.suffix in (".safetensors", ".bin"):
            h.update(f.name.encode())
            h.update(str(f.stat().st_size).encode())
            with f.open("rb") as fh:
                h.update(fh.read(1 << 20))
    return h.hexdigest()[:16]


class ImageTextProcessor:
    """Tokenizer + image processor, used when the model's processor class cannot be built (its video half
    needs torchvision). Expands each image token to the image's patch count the way the Qwen-VL processors
    do (``grid_t · grid_h · grid_w / merge_size²``)."""

    def __init__(self, tokenizer: Any, image_processor: Any, image_token: str, reason: str = ""):
        self.tokenizer = tokenizer
        self.image_processor = image_processor
        self.image_token = image_token
        self.reason = reason

    @classmethod
    def load(cls, model_id: str, config: Any, kwargs: dict[str, Any], reason: str = "") -> ImageTextProcessor:
        from transformers import AutoImageProcessor, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model_id, **kwargs)
        image_processor = AutoImageProcessor.from_pretrained(model_id, **kwargs)
        token_id = getattr(config, "image_token_id", None)
        if token_id is None or not hasattr(image_processor, "merge_size"):
            raise ModelError(
                f"{model_id}: its processor could not be built ({reason}) and the image-only fallback supports "
                "Qwen-VL style models only; install the processor's dependencies",
                retryable=False,
            )
        return cls(tokenizer, image_processor, tokenizer.convert_ids_to_tokens(token_id), reason)

    def apply_chat_template(self, conversation: list[dict[str, Any]], **kw: Any) -> str:
        return self.tokenizer.apply_chat_template(conversation, **kw)

    def __call__(self, *, text: list[str], images: list[Any] | None = None, **kw: Any) -> Any:
        from transformers import BatchFeature

        data: dict[str, Any] = {}
        if images:
            pixels = self.image_processor(images=images, return_tensors="pt")
            grids = pixels["image_grid_thw"]
            merge = int(self.image_processor.merge_size) ** 2
            counts = iter(int(g.prod()) // merge for g in grids)
            placeholder = "\0"
            expanded = []
            for t in text:
                while self.image_token in t:
                    t = t.replace(self.image_token, placeholder * next(counts), 1)
                expanded.append(t.replace(placeholder, self.image_token))
            text = expanded
            data.update(pixels)
        data.update(self.tokenizer(text, padding=True, return_tensors="pt"))
        return BatchFeature(data=data)


@dataclass
class _Pending:
    request: Request
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop


class HFModel(Model):
    backend = "hf"
    cheap_preflight = False  # loads the weights: only where the model runs

    def __init__(
        self,
        model: str,
        *,
        dtype: str = "auto",
        device: str = "cpu",
        max_new_tokens: int = 256,
        batch_size: int = 4,
        temperature: float = 0.0,
        revision: str | None = None,
        processor: str | None = None,
        trust_remote_code: bool = False,
    ):
        if not model:
            raise ValueError("the hf backend needs a model: --model hf:<folder or hub id>")
        self.model_id = model
        self.dtype = dtype
        self.device = device
        self.max_new_tokens = max_new_tokens
        self.batch_size = max(1, batch_size)
        self.temperature = temperature
        self.processor_name = processor
        self.trust_remote_code = trust_remote_code
        local = Path(model)
        self.revision = revision or (folder_revision(local) if local.is_dir() else None)
        self._model: Any = None
        self._processor: Any = None
        self._queue: list[_Pending] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.batches: list[int] = []  # sizes of the batches run (for tests and diagnostics)
        self.media_cache = EncodedMediaCache()  # one decoded picture per image, not one per request

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": self.model_id,
            "revision": self.revision,
            "generation": {
                "max_new_tokens": self.max_new_tokens,
                "temperature": self.temperature,
                "dtype": self.dtype,
            },
        }

    # -- loading --------------------------------------------------------------------------------------
    def load(self) -> None:
        if self._model is not None:
            return
        import torch
        import transformers
        from transformers import AutoConfig, AutoModelForImageTextToText, AutoProcessor

        kwargs: dict[str, Any] = {"trust_remote_code": self.trust_remote_code}
        if self.revision and not Path(self.model_id).is_dir():
            kwargs["revision"] = self.revision
        config = AutoConfig.from_pretrained(self.model_id, **kwargs)
        dtype = self.dtype if self.dtype == "auto" else getattr(torch, self.dtype)
        self._model = AutoModelForImageTextToText.from_pretrained(self.model_id, dtype=dtype, **kwargs)
        self._model.to(self.device).eval()
        name = self.processor_name
        processor = None
        try:
            if name is None:
                processor = AutoProcessor.from_pretrained(self.model_id, **kwargs)
                if not hasattr(processor, "image_processor"):  # AutoProcessor fell back to the tokenizer
                    name = PROCESSOR_BY_MODEL_TYPE.get(config.model_type)
                    if name is None:
                        raise ModelError(
                            f"{self.model_id}: AutoProcessor returned only a tokenizer and model type "
                            f"{config.model_type!r} has no known processor; pass --model-arg processor=<Class>",
                            retryable=False,
                        )
            if name is not None:
                processor = getattr(transformers, name).from_pretrained(self.model_id, **kwargs)
        except ImportError as exc:
            # e.g. the Qwen2-VL processor needs torchvision for its *video* processor; images need only the
            # tokenizer and the image processor, which load without it
            processor = ImageTextProcessor.load(self.model_id, config, kwargs, reason=str(exc).strip()[:120])
        tokenizer = getattr(processor, "tokenizer", processor)
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self._processor = processor

    async def preflight(self) -> list[str]:
        """Load the weights once, before any request: a model that cannot load is one fatal error."""
        try:
            await asyncio.to_thread(self.load)
        except Exception as exc:
            reason = exc.reason if isinstance(exc, ModelError) else f"{type(exc).__name__}: {exc}"
            raise ModelUnavailable(
                f"hf:{self.model_id}: the model could not be loaded ({reason.strip()[:400]}); check the folder "
                "or hub id, --model-arg revision=…, and that transformers supports it"
            ) from None
        return []

    # -- batching -------------------------------------------------------------------------------------
    async def generate(self, request: Request) -> Generation:
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="egoworld-hf", daemon=True)
                self._thread.start()
            self._queue.append(_Pending(request, future, loop))
        self._wake.set()
        return await future

    def _serve(self) -> None:
        try:
            self.load()
        except Exception as exc:  # report the load failure to every waiting request
            self._fail_all(exc)
            return
        while not self._closed:
            self._wake.wait(timeout=0.05)
            with self._lock:
                batch, self._queue = self._queue[: self.batch_size], self._queue[self.batch_size :]
                if not self._queue:
                    self._wake.clear()
            if not batch:
                continue
            try:
                results = self._run_batch([p.request for p in batch])
            except Exception as exc:
                for p in batch:
                    p.loop.call_soon_threadsafe(_set_exception, p.future, exc)
                continue
            for p, gen in zip(batch, results, strict=True):
                p.loop.call_soon_threadsafe(_set_result, p.future, gen)

    def _fail_all(self, exc: BaseException) -> None:
        with self._lock:
            pending, self._queue = self._queue, []
            self._thread = None
        for p in pending:
            p.loop.call_soon_threadsafe(_set_exception, p.future, exc)

    def conversation(self, request: Request) -> tuple[list[dict[str, Any]], list[Any]]:
        """Chat-template messages and the PIL images they refer to, in order."""
        messages, images = [], []
        for m in request.messages:
            content: list[dict[str, Any]] = []
            for part in m.content:
                if isinstance(part, ImagePart):
                    if part.label:
                        content.append({"type": "text", "text": f"{part.label}:"})
                    content.append({"type": "image"})
                    images.append(self.media_cache.get("rgb", part.sha256, partial(_decode, part)))
                elif isinstance(part, TextPart):
                    content.append({"type": "text", "text": part.text})
            messages.append({"role": m.role, "content": content})
        return messages, images

    def _run_batch(self, requests: list[Request]) -> list[Generation]:
        import torch

        texts, images = [], []
        for r in requests:
            conv, imgs = self.conversation(r)
            texts.append(
                self._processor.apply_chat_template(conv, tokenize=False, add_generation_prompt=True)
            )
            images.extend(imgs)
        inputs = self._processor(text=texts, images=images or None, padding=True, return_tensors="pt")
        inputs = inputs.to(self.device)
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": self.max_new_tokens,
            "do_sample": self.temperature > 0,
        }
        if self.temperature > 0:
            gen_kwargs["temperature"] = self.temperature
        with torch.inference_mode():
            out = self._model.generate(**inputs, **gen_kwargs)
        prompt_len = inputs["input_ids"].shape[1]
        new = out[:, prompt_len:]
        tokenizer = getattr(self._processor, "tokenizer", self._processor)
        decoded = tokenizer.batch_decode(new, skip_special_tokens=True)
        self.batches.append(len(requests))
        pad = tokenizer.pad_token_id
        results = []
        for i, text in enumerate(decoded):
            prompt_tokens = int(inputs["attention_mask"][i].sum())
            completion = int((new[i] != pad).sum()) if pad is not None else int(new.shape[1])
            results.append(
                Generation(
                    text=text,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion,
                    served_model=self.model_id,
                )
            )
        return results

    async def aclose(self) -> None:
        """Stop the batching thread (the loaded model stays, so the object can run again)."""
        thread = self._thread
        self._closed = True
        self._wake.set()
        if thread is not None:
            await asyncio.to_thread(thread.join)
        self._thread = None
        self._closed = False


def _decode(part: ImagePart) -> Any:
    from PIL import Image

    return Image.open(io.BytesIO(part.load())).convert("RGB")


def _set_result(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _set_exception(future: asyncio.Future, exc: BaseException) -> None:
    if not future.done():
        future.set_exception(
            exc if isinstance(exc, ModelError) else ModelError(f"{type(exc).__name__}: {exc}")
        )
