"""Any OpenAI-compatible chat endpoint: vLLM, SGLang, llama.cpp server, OpenAI, Gemini's compatible API.

Text and images (data URLs) go in one user message, media first (so servers with prefix caching reuse the
prefill across questions and option orders). The API key is read from an environment variable only.
Transient failures (429, 5xx, timeouts, dropped connections, truncated or empty replies) are retried with
exponential backoff and full jitter; what still fails raises `ModelError` and is stored as an error row.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

import httpx

from egoworld.core.folders.hashing import seeded_rng
from egoworld.core.model import (
    EncodedMediaCache,
    Generation,
    ImagePart,
    Message,
    Model,
    ModelError,
    Request,
    TextPart,
    VideoPart,
)
from egoworld.models.adaptive import AdaptiveLimit

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class _Retry(Exception):
    def __init__(
        self, reason: str, wait: float | None = None, *, empty: bool = False, throttle: bool = False
    ):
        super().__init__(reason)
        self.reason = reason
        self.wait = wait
        self.empty = empty
        self.throttle = throttle  # the server is overloaded (429, 5xx, timeout): lower the load


class OpenAICompatModel(Model):
    """Chat completions over HTTP. Generation is greedy (temperature 0) unless told otherwise."""

    backend = "openai"
    EMPTY_RETRIES = 2

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        revision: str | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float | None = None,
        seed: int | None = None,
        stop: list[str] | None = None,
        extra_body: dict[str, Any] | None = None,
        timeout: float = 120.0,
        max_retries: int = 5,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        concurrency: int = 8,
    ):
        if not model:
            raise ValueError("the openai backend needs a model name: --model openai:<name>")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.revision = revision
        self.generation = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            **({"top_p": top_p} if top_p is not None else {}),
            **({"seed": seed} if seed is not None else {}),
            **({"stop": list(stop)} if stop else {}),
        }
        self.extra_body = extra_body or {}
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.concurrency = concurrency
        self._client: httpx.AsyncClient | None = None
        self.media_cache = EncodedMediaCache()  # one data URL per image, not one per request
        self.load = AdaptiveLimit(concurrency)  # requests in flight: AIMD on 429 / 5xx / slow replies

    def load_figures(self) -> dict[str, Any]:
        """Adaptive concurrency of this model's requests (mean in flight, throttled seconds), for run.json."""
        return self.load.figures()

    def identity(self) -> dict[str, Any]:
        ident: dict[str, Any] = {"backend": self.backend, "model": self.model, "generation": self.generation}
        if self.revision:
            ident["revision"] = self.revision
        if self.extra_body:
            ident["extra_body"] = self.extra_body
        return ident

    # -- HTTP ---------------------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env)
        return {"Authorization": f"Bearer {key}"} if key else {}

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=self._headers(),
                timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 30.0)),
                limits=httpx.Limits(
                    max_connections=self.concurrency, max_keepalive_connections=self.concurrency
                ),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def preflight(self) -> list[str]:
        """One connection check (`models.preflight`); a warning when the server does not list the model."""
        from egoworld.models.preflight import check_connection, served_model_warning

        listed = await asyncio.to_thread(
            check_connection,
            self.base_url,
            api_key_env=self.api_key_env,
            timeout=min(self.timeout, 10.0),
        )
        warning = served_model_warning(self.model, listed, "lists")
        return [warning] if warning else []

    def payload(self, request: Request) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [encode_message(m, self.media_cache) for m in request.messages],
            "stream": False,
            **self.generation,
            **self.extra_body,
        }

    async def generate(self, request: Request) -> Generation:
        body = self.payload(request)
        rng = seeded_rng("backoff", request.key)
        last = "no attempt"
        empties = 0
        for attempt in range(self.max_retries + 1):
            await self.load.acquire()
            start = time.monotonic()
            try:
                gen = await self._once(body)
            except _Retry as exc:
                self.load.release()
                if exc.throttle:
                    self.load.throttled(exc.wait)
                last = exc.reason
                empties += exc.empty
                # an empty reply is rarely transient (greedy decoding repeats it): retry it at most twice
                if attempt == self.max_retries or empties > self.EMPTY_RETRIES:
                    return self._give_up(last, attempt + 1)
                delay = min(self.max_backoff, self.backoff * 2**attempt) * rng.uniform(0.5, 1.0)
                if exc.wait is not None:
                    delay = max(delay, min(exc.wait, self.max_backoff))
                await asyncio.sleep(delay)
                continue
            except BaseException:
                self.load.release()
                raise
            self.load.release()
            self.load.success(time.monotonic() - start)
            return gen
        return self._give_up(last, self.max_retries + 1)

    @staticmethod
    def _give_up(reason: str, attempts: int) -> Generation:
        raise ModelError(f"{reason} (after {attempts} attempts)")

    async def _once(self, body: dict[str, Any]) -> Generation:
        try:
            resp = await self.client().post("/chat/completions", json=body)
        except httpx.TimeoutException as exc:
            raise _Retry(f"timeout after {self.timeout:g} s ({type(exc).__name__})", throttle=True) from exc
        except httpx.TransportError as exc:
            raise _Retry(f"connection failed: {type(exc).__name__}: {exc}") from exc
        if resp.status_code in RETRY_STATUS:
            raise _Retry(
                f"HTTP {resp.status_code}: {resp.text[:200]}", wait=_retry_after(resp), throttle=True
            )
        if resp.status_code >= 400:
            raise ModelError(f"HTTP {resp.status_code}: {resp.text[:500]}", retryable=False)
        try:
            data = resp.json()
            choice = data["choices"][0]
            message = choice["message"]
        except (json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
            raise _Retry(f"malformed reply ({type(exc).__name__}): {resp.text[:200]!r}") from exc
        text = _content_text(message.get("content"))
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if not text.strip():
            raise _Retry(f"empty content (finish_reason={choice.get('finish_reason')})", empty=True)
        usage = data.get("usage") or {}
        return Generation(
            text=text,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            reasoning=reasoning if isinstance(reasoning, str) else None,
            finish_reason=choice.get("finish_reason"),
            served_model=data.get("model"),
            reasoning_tokens=_reasoning_tokens(usage),
        )


def _reasoning_tokens(usage: dict[str, Any]) -> int | None:
    """``usage.completion_tokens_details.reasoning_tokens`` (OpenAI, vLLM) where the server reports it."""
    details = usage.get("completion_tokens_details")
    value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return value if isinstance(value, int) else None


def _retry_after(resp: httpx.Response) -> float | None:
    value = resp.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers return content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def encode_message(message: Message, cache: EncodedMediaCache | None = None) -> dict[str, Any]:
    """OpenAI chat format; an image's (or video's) label goes as a text part just before it. Videos go as
    ``video_url`` parts, which vLLM and SGLang accept (use `--setting frames --video-part` only with those)."""
    if all(isinstance(p, TextPart) for p in message.content):
        return {"role": message.role, "content": message.text}
    parts: list[dict[str, Any]] = []
    for p in message.content:
        if isinstance(p, ImagePart):
            if p.label:
                parts.append({"type": "text", "text": f"{p.label}:"})
            url = cache.get("data_url", p.sha256, p.data_url) if cache is not None else p.data_url()
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif isinstance(p, VideoPart):  # vLLM / SGLang extension of the chat format
            if p.label:
                parts.append({"type": "text", "text": f"{p.label}:"})
            parts.append({"type": "video_url", "video_url": {"url": p.data_url()}})
        else:
            parts.append({"type": "text", "text": p.text})
    return {"role": message.role, "content": parts}


async def list_models(base_url: str, api_key_env: str = "OPENAI_API_KEY", timeout: float = 10.0) -> list[str]:
    """Model ids a server lists at ``/models`` (used by checks before a long run)."""
    key = os.environ.get(api_key_env)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout) as client:
        resp = await client.get("/models")
        resp.raise_for_status()
        return [m.get("id", "") for m in resp.json().get("data", [])]
