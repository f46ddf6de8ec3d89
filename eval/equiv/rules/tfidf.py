"""TF-IDF cosine rule: sublinear tf, English stop words, same at cosine >= 0.25 by default.

The vectoriser is fitted on the distinct texts of the batch being judged, so IDF weights
reflect the collection at hand (the suite, or all hypotheses of a set of runs).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from tribunal.eval.equiv.defaults import TFIDF_THRESHOLD
from tribunal.eval.equiv.rules.base import Pair, SimilarityRule, pair_cosines, unique_texts
from tribunal.eval.equiv.rules.encoders import tfidf_vectors

DEFAULT_TFIDF_THRESHOLD = TFIDF_THRESHOLD


class TfidfRule(SimilarityRule):
    name = "tfidf"

    def __init__(self, threshold: float = DEFAULT_TFIDF_THRESHOLD):
        super().__init__(threshold)

    def similarities(self, pairs: Sequence[Pair]) -> np.ndarray:
        texts, pairs_idx = unique_texts(pairs)
        if not texts:
            return np.zeros(0)
        return pair_cosines(tfidf_vectors(texts), pairs_idx)

    def params(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "sublinear_tf": True, "stop_words": "english"}
