"""Judges score an annotated phrase against the evidence sentences of a prediction, 0–5.

* ``openai:<model>[,key=value…]`` — any OpenAI-compatible server (vLLM with Qwen3-8B reproduces the paper):
  the paper's system and user prompts, greedy decoding, thinking switched off through
  ``chat_template_kwargs`` (``thinking=omit`` for servers that reject the field). Calls are concurrent and cached
  in a `ResponseStore` keyed by the judge identity + prompt, so two judges never share a cached answer and a
  rerun only sends what is missing or failed. A reply without a valid 0–5 score is asked again
  (``invalid_retries``), then recorded as failed: counted, reported, and left out of every mean.
* ``lexical`` — built in, deterministic, offline: embedding similarity and token overlap mapped to 0–5. Its
  numbers are not comparable to the paper's; every table that uses it says so.
"""

from __future__ import annotations

import asyncio
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.benchmarks.explore.prompts import JUDGE_SYSTEM, JUDGE_USER
from egoworld.benchmarks.explore.strategy import clean_reply
from egoworld.core.keys import request_key
from egoworld.core.model import Message, ModelError, Request, TextPart
from egoworld.core.schema import Sample

KINDS = ("attribute", "relation", "key_state")
SCORE_PARSER = "first-number-0-5/v1"


@dataclass(frozen=True)
class JudgeItem:
    """One judgement: an annotated phrase (description, relation or key state) against evidence sentences."""

    kind: str
    phrase: str
    evidence: tuple[str, ...]
    sample: Sample

    @property
    def sentence(self) -> str:
        """The evidence as the paper passes it to the judge: sentences joined with '. '."""
        return ". ".join(self.evidence)


@dataclass
class JudgeResult:
    score: float | None
    status: str  # ok | no_evidence | failed
    raw: str | None = None
    attempts: int = 0
    error: str | None = None
    cached: bool = False


@dataclass
class JudgeStats:
    items: int = 0
    no_evidence: int = 0
    cached: int = 0
    calls: int = 0
    invalid_replies: int = 0
    failed: int = 0
    failures: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "no_evidence": self.no_evidence,
            "cached": self.cached,
            "calls": self.calls,
            "invalid_replies": self.invalid_replies,
            "failed": self.failed,
            "failures_by_kind": dict(sorted(self.failures.items())),
        }


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def parse_score(text: str | None) -> float | None:
    """The judge's score: the first number of the reply (after any reasoning) when it lies in 0–5, else None.

    The paper takes the first run of digits and uses −1 when there is none (and 10 for "10"); a reply without a
    valid score is None here and never enters a mean.
    """
    if text is None:
        return None
    m = _NUMBER.search(clean_reply(text))
    if m is None:
        return None
    value = float(m[0])
    return value if 0.0 <= value <= 5.0 else None


class Judge(ABC):
    """Scores `JudgeItem`s with evidence; items without evidence score 0 without a call (as in the paper)."""

    spec: str = "abstract"
    label: str = "abstract"
    comparable_to_paper: bool = False

    def __init__(self) -> None:
        self.stats = JudgeStats()
        self.served_models: set[str] = set()  # model ids the judge's server answered as

    @abstractmethod
    def identity(self) -> dict[str, Any]: ...

    @abstractmethod
    async def _score(self, items: Sequence[JudgeItem]) -> list[JudgeResult]: ...

    async def score(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        out: list[JudgeResult | None] = [None] * len(items)
        todo = []
        for i, it in enumerate(items):
            if not it.evidence:
                out[i] = JudgeResult(score=0.0, status="no_evidence")
            else:
                todo.append(i)
        results = await self._score([items[i] for i in todo]) if todo else []
        for i, r in zip(todo, results, strict=True):
            out[i] = r
        self.stats.items += len(items)
        self.stats.no_evidence += len(items) - len(todo)
        for it, r in zip(items, out, strict=True):
            if r is not None and r.status == "failed":
                self.stats.failed += 1
                self.stats.failures[it.kind] = self.stats.failures.get(it.kind, 0) + 1
        return [r for r in out if r is not None]

    async def aclose(self) -> None:  # noqa: B027 — optional hook
        """Release connections and caches."""

    @property
    def name(self) -> str:
        """The judge without its connection options (``openai:<model>`` or ``lexical``)."""
        return self.spec.split(",", 1)[0]

    def describe(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "name": self.name,
            "label": self.label,
            "comparable_to_paper": self.comparable_to_paper,
            "identity": self.identity(),
        }


# -- lexical --------------------------------------------------------------------------------------------------
_WORD = re.compile(r"[a-z0-9]+")


def _content_tokens(text: str, stop: frozenset[str]) -> set[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        if w in stop:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return out


class LexicalJudge(Judge):
    """0–5 from embedding similarity and token recall (deterministic; NOT comparable to an LLM judge).

    ``sim`` = best cosine between the phrase and one evidence sentence, mapped linearly from [0.2, 0.8] to
    [0, 1]; ``recall`` = share of the phrase's content words found in the evidence. Score =
    round(5 · (0.5 · sim + 0.5 · recall)).
    """

    spec = "lexical"
    label = "lexical (built-in, deterministic; not comparable to the paper's LLM judge)"
    VERSION = "1"

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray]):
        super().__init__()
        from spacy.lang.en.stop_words import STOP_WORDS

        self.embed = embed
        self.stop = frozenset(STOP_WORDS)

    def identity(self) -> dict[str, Any]:
        return {"judge": "lexical", "version": self.VERSION, "scale": "round(5*(0.5*sim+0.5*recall))"}

    def score_one(
        self, phrase_vec: np.ndarray, ev_vecs: np.ndarray, phrase: str, evidence: Sequence[str]
    ) -> float:
        sim = float(np.max(ev_vecs @ phrase_vec))
        s = min(1.0, max(0.0, (sim - 0.2) / 0.6))
        want = _content_tokens(phrase, self.stop)
        have: set[str] = set()
        for e in evidence:
            have |= _content_tokens(e, self.stop)
        recall = len(want & have) / len(want) if want else s
        return float(round(5.0 * (0.5 * s + 0.5 * recall)))

    async def _score(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        texts = list(dict.fromkeys([it.phrase for it in items] + [e for it in items for e in it.evidence]))
        vecs = self.embed(texts)
        index = {t: i for i, t in enumerate(texts)}
        out = []
        for it in items:
            pv = vecs[index[it.phrase]]
            ev = vecs[[index[e] for e in it.evidence]]
            out.append(JudgeResult(score=self.score_one(pv, ev, it.phrase, it.evidence), status="ok"))
        return out


# -- OpenAI-compatible ------------------------------------------------------------------------------------------
class OpenAIJudge(Judge):
    """An LLM judge behind any OpenAI-compatible endpoint, with a response cache and failure accounting."""

    comparable_to_paper = True

    def __init__(
        self,
        model: str,
        *,
        cache_path: str | Path | None,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        revision: str | None = None,
        max_tokens: int = 32,
        temperature: float = 0.0,
        thinking: str = "off",
        concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        invalid_retries: int = 2,
        cache: str | None = None,
    ):
        from egoworld.models.openai_compat import OpenAICompatModel

        super().__init__()
        if thinking not in ("off", "omit"):
            raise ValueError(f"judge thinking={thinking!r}: expected off or omit")
        extra = {"chat_template_kwargs": {"enable_thinking": False}} if thinking == "off" else {}
        self.model = OpenAICompatModel(
            model,
            base_url=base_url,
            api_key_env=api_key_env,
            revision=revision,
            max_tokens=max_tokens,
            temperature=temperature,
            extra_body=extra,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            concurrency=concurrency,
        )
        self.spec = f"openai:{model}"
        self.label = f"openai:{model} (LLM judge, paper prompts)"
        self.concurrency = max(1, concurrency)
        self.invalid_retries = max(0, invalid_retries)
        self.cache_path = Path(cache_path) if cache_path else None
        self._store: Any = None
        #: the response cache shared across runs (``cache=DIR``, as `egoworld run --cache`), consulted after
        #: the run folder's own judge store; deterministic judges only (temperature 0 or a seed)
        self.shared_dir = Path(cache) if cache else None
        self._shared: Any = None
        self._checked = False
        self.warnings: list[str] = []
        # fixed at creation: a later fallback (dropping a rejected field) must not change cache keys mid-run
        self._identity = {"judge": "openai", **self.model.identity(), "score_parser": SCORE_PARSER}

    def identity(self) -> dict[str, Any]:
        return self._identity

    @property
    def store(self) -> Any:
        if self._store is None and self.cache_path is not None:
            from egoworld.core.folders.store import ResponseStore

            self._store = ResponseStore(self.cache_path)
        return self._store

    @property
    def shared(self) -> Any:
        from egoworld.runner.response_cache import ResponseCache, deterministic

        if self._shared is None and self.shared_dir is not None and deterministic(self._identity):
            self._shared = ResponseCache(self.shared_dir)
        return self._shared

    def _shared_key(self, req: Request, kind: str) -> str:
        from egoworld.runner.response_cache import cache_key

        return cache_key(self._identity, req, permutation=kind, epoch=0)

    def request(self, item: JudgeItem) -> Request:
        messages = (
            Message(role="system", content=(TextPart(JUDGE_SYSTEM),)),
            Message(
                role="user",
                content=(TextPart(JUDGE_USER[item.kind].format(sentence=item.sentence, phrase=item.phrase)),),
            ),
        )
        key = request_key(
            model=self.identity(),
            messages=messages,
            sample_id="judge",
            permutation=item.kind,
            epoch=0,
            inputs={},
        )
        return Request(
            key=key, sample_id=item.sample.id, messages=messages, choices=None, permutation=None, epoch=0
        )

    async def _score(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        requests = [self.request(it) for it in items]
        unique: dict[str, tuple[Request, str]] = {}
        for r, it in zip(requests, items, strict=True):
            unique.setdefault(r.key, (r, it.kind))
        done: dict[str, JudgeResult] = {}
        store = self.store
        if store is not None:
            for key, st in store.status_of(list(unique)).items():
                if st != "ok":
                    continue
                row = store.get(key)
                value = parse_score(row.raw if row else None)
                if value is not None:
                    done[key] = JudgeResult(score=value, status="ok", raw=row.raw, cached=True)
                    self.stats.cached += 1
        if self.shared is not None:
            for key, (req, kind) in unique.items():
                if key in done:
                    continue
                gen = self.shared.get(self._shared_key(req, kind))
                value = parse_score(gen.text) if gen is not None else None
                if gen is not None and value is not None:
                    self._record(req, kind, "ok", gen.text, None, gen)
                    done[key] = JudgeResult(score=value, status="ok", raw=gen.text, cached=True)
                    self.stats.cached += 1
        if not self._checked and any(key not in done for key in unique):
            self._checked = True  # one connection check before the first call: an unreachable judge is fatal
            self.warnings.extend(await self.model.preflight())
        sem = asyncio.Semaphore(self.concurrency)

        async def one(req: Request, kind: str) -> None:
            async with sem:
                done[req.key] = await self._ask(req, kind)

        await asyncio.gather(*(one(r, kind) for key, (r, kind) in unique.items() if key not in done))
        return [done[r.key] for r in requests]

    async def _ask(self, req: Request, kind: str) -> JudgeResult:
        last_raw, reason = None, "no attempt"
        for attempt in range(1, self.invalid_retries + 2):
            self.stats.calls += 1
            try:
                gen = await self.model.generate(req)
            except ModelError as exc:
                if "chat_template_kwargs" in exc.reason and self.model.extra_body:
                    self.model.extra_body = {}  # the server rejects the field: thinking cannot be switched
                    continue
                reason = f"request failed: {exc.reason}"
                self._record(req, kind, "error", None, reason)
                return JudgeResult(None, "failed", None, attempt, reason)
            last_raw = gen.text
            value = parse_score(gen.text)
            if value is not None:
                self._record(req, kind, "ok", gen.text, None, gen)
                if self.shared is not None:
                    self.shared.put(self._shared_key(req, kind), self.spec.split(",")[0], gen)
                return JudgeResult(value, "ok", gen.text, attempt)
            self.stats.invalid_replies += 1
            reason = f"no valid 0-5 score in reply {gen.text[:80]!r}"
            self._record(req, kind, "error", gen.text, reason, gen)
        return JudgeResult(None, "failed", last_raw, self.invalid_retries + 1, reason)

    def _record(
        self, req: Request, kind: str, status: str, raw: str | None, error: str | None, gen: Any = None
    ) -> None:
        if getattr(gen, "served_model", None):
            self.served_models.add(gen.served_model)
        if self.store is None:
            return
        self.store.put(
            key=req.key,
            sample_id=req.sample_id,
            permutation=kind,
            epoch=0,
            status=status,
            raw=raw,
            error=error,
            prompt_tokens=getattr(gen, "prompt_tokens", None),
            completion_tokens=getattr(gen, "completion_tokens", None),
            finish_reason=getattr(gen, "finish_reason", None),
            served_model=getattr(gen, "served_model", None),
        )

    async def aclose(self) -> None:
        await self.model.aclose()
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._shared is not None:
            self._shared.close()
            self._shared = None


# -- specs ----------------------------------------------------------------------------------------------------
_INT = {"max_tokens", "concurrency", "max_retries", "invalid_retries"}
_FLOAT = {"temperature", "timeout", "backoff", "max_backoff"}
_STR = {"base_url", "api_key_env", "revision", "thinking", "cache"}


def parse_judge_spec(spec: str) -> tuple[str, str, dict[str, Any]]:
    """``lexical`` or ``openai:<model>[,key=value…]`` → (kind, model, options)."""
    spec = spec.strip()
    if spec == "lexical":
        return "lexical", "", {}
    kind, _, rest = spec.partition(":")
    if kind != "openai" or not rest:
        raise ValueError(f"judge {spec!r}: expected 'lexical' or 'openai:<model>[,base_url=URL,…]'")
    model, *pairs = rest.split(",")
    opts: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or key not in _INT | _FLOAT | _STR:
            raise ValueError(
                f"judge option {pair!r}: expected key=value with key in {sorted(_INT | _FLOAT | _STR)}"
            )
        opts[key] = int(value) if key in _INT else float(value) if key in _FLOAT else value
    return "openai", model.strip(), opts


def create_judge(
    spec: str, *, cache_path: str | Path | None, embed: Callable[[], Callable[[Sequence[str]], np.ndarray]]
) -> Judge:
    """A judge from its spec; ``embed`` supplies the SBERT encoder (only the lexical judge needs it)."""
    kind, model, opts = parse_judge_spec(spec)
    if kind == "lexical":
        return LexicalJudge(embed())
    judge = OpenAIJudge(model, cache_path=cache_path, **opts)
    judge.spec = spec.strip()  # the full spec, so a rescoring without --judge reaches the same server
    return judge
