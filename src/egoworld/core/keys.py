"""Request keys: sha256 over everything that can change a model's output.

The key covers the model identity (backend, model id, revision, generation settings, baseline parameters),
the messages (prompt text, image content hashes, frame indices and times), the sample id, the option order
and the epoch. Changing any of these gives a new key, so caches never cross models or settings.
"""

from __future__ import annotations

from typing import Any

from egoworld.core.folders.hashing import sha256_json
from egoworld.core.model import Message


def request_key(
    *,
    model: dict[str, Any],
    messages: tuple[Message, ...],
    sample_id: str,
    permutation: str,
    epoch: int,
    inputs: dict[str, Any],
) -> str:
    return sha256_json(
        {
            "model": model,
            "messages": [m.describe() for m in messages],
            "sample": sample_id,
            "permutation": permutation,
            "epoch": epoch,
            "inputs": inputs,
        }
    )
