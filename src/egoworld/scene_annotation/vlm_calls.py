"""VLM calls of the scene pipeline: versioned prompt files, JSON replies, a response cache, failure counts.

Every call goes through `OpenAICompatModel` (HTTP retries with backoff, the API key read from the environment
only). Replies are cached in a `ResponseStore` (``vlm.sqlite`` in the scene folder, keyed by the model
identity + prompt + image hashes, secrets redacted), so a rerun sends only what is missing or failed. A reply
that does not parse is asked again ``invalid_retries`` times, then counted as failed per stage (never
silently dropped); the caller records what it did instead.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from egoworld.core.keys import request_key
from egoworld.core.model import ImagePart, Message, ModelError, Request, TextPart

PROMPTS = ("tags", "filter", "attributes", "correct")


def prompt(name: str) -> tuple[str, str]:
    """(version line, template) of a packaged prompt file (its first line: ``# <name> v<k>: …``)."""
    text = resources.files("egoworld.scene_annotation").joinpath(f"prompts/{name}.txt").read_text("utf-8")
    head, _, body = text.partition("\n")
    return head.lstrip("# ").split(":", 1)[0], body.strip()


def parse_json(text: str, kind: type) -> Any:
    """The JSON list / object in a reply (fenced or bare); ValueError when there is none."""
    pattern = r"\[.*\]" if kind is list else r"\{.*\}"
    m = re.search(pattern, text, re.S)
    if m is None:
        raise ValueError(f"no JSON {kind.__name__} in the reply")
    value = json.loads(m.group(0))
    if not isinstance(value, kind):
        raise ValueError(f"the reply is not a JSON {kind.__name__}")
    return value


@dataclass
class StageStats:
    calls: int = 0
    cached: int = 0
    invalid_replies: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached": self.cached,
            "invalid_replies": self.invalid_replies,
            "failed": self.failed,
            "errors": self.errors[:20],
        }


class SceneVlm:
    """One VLM (an `OpenAICompatModel`) with the scene folder's cache."""

    def __init__(self, model: Any, cache: str | Path, *, invalid_retries: int = 2, concurrency: int = 8):
        from egoworld.core.folders.store import ResponseStore
        from egoworld.models.openai_compat import OpenAICompatModel

        if not isinstance(model, OpenAICompatModel):
            raise ValueError("--vlm must be an OpenAI-compatible model: openai:<model>[,base_url=URL,…]")
        self.model = model
        self.store = ResponseStore(cache)
        self.invalid_retries = invalid_retries
        self.concurrency = concurrency
        self.stats: dict[str, StageStats] = {}
        self.versions = {name: prompt(name)[0] for name in PROMPTS}

    def identity(self) -> dict[str, Any]:
        return self.model.identity()

    def _request(
        self, stage: str, item: str, images: Sequence[ImagePart], text: str, attempt: int
    ) -> Request:
        if attempt:
            text += f"\n(Attempt {attempt + 1}: the last reply was not valid JSON of the asked shape.)"
        messages = (Message("user", (*images, TextPart(text))),)
        key = request_key(
            model=self.identity(),
            messages=messages,
            sample_id=item,
            permutation=stage,
            epoch=0,
            inputs={"prompt": self.versions.get(stage, stage)},
        )
        return Request(key=key, sample_id=item, messages=messages, choices=None, permutation=None, epoch=0)

    def _keep(self, req: Request, stage: str, status: str, **fields: Any) -> None:
        """One attempt's row in the store, under the request's key (item: the request's sample id)."""
        self.store.put(
            key=req.key, sample_id=req.sample_id, permutation=stage, epoch=0, status=status, **fields
        )

    async def _ask(
        self, stage: str, item: str, images: Sequence[ImagePart], text: str, check: Callable[[str], Any]
    ) -> Any:
        st = self.stats.setdefault(stage, StageStats())
        reason = "no attempt"
        requests = [self._request(stage, item, images, text, a) for a in range(self.invalid_retries + 1)]
        for req in requests:  # a valid reply of an earlier run, at any attempt
            row = self.store.get(req.key)
            if row is not None and row.status == "ok" and row.raw is not None:
                try:
                    value = check(row.raw)
                except (ValueError, KeyError, TypeError):
                    continue
                st.cached += 1
                return value
        for req in requests:
            st.calls += 1
            try:
                gen = await self.model.generate(req)
            except ModelError as exc:
                reason = f"request failed: {exc.reason}"
                self._keep(req, stage, "error", error=reason)
                break
            try:
                value = check(gen.text)
            except (ValueError, KeyError, TypeError) as exc:
                st.invalid_replies += 1
                reason = f"malformed reply ({exc}): {gen.text[:80]!r}"
                self._keep(req, stage, "error", raw=gen.text, error=reason)
                continue
            self._keep(
                req,
                stage,
                "ok",
                raw=gen.text,
                prompt_tokens=gen.prompt_tokens,
                completion_tokens=gen.completion_tokens,
                served_model=gen.served_model,
            )
            return value
        st.failed += 1
        st.errors.append(f"{item}: {reason}")
        return None

    def ask_many(
        self, stage: str, jobs: Sequence[tuple[str, Sequence[ImagePart], str]], check: Callable[[str], Any]
    ) -> list[Any]:
        """The checked value of each (item id, images, prompt text); None where it failed (counted)."""

        async def run() -> list[Any]:
            sem = asyncio.Semaphore(self.concurrency)

            async def one(job: tuple[str, Sequence[ImagePart], str]) -> Any:
                async with sem:
                    return await self._ask(stage, job[0], job[1], job[2], check)

            try:
                return list(await asyncio.gather(*(one(j) for j in jobs)))
            finally:
                await self.model.aclose()

        return asyncio.run(run())

    def report(self) -> dict[str, Any]:
        return {stage: s.as_dict() for stage, s in sorted(self.stats.items())}

    def failures(self) -> Counter[str]:
        return Counter({stage: s.failed for stage, s in self.stats.items() if s.failed})

    def close(self) -> None:
        self.store.close()
