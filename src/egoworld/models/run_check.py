"""A request shaped like a real run (N frames at the run's size and image format), and what its failure means.

`egoworld doctor --frames N` sends it once. The frames are textured test frames (`egoworld.media.testvideo`:
camera-like grain and colour, a 16:9 source shrunk to ``--max-pixels``), so the image count, the image
tokens and the body size match the run; only their pixels differ. A refusal is explained with the server
flag or run option that fixes it: the per-prompt image limit (vLLM ``--limit-mm-per-prompt``), the context
length (``--max-model-len`` …), or the body size (HTTP 413 from the server or a proxy).
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

#: the source shape the frames are cut to (most videos are 16:9)
SOURCE = (1920, 1080)
PROMPT = "These are {n} frames of a video. Reply with the word OK."
_IMAGE_LIMIT = re.compile(r"at most (\d+) image", re.I)
_CONTEXT_LIMIT = (
    re.compile(r"maximum context length is (\d+)", re.I),  # vLLM (v0), OpenAI
    re.compile(r"maximum model length of (\d+)", re.I),  # vLLM (v1)
    re.compile(r"context length \((\d+) tokens\)", re.I),  # SGLang
)
_CONTEXT_WORDS = re.compile(
    r"context (length|size|window)|max_model_len|too many tokens|prompt is too long", re.I
)


@dataclass(frozen=True)
class RunShape:
    """What one request of the run carries: ``frames`` images within ``max_pixels`` in ``image_format``."""

    frames: int
    max_pixels: int
    image_format: str = "png"

    @property
    def size(self) -> tuple[int, int]:
        from egoworld.media.overlays import output_size

        return output_size(*SOURCE, self.max_pixels)

    def image_tokens(self) -> int:
        """Image tokens by Qwen2-VL's count (one per 28×28 patch); other models differ, the order holds."""
        w, h = self.size
        return self.frames * (math.ceil(w / 28) * math.ceil(h / 28) + 2)

    def describe(self) -> str:
        w, h = self.size
        return f"{self.frames} frames at {w}×{h} ({self.image_format})"


def frame_images(shape: RunShape, image_format: str | None = None) -> list[bytes]:
    """``shape.frames`` encoded test frames (distinct, so no server can dedupe them)."""
    import numpy as np

    from egoworld.media.encode import encode_image
    from egoworld.media.formats import parse_image_format
    from egoworld.media.testvideo import camera_like_rgb

    fmt = parse_image_format(image_format or shape.image_format)
    w, h = shape.size
    camera_like_rgb(0, w, h)  # the shared pattern, made once before the threads start

    def one(i: int) -> bytes:
        return encode_image(np.asarray(camera_like_rgb(i, w, h)), fmt)

    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:  # encoders release the GIL
        return list(pool.map(one, range(shape.frames)))


def request_body(model: str | None, shape: RunShape, images: list[bytes], max_tokens: int) -> bytes:
    """The chat request as `egoworld run` sends it (images first, then the question)."""
    from egoworld.core.model import ImagePart, Message, TextPart
    from egoworld.media.formats import parse_image_format
    from egoworld.models.openai_compat import encode_message

    mime = parse_image_format(shape.image_format).mime
    parts = [ImagePart(f"doctor-{i}", mime, (lambda d=d: d), size=len(d)) for i, d in enumerate(images)]
    message = Message(role="user", content=(*parts, TextPart(PROMPT.format(n=shape.frames))))
    body = {
        "model": model,
        "messages": [encode_message(message)],
        "max_tokens": max_tokens,
        "temperature": 0,
        "stream": False,
    }
    return json.dumps(body).encode()


def check_run_request(
    client: httpx.Client,
    model: str | None,
    shape: RunShape,
    *,
    context_length: int | None = None,
    max_tokens: int = 16,
) -> tuple[bool, str]:
    """Send one run-shaped request; (accepted, what happened and, on failure, the fix)."""
    body = request_body(model, shape, frame_images(shape), max_tokens)
    mb = len(body) / 1e6
    what = f"{shape.describe()}, body {mb:.1f} MB"
    start = time.perf_counter()
    try:
        r = client.post("/chat/completions", content=body, headers={"Content-Type": "application/json"})
    except httpx.TimeoutException:
        return False, (
            f"{what}: no answer within {client.timeout.read:.0f} s (the prefill of {shape.frames} frames can take "
            "longer on a busy server). fix: rerun doctor with --timeout 300 and give `egoworld run` the same --timeout"
        )
    except (httpx.RemoteProtocolError, httpx.WriteError, httpx.ReadError) as exc:
        return False, f"{what}: the server closed the connection while receiving it ({exc}). " + _payload_fix(
            shape, mb
        )
    except httpx.HTTPError as exc:
        return False, f"{what}: failed ({exc})"
    seconds = time.perf_counter() - start
    if r.status_code == 200:
        usage = _json(r).get("usage") or {}
        tokens = usage.get("prompt_tokens")
        detail = f"{what}: accepted in {seconds:.1f} s"
        if isinstance(tokens, int):
            detail += f", prompt {tokens} tokens" + (f" of {context_length}" if context_length else "")
        return True, detail
    return False, f"{what}: refused with HTTP {r.status_code}: " + explain(
        r.status_code, _message(r), shape, mb, context_length
    )


def explain(status: int, message: str, shape: RunShape, mb: float, context_length: int | None) -> str:
    """The server's complaint in one line, and the fix."""
    said = f"“{message[:200]}”"
    m = _IMAGE_LIMIT.search(message)
    if m:
        limit = int(m.group(1))
        return (
            f"{said} — the server takes at most {limit} images per prompt; this run sends {shape.frames}. "
            f"fix: restart vLLM with --limit-mm-per-prompt '{{\"image\": {shape.frames}}}' (older vLLM: "
            f"--limit-mm-per-prompt image={shape.frames}), or run with --frames {limit}"
        )
    if status == 413 or "too large" in message.lower():
        return f"{said} — " + _payload_fix(shape, mb)
    ctx = next((int(m.group(1)) for p in _CONTEXT_LIMIT if (m := p.search(message))), context_length)
    if any(p.search(message) for p in _CONTEXT_LIMIT) or _CONTEXT_WORDS.search(message):
        per_frame = shape.image_tokens() / shape.frames
        fits = f"; at this size about {int(ctx * 0.95 / per_frame)} frames fit" if ctx else ""
        return (
            f"{said} — the prompt does not fit the context"
            + (f" of {ctx} tokens" if ctx else "")
            + f" ({shape.describe()} ≈ {shape.image_tokens()} image tokens by Qwen2-VL's count{fits}). fix: raise "
            "the server's context (vLLM --max-model-len, SGLang --context-length, llama.cpp --ctx-size), or run "
            "with fewer --frames or a lower --max-pixels"
        )
    return said


def _payload_fix(shape: RunShape, mb: float) -> str:
    smaller = ""
    if shape.image_format == "png":
        jpeg = RunShape(shape.frames, shape.max_pixels, "jpeg:85")
        jpeg_mb = len(request_body(None, jpeg, frame_images(jpeg), 16)) / 1e6
        smaller = f" (this request would be {jpeg_mb:.1f} MB)"
    return (
        f"the request body ({mb:.1f} MB) is larger than the server, or a proxy in front of it, accepts. "
        f"fix: run with --image-format jpeg:85{smaller}, a lower --max-pixels or fewer --frames; or raise the "
        "limit (nginx: client_max_body_size; a hosted API: see its request size limit)"
    )


def _json(r: httpx.Response) -> dict[str, Any]:
    try:
        data = r.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _message(r: httpx.Response) -> str:
    """The error message of a refusal (OpenAI/vLLM ``{"error": {"message"}}``, older ``{"message"}``, text)."""
    data = _json(r)
    err = data.get("error")
    if isinstance(err, dict) and err.get("message"):
        return str(err["message"])
    if isinstance(err, str):
        return err
    if data.get("message"):
        return str(data["message"])
    text = re.sub(r"<[^>]+>", " ", r.text)
    return " ".join(text.split()) or r.reason_phrase
