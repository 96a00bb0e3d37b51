"""`call_and_store`: one model call and its row in the response store — the only place requests are sent.

Both the generic runner and benchmark drivers (EXPLORE's multi-turn chains) use it, so retries, error
recording, timing and usage accounting behave the same everywhere.
"""

from __future__ import annotations

import time
from typing import Any

from egoworld.core.model import Generation, ImagePart, Model, ModelError, Request, VideoPart
from egoworld.runner.response_cache import ResponseCache, cache_key, deterministic


def media_bytes(request: Request) -> int:
    """Bytes of the encoded images and clips a request carries (its data URLs are 4/3 of this)."""
    return sum(p.size for m in request.messages for p in m.content if isinstance(p, ImagePart | VideoPart))


async def call_and_store(
    model: Model,
    request: Request,
    store: Any,
    *,
    permutation: str,
    epoch: int,
    summary: Any,
    cache: ResponseCache | None = None,
) -> Generation | None:
    """Send ``request``, write an ``ok`` or ``error`` row, count it in ``summary``; None when it failed.

    With a ``cache`` (`egoworld.runner.response_cache`) a deterministic request is answered from it when it
    holds the reply, and an ok reply is added to it. A backend bug (any exception) is recorded as an error
    and retried on the next run, never fatal.
    """
    identity = model.identity() if cache is not None else {}
    ckey = None
    if cache is not None and deterministic(identity):
        ckey = cache_key(identity, request, permutation=permutation, epoch=epoch)
    elif cache is not None:
        cache.counts.skipped += 1
    nbytes = media_bytes(request)
    store.put_request(
        request.key, {"messages": [m.describe() for m in request.messages], "media_bytes": nbytes}
    )
    summary.called += 1
    summary.media_bytes += nbytes
    summary.media_bytes_max = max(summary.media_bytes_max, nbytes)
    start = time.perf_counter()
    row: dict[str, Any] = {
        "key": request.key,
        "sample_id": request.sample_id,
        "permutation": permutation,
        "epoch": epoch,
    }
    try:
        cached = cache.get(ckey) if cache is not None and ckey is not None else None
        gen = cached or await model.generate(request)
    except ModelError as exc:
        reason = exc.reason
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
    else:
        store.put(
            **row,
            status="ok",
            raw=gen.text,
            reasoning=gen.reasoning,
            latency_s=time.perf_counter() - start,
            prompt_tokens=gen.prompt_tokens,
            completion_tokens=gen.completion_tokens,
            finish_reason=gen.finish_reason,
            served_model=gen.served_model,
            reasoning_tokens=gen.reasoning_tokens,
        )
        if cache is not None and ckey is not None and cached is None:
            cache.put(ckey, f"{identity.get('backend')}:{identity.get('model')}", gen)
        summary.ok += 1
        if gen.served_model:
            summary.served_models.add(gen.served_model)
        return gen
    store.put(**row, status="error", error=reason, latency_s=time.perf_counter() - start)
    summary.errors += 1
    return None
