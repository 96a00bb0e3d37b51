"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, with injectable faults.

Replies are a deterministic function of the prompt text (a letter for option questions, a small integer
for counting questions), so two runs against it give identical scores. Faults are chosen per prompt by a
callable returning one of: None, "429", "429-once", "500", "500-once", "slow", "slow-once", "empty",
"empty-once", "truncated", "truncated-once".

Server limits, answered the way real servers answer them: ``image_limit`` (vLLM ``--limit-mm-per-prompt``: a
400 "At most N image(s) may be provided in one prompt."), ``context_length`` (vLLM ``--max-model-len``: a 400
when the prompt's tokens, counting one token per 28×28 image patch as Qwen2-VL does, exceed it) and
``max_body_bytes`` (a proxy's body limit: 413 Request Entity Too Large).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FaultFn = Callable[[str], str | None]


def prompt_text(body: dict[str, Any]) -> str:
    texts = []
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            texts.append(c)
        else:
            texts.extend(p.get("text", "") for p in c if p.get("type") == "text")
    return "\n".join(texts)


def has_image(body: dict[str, Any]) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in body.get("messages", [])
    )


def image_urls(body: dict[str, Any]) -> list[str]:
    return [
        p["image_url"]["url"]
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]


def prompt_tokens(body: dict[str, Any]) -> int:
    """Text tokens (4 characters each) plus image tokens (one per 28×28 patch, as Qwen2-VL counts them)."""
    from PIL import Image

    tokens = len(prompt_text(body)) // 4 + 8
    for url in image_urls(body):
        data = base64.b64decode(url.split(",", 1)[1]) if url.startswith("data:") else b""
        if data:
            with Image.open(io.BytesIO(data)) as img:
                w, h = img.size
            tokens += math.ceil(w / 28) * math.ceil(h / 28) + 2
    return tokens


def vllm_error(message: str, param: str | None = None) -> bytes:
    """A 400 body as vLLM's OpenAI server writes it."""
    return json.dumps(
        {"error": {"message": message, "type": "BadRequestError", "param": param, "code": 400}}
    ).encode()


def deterministic_reply(prompt: str) -> str:
    h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    if "single integer" in prompt:
        return f"There are {h % 9 + 1} of them."
    letters = "ABCD" if "C, or D" in prompt else "AB"
    return f"The answer is {letters[h % len(letters)]}."


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 resets connections under 64 concurrent clients


class FakeOpenAIServer:
    def __init__(
        self,
        *,
        fault: FaultFn | None = None,
        delay: float = 0.0,
        slow_seconds: float = 3.0,
        model: str = "fake-vlm-1",
        refuse_images: bool = False,
        context_length: int | None = None,
        reply: Callable[[str], str] | None = None,
        image_limit: int | None = None,
        max_body_bytes: int | None = None,
        throttle_above: int | None = None,
        throttle_seconds: float = 0.0,
    ):
        self.fault = fault or (lambda prompt: None)
        #: the reply text for a prompt (default `deterministic_reply`; judge tests pass their own)
        self.reply = reply or deterministic_reply
        self.delay = delay
        self.slow_seconds = slow_seconds
        self.model = model
        self.refuse_images = refuse_images
        self.context_length = context_length
        self.image_limit = image_limit
        self.max_body_bytes = max_body_bytes
        #: a rate-limited server: 429 (Retry-After 0.1) while more than ``throttle_above`` requests are in
        #: flight, during the first ``throttle_seconds`` after the first request
        self.throttle_above = throttle_above
        self.throttle_seconds = throttle_seconds
        self.in_flight = 0
        self.in_flight_log: list[tuple[float, int]] = []  # (seconds since the first request, in flight)
        self.first_request: float | None = None
        self.attempts: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _send(
                self,
                status: int,
                payload: bytes,
                ctype: str = "application/json",
                headers: dict[str, str] | None = None,
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    entry: dict[str, Any] = {"id": server.model, "object": "model"}
                    if server.context_length:
                        entry["max_model_len"] = server.context_length  # as vLLM reports it
                    self._send(200, json.dumps({"object": "list", "data": [entry]}).encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if server.max_body_bytes is not None and length > server.max_body_bytes:
                    self._send(
                        413, b"<html><body><h1>413 Request Entity Too Large</h1></body></html>", "text/html"
                    )
                    return
                body = json.loads(raw or b"{}")
                with server.lock:
                    now = time.monotonic()
                    server.first_request = server.first_request or now
                    server.in_flight += 1
                    server.in_flight_log.append((now - server.first_request, server.in_flight))
                    over = (
                        server.throttle_above is not None
                        and server.in_flight > server.throttle_above
                        and now - server.first_request < server.throttle_seconds
                    )
                try:
                    if over:
                        self._send(429, b'{"error": "rate limited"}', headers={"Retry-After": "0.1"})
                        return
                    self._post(body)
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _post(self, body: dict[str, Any]) -> None:
                prompt = prompt_text(body)
                if server.refuse_images and has_image(body):
                    self._send(400, b'{"error": "this model does not accept images"}')
                    return
                images = len(image_urls(body))
                if server.image_limit is not None and images > server.image_limit:
                    message = (
                        f"At most {server.image_limit} image(s) may be provided in one prompt. "
                        "Set `--limit-mm-per-prompt` to increase this limit."
                    )
                    self._send(400, vllm_error(message, "image"))
                    return
                if server.context_length and images:
                    tokens = prompt_tokens(body)
                    if tokens > server.context_length:
                        message = (
                            f"The decoder prompt (length {tokens}) is longer than the maximum model length of "
                            f"{server.context_length}. Make sure that `max_model_len` is no smaller than the "
                            "number of text tokens plus multimodal tokens."
                        )
                        self._send(400, vllm_error(message))
                        return
                key = hashlib.sha256(prompt.encode()).hexdigest()
                with server.lock:
                    server.attempts[key] += 1
                    attempt = server.attempts[key]
                    server.bodies.append(body)
                fault = server.fault(prompt)
                if fault and fault.endswith("-once") and attempt > 1:
                    fault = None
                kind = (fault or "ok").removesuffix("-once")
                with server.lock:
                    server.outcomes[kind] += 1
                if server.delay:
                    time.sleep(server.delay)
                if kind == "429":
                    self._send(429, b'{"error": "rate limited"}', headers={"Retry-After": "0"})
                elif kind == "500":
                    self._send(500, b'{"error": "internal"}')
                elif kind == "slow":
                    time.sleep(server.slow_seconds)
                    self._send(200, self._completion(server.reply(prompt)))
                elif kind == "truncated":
                    full = self._completion(server.reply(prompt))
                    self._send(200, full[: len(full) // 2])
                elif kind == "empty":
                    self._send(200, self._completion(""))
                else:
                    self._send(200, self._completion(server.reply(prompt)))

            def _completion(self, text: str) -> bytes:
                return json.dumps(
                    {
                        "id": "cmpl-test",
                        "object": "chat.completion",
                        "model": server.model,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 42, "completion_tokens": 5, "total_tokens": 47},
                    }
                ).encode()

        return Handler


if __name__ == "__main__":  # manual use: python tests/openai_test_server.py
    with FakeOpenAIServer() as srv:
        print(srv.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
