"""Causal-chain rule: align the two chains step by step; "same" when every step has a counterpart.

Each step text is embedded (the offline MiniLM or the configured embedder; or TF-IDF fitted
on the batch's step texts) after abbreviations the other step spells out are expanded
(:mod:`abbreviations`), the two chains are aligned in order (:mod:`chain_alignment`),
and the pair's score is its weakest link: the lowest similarity of an aligned step, 0 when
a step has no counterpart. "same" at ``score >= threshold``. The statement and explanation
are not read: the rule judges the mechanism, not the prose around it; the relations are read
only for a reversed link ("activates" against "inhibits").

Beyond the similarity, each aligned step pair is compared by what it names
(:mod:`~tribunal.eval.equiv.chain_evidence`): a direction, a number or a sibling name changed
in an otherwise kept step makes the pair different (score 0), a step with the same content words
counts as 1, and each judgment records the evidence a cascade acts on (``detail["evidence"]``).

The default threshold was set by a documented rule on half of the shipped suite and checked
on the other half and on hand-written pairs (:mod:`tribunal.eval.equiv.defaults`).
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np

from tribunal.eval.equiv.abbreviations import expand_against
from tribunal.eval.equiv.chain_alignment import align_chains, reordered
from tribunal.eval.equiv.chain_evidence import chain_evidence
from tribunal.eval.equiv.step_contrast import contrast_steps
from tribunal.eval.equiv.defaults import CHAIN_THRESHOLD
from tribunal.core.hypothesis import Hypothesis
from tribunal.core.judgment import Judgment, Vote
from tribunal.eval.equiv.rules.base import Pair, SimilarityRule
from tribunal.eval.equiv.rules.encoders import DEFAULT_EMBEDDER, CachedEmbedder, EmbedderUse, Encoder, tfidf_vectors

DEFAULT_CHAIN_THRESHOLD = CHAIN_THRESHOLD
StepVectors = Literal["embedding", "tfidf"]


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=float), where=norms > 0)


def describe(weakest: tuple, a: Hypothesis, b: Hypothesis, is_reordered: bool) -> str:
    """One line naming the step that decides the verdict (``weakest``: step of A or None, step of B
    or None, similarity)."""
    i, j, value = weakest
    if i is not None and j is not None:
        where = f"weakest step A[{i}] {a.steps[i].text!r} ~ B[{j}] {b.steps[j].text!r} = {value:.3f}"
    elif i is not None:
        where = f"A[{i}] {a.steps[i].text!r} has no counterpart in B"
    else:
        where = f"B[{j}] {b.steps[j].text!r} has no counterpart in A"
    return where + ("; same steps in another order" if is_reordered else "")


class ChainRule(SimilarityRule):
    name = "chain"

    def __init__(self, threshold: float = DEFAULT_CHAIN_THRESHOLD, vectors: StepVectors = "embedding",
                 embedder: str = DEFAULT_EMBEDDER, allow_extra_steps: bool = False,
                 encoder: Encoder | None = None, cache: CachedEmbedder | None = None):
        """``vectors``: how step texts are compared; ``allow_extra_steps``: extra steps after the
        initiating event (more detail) do not make a pair different; ``encoder``: injected (tests);
        ``cache``: an embedder shared with other rules."""
        super().__init__(threshold)
        if vectors not in ("embedding", "tfidf"):
            raise ValueError(f"chain step vectors must be 'embedding' or 'tfidf', not {vectors!r}")
        self.vectors, self.embedder, self.allow_extra_steps = vectors, embedder, allow_extra_steps
        if vectors == "embedding":
            self.encoder: CachedEmbedder | None = cache if cache is not None else CachedEmbedder(embedder, encoder=encoder)
        else:
            self.encoder = None
        self._use = EmbedderUse(self.encoder) if self.encoder is not None else None

    @staticmethod
    def _compared_texts(a: Hypothesis, b: Hypothesis) -> list[list[tuple[str, str]]]:
        """For each step pair (i, j): the two texts as compared (abbreviations expanded)."""
        return [[(expand_against(x.text, y.text), expand_against(y.text, x.text)) for y in b.steps] for x in a.steps]

    def _comparisons(self, pairs: Sequence[Pair]) -> list[tuple[np.ndarray, list[list[tuple[str, str]]]]]:
        """Step-by-step similarity of each pair, with the texts compared; every distinct text is
        vectorised in one pass."""
        compared = [self._compared_texts(a, b) for a, b in pairs]
        texts = list(dict.fromkeys(t for grid in compared for row in grid for cell in row for t in cell))
        matrix = self._use(texts) if self._use is not None else tfidf_vectors(texts)
        vectors = dict(zip(texts, _unit(np.asarray(matrix, dtype=float))))
        # identical texts are exactly 1 (not 0.9999999), so a threshold of 1.0 keeps unchanged steps
        return [(np.array([[1.0 if x == y else float(vectors[x] @ vectors[y]) for x, y in row] for row in grid]), grid)
                for grid in compared]

    def similarities(self, pairs: Sequence[Pair]) -> np.ndarray:
        return np.array([j.score for j in self.judge_pairs(pairs)])

    def _vote(self, order: str, a: Hypothesis, b: Hypothesis, sim: np.ndarray, compared) -> Vote:
        alignment = align_chains(sim, self.allow_extra_steps)
        # the same steps (same content words) in another order: a structural difference at any threshold
        equal = np.array([[float(contrast_steps(x, y).kind == "equal") for x, y in row] for row in compared])
        moved_equal = reordered(equal, 1.0)
        moved = moved_equal or (reordered(sim, self.threshold) and alignment.score < self.threshold)
        unmatched = alignment.weakest[0] is None or alignment.weakest[1] is None
        evidence = chain_evidence(alignment, compared, a.relations, b.relations, structural=moved_equal or unmatched)
        # a step the rule verified (same content words) counts as 1; a named difference makes the pair 0
        values = [(1.0 if evidence.contrasts[(i, j)].kind == "equal" else v, i, j) for i, j, v in alignment.matched]
        score = 0.0 if evidence.evidence == "different" else min(v for v, _, _ in values)
        if evidence.evidence == "different" and not (moved_equal or unmatched):
            summary = f"named difference {evidence.reason}"
        else:
            value, i, j = min(values)
            summary = describe(alignment.weakest if unmatched else (i, j, value), a, b, moved)
        detail = {"summary": summary, "evidence": evidence.evidence, "contrasts": evidence.notes(),
                  "aligned": [[i, j, round(v, 4)] for i, j, v in alignment.matched],
                  "extra_a": list(alignment.extra_a), "extra_b": list(alignment.extra_b), "reordered": moved}
        return Vote(order=order, same=score >= self.threshold, score=score, detail=detail)

    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        judgments = []
        for (a, b), (sim, grid) in zip(pairs, self._comparisons(pairs)):
            # expansion and cosine are symmetric, so the reversed presentation is the transpose
            flipped = [[(y, x) for x, y in column] for column in zip(*grid)]
            votes = (self._vote("ab", a, b, sim, grid), self._vote("ba", b, a, sim.T, flipped))
            judgments.append(Judgment(same=votes[0].same, score=votes[0].score, votes=votes))
        return judgments

    def stats(self) -> dict[str, float]:
        return dict(self._use.totals) if self._use is not None else {}

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"threshold": self.threshold, "steps": self.vectors,
                                  "extra_steps": "allowed" if self.allow_extra_steps else "different"}
        if self.vectors == "embedding":
            params["embedder"] = self.embedder
        return params
