"""The one interface every equivalence rule implements: pairs in, judgments out.

Rules judge a *batch* of pairs at once so that vectorising rules (TF-IDF, embeddings) can
process every distinct text in one pass, and LLM rules can run calls concurrently.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

import numpy as np

from tribunal.core.hypothesis import Hypothesis
from tribunal.core.judgment import Judgment, Vote

Pair = tuple[Hypothesis, Hypothesis]


class EquivalenceRule(ABC):
    """Decides whether two hypotheses describe the same mechanism."""

    name: str

    @abstractmethod
    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        """One judgment per pair, in order. ``repeat`` numbers independent re-judgments."""

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """Settings worth logging (thresholds, models, rubric)."""

    @property
    def label(self) -> str:
        """Name shown in tables; variants of one rule (e.g. rubrics) get distinct labels."""
        return self.name

    def stats(self) -> dict[str, float]:
        """Cost counters worth logging (model load time, batched passes, ...)."""
        return {}

    def setting(self) -> str:
        """Every setting that changes a verdict, for run signatures: ``tfidf(threshold=0.25,...)``."""
        params = {k: v for k, v in self.params().items() if k.rpartition("_")[2] not in VOLATILE_PARAMS}
        return f"{self.label}({','.join(f'{k}={_short(v)}' for k, v in params.items())})"


# Settings (or suffixes: ``judge_threads``) that change speed but never a verdict: kept out of signatures.
VOLATILE_PARAMS = frozenset({"threads"})


def _short(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


class SimilarityRule(EquivalenceRule):
    """A rule that scores a pair in [0, 1] (a cosine, the chain rule's weakest aligned step)
    and calls it "same" at ``score >= threshold``; the audit sweeps its threshold."""

    def __init__(self, threshold: float):
        self.threshold = threshold

    @abstractmethod
    def similarities(self, pairs: Sequence[Pair]) -> np.ndarray:
        """The score of each pair, as given (first hypothesis, second hypothesis)."""

    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        forward = self.similarities(pairs)
        reverse = self.similarities([(b, a) for a, b in pairs])
        judgments = []
        for ab, ba in zip(forward, reverse):
            votes = (Vote(order="ab", same=bool(ab >= self.threshold), score=float(ab)),
                     Vote(order="ba", same=bool(ba >= self.threshold), score=float(ba)))
            judgments.append(Judgment(same=votes[0].same, score=float(ab), votes=votes))
        return judgments


def unique_texts(pairs: Sequence[Pair]) -> tuple[list[str], list[tuple[int, int]]]:
    """Distinct rendered texts, and each pair as indices into them."""
    index: dict[str, int] = {}
    pairs_idx = []
    for a, b in pairs:
        ia = index.setdefault(a.render(), len(index))
        ib = index.setdefault(b.render(), len(index))
        pairs_idx.append((ia, ib))
    return list(index), pairs_idx


def pair_cosines(vectors: np.ndarray, pairs_idx: Sequence[tuple[int, int]]) -> np.ndarray:
    """Cosine similarity of row pairs of ``vectors`` (rows need not be normalised)."""
    if not pairs_idx:
        return np.zeros(0)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=float), where=norms > 0)
    left = unit[[i for i, _ in pairs_idx]]
    right = unit[[j for _, j in pairs_idx]]
    return np.clip(np.einsum("ij,ij->i", left, right), -1.0, 1.0)
