"""`check_server`: look at an OpenAI-compatible server before a long run.

Checks, in order: the server answers ``GET /models``; the model to be used is listed; a one-line text
request round-trips (with usage accounting); an image request is accepted (a 32×32 PNG as a data URL);
the context length, from whatever the server reports (vLLM ``max_model_len``, SGLang ``/get_model_info``,
llama.cpp ``/props`` or ``meta.n_ctx_train``); with ``frames``, one request shaped like the run
(`egoworld.models.run_check`: N frames at the run's size and format), its failure explained with the fix.
"""

from __future__ import annotations

import base64
import os
import struct
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Check:
    name: str
    ok: bool | None  # None = could not tell
    detail: str
    required: bool = True


@dataclass
class ServerReport:
    base_url: str
    model: str | None
    checks: list[Check] = field(default_factory=list)
    served_models: list[str] = field(default_factory=list)
    context_length: int | None = None
    accepts_images: bool | None = None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks if c.required)


def tiny_png(size: int = 32) -> bytes:
    """A valid RGB PNG (a colour gradient), written with zlib only."""
    rows = b"".join(
        b"\x00" + bytes(v for x in range(size) for v in (8 * x % 256, 8 * y % 256, 128)) for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _context_from_model_entry(entry: dict[str, Any]) -> int | None:
    for key in ("max_model_len", "context_length", "max_context_length", "n_ctx"):
        if isinstance(entry.get(key), int):
            return entry[key]
    meta = entry.get("meta") or {}
    for key in ("n_ctx", "n_ctx_train"):
        if isinstance(meta.get(key), int):
            return meta[key]
    return None


def _root(base_url: str) -> str:
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


def check_server(
    base_url: str,
    model: str | None = None,
    *,
    api_key_env: str = "OPENAI_API_KEY",
    timeout: float = 30.0,
    frames: int | None = None,
    max_pixels: int = 448 * 448,
    image_format: str = "png",
) -> ServerReport:
    """Run the checks; ``frames`` adds the run-shaped request (``frames`` images within ``max_pixels``)."""
    base_url = base_url.rstrip("/")
    key = os.environ.get(api_key_env)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    report = ServerReport(base_url=base_url, model=model)
    with httpx.Client(base_url=base_url, headers=headers, timeout=timeout) as client:
        try:
            resp = client.get("/models")
            resp.raise_for_status()
            entries = resp.json().get("data", [])
        except (httpx.HTTPError, ValueError) as exc:
            report.checks.append(Check("reachable", False, f"GET {base_url}/models failed: {exc}"))
            return report
        report.served_models = [e.get("id", "") for e in entries]
        report.checks.append(
            Check("reachable", True, f"{len(entries)} model(s): {', '.join(report.served_models)}")
        )
        if model is None and len(report.served_models) == 1:
            report.model = model = report.served_models[0]
        listed = model in report.served_models
        report.checks.append(
            Check(
                "model listed",
                listed,
                f"{model!r} is served" if listed else f"{model!r} is not among {report.served_models}",
            )
        )
        entry = next((e for e in entries if e.get("id") == model), {})
        report.context_length = _context_from_model_entry(entry) or _probe_context(client, base_url)
        report.checks.append(
            Check(
                "context length",
                report.context_length is not None,
                f"{report.context_length} tokens" if report.context_length else "not reported by this server",
                required=False,
            )
        )
        text_body = {
            "model": model,
            "messages": [{"role": "user", "content": "Reply with the word OK."}],
            "max_tokens": 4,
            "temperature": 0,
            "stream": False,
        }
        start = time.perf_counter()
        try:
            r = client.post("/chat/completions", json=text_body)
            r.raise_for_status()
            data = r.json()
            usage = data.get("usage") or {}
            report.checks.append(
                Check(
                    "text request",
                    True,
                    f"{(time.perf_counter() - start) * 1000:.0f} ms, reply {data['choices'][0]['message'].get('content')!r}, "
                    f"usage {'reported' if usage else 'missing'}",
                )
            )
        except (httpx.HTTPError, ValueError, KeyError, IndexError) as exc:
            report.checks.append(Check("text request", False, f"failed: {exc}"))
        image_url = "data:image/png;base64," + base64.b64encode(tiny_png()).decode()
        image_body = {
            **text_body,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": image_url}},
                        {"type": "text", "text": "What colour is this image? One word."},
                    ],
                }
            ],
        }
        try:
            r = client.post("/chat/completions", json=image_body)
            report.accepts_images = r.status_code == 200
            detail = "accepted" if report.accepts_images else f"refused: HTTP {r.status_code} {r.text[:160]}"
        except httpx.HTTPError as exc:
            report.accepts_images = False
            detail = f"failed: {exc}"
        report.checks.append(Check("images", report.accepts_images, detail, required=False))
        if frames:
            from egoworld.models.run_check import RunShape, check_run_request

            shape = RunShape(frames, max_pixels, image_format)
            ok, detail = check_run_request(client, model, shape, context_length=report.context_length)
            report.checks.append(Check("run request", ok, detail))
    return report


def _probe_context(client: httpx.Client, base_url: str) -> int | None:
    root = _root(base_url)
    for path, pick in (
        ("/props", lambda d: (d.get("default_generation_settings") or {}).get("n_ctx")),
        ("/get_model_info", lambda d: d.get("max_context_length") or d.get("context_length")),
    ):
        try:
            r = client.get(root + path)
            if r.status_code == 200:
                value = pick(r.json())
                if isinstance(value, int):
                    return value
        except (httpx.HTTPError, ValueError):
            continue
    return None
