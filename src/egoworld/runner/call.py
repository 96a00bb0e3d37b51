"""`call_and_store`: one model call and its row in the response store — the only place requests are sent.

Both the generic runner and benchmark drivers (EXPLORE's multi-turn chains) use it, so retries, error
recording, timing and usage accounting behave the same everywhere.
"""

from __future__ import annotations

import time
from typing import Any

from egoworld.core.model import Generation, ImagePart, Model, ModelError, Request, VideoPart


def media_bytes(request: Request) -> int:
    """Bytes of the encoded images and clips a request carries (its data URLs are 4/3 of this)."""
    return sum(p.size for m in request.messages for p in m.content if isinstance(p, ImagePart | VideoPart))


async def call_and_store(
    model: Model, request: Request, store: Any, *, permutation: str, epoch: int, summary: Any
) -> Generation | None:
    """Send ``request``, write an ``ok`` or ``error`` row, count it in ``summary``; None when it failed.

    A backend bug (any exception) is recorded as an error and retried on the next run, never fatal.
    """
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
        gen = await model.generate(request)
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
        )
        summary.ok += 1
        if gen.served_model:
            summary.served_models.add(gen.served_model)
        return gen
    store.put(**row, status="error", error=reason, latency_s=time.perf_counter() - start)
    summary.errors += 1
    return None
