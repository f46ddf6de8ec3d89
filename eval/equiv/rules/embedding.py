"""Dense-embedding cosine rule: same at cosine >= 0.77 by default, or at a calibrated threshold.

The encoder (offline all-MiniLM-L6-v2 by default, any DSPy embedder otherwise) lives in
:mod:`encoders`. ``threshold="auto"`` calibrates the threshold on the first batch judged so
that the share of pairs called "same" matches a target rate (see :mod:`calibration`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from tribunal.eval.equiv.calibration import RateTarget, calibrate_threshold
from tribunal.eval.equiv.defaults import EMBEDDING_THRESHOLD
from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.rules.base import Pair, SimilarityRule, pair_cosines, unique_texts
from tribunal.eval.equiv.rules.encoders import (DEFAULT_EMBEDDER, CachedEmbedder, EmbedderUse, Encoder,
                                                local_minilm_available)

DEFAULT_EMBEDDING_THRESHOLD = EMBEDDING_THRESHOLD

__all__ = ["DEFAULT_EMBEDDER", "DEFAULT_EMBEDDING_THRESHOLD", "EmbeddingRule", "local_minilm_available"]


class EmbeddingRule(SimilarityRule):
    name = "embedding"

    def __init__(self, threshold: float | None = DEFAULT_EMBEDDING_THRESHOLD, embedder: str = DEFAULT_EMBEDDER,
                 batch_size: int = 64, encoder: Encoder | None = None, target: RateTarget | None = None,
                 cache: CachedEmbedder | None = None):
        """``threshold=None`` with a ``target``: calibrate on the first batch (``--embedding-threshold auto``);
        ``cache``: an embedder shared with other rules (the model is loaded once)."""
        if threshold is None and target is None:
            raise ValueError("an automatic embedding threshold needs a target same-pair rate")
        super().__init__(threshold if threshold is not None else float("nan"))
        self.embedder = embedder
        self.target = target if threshold is None else None
        self.calibration: dict[str, Any] | None = None
        self.encoder = cache if cache is not None else CachedEmbedder(embedder, batch_size, encoder)
        self._use = EmbedderUse(self.encoder)

    @property
    def encode_calls(self) -> int:
        return int(self._use.totals["encode_calls"])

    @property
    def texts_encoded(self) -> int:
        return int(self._use.totals["texts_encoded"])

    @property
    def encode_seconds(self) -> float:
        return self._use.totals["encode_seconds"]

    @property
    def load_seconds(self) -> float:
        return self._use.totals["load_seconds"]

    def similarities(self, pairs: Sequence[Pair]) -> np.ndarray:
        texts, pairs_idx = unique_texts(pairs)
        return pair_cosines(self._use(texts), pairs_idx)

    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        if self.target is not None and self.calibration is None and pairs:
            self.calibration = calibrate_threshold(self.similarities(pairs), self.target, pairs)
            self.threshold = self.calibration["threshold"]
        return super().judge_pairs(pairs, repeat)

    def stats(self) -> dict[str, float]:
        return dict(self._use.totals)

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"threshold": self.threshold, "embedder": self.embedder}
        if self.target is not None:
            params["threshold_rule"] = f"auto({self.target.describe()})"
            params.update({f"calibration_{k}": v for k, v in (self.calibration or {}).items() if k != "threshold"})
        return params

    def setting(self) -> str:
        if self.target is not None:
            return f"embedding(threshold=auto:{self.target.describe()},embedder={self.embedder})"
        return super().setting()
