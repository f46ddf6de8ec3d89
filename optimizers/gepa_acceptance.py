"""GEPA keeps a proposal when it improves the objective on its reflection minibatch.

GEPA (the ``gepa`` package under ``dspy.GEPA``) takes an ``acceptance_criterion`` through
``gepa_kwargs``: an object with ``should_accept(proposal, state)``, given the parent's and the
proposal's outputs on the same minibatch (``proposal.eval_before`` / ``eval_after``). This one
computes the objective over those outputs; when it does not separate them (equal, e.g. a
segment-level statistic with no within-segment pair in a small minibatch), the item metric's sum
decides as in GEPA's default (strict improvement).
"""

from __future__ import annotations

from typing import Any

CORPUS_MINIBATCH = 6
"""GEPA's reflection minibatch under a corpus-level objective (3 under ``item``): a corpus statistic
on 3 items is mostly noise, and a larger minibatch costs rollouts out of the same budget."""


class ObjectiveAcceptance:
    """GEPA's acceptance test by ``objective`` over the minibatch's outputs (item sums break ties)."""

    def __init__(self, objective: Any, trainset: list[Any]):
        self.objective = objective
        self.trainset = trainset
        self.decisions: list[tuple[float, float, bool]] = []

    def _golds(self, proposal: Any) -> list[Any] | None:
        ids = proposal.subsample_indices
        if ids is None or not all(isinstance(i, int) and 0 <= i < len(self.trainset) for i in ids):
            return None
        return [self.trainset[i] for i in ids]

    @staticmethod
    def _outputs(evaluation: Any) -> list[Any]:
        from dspy.primitives.prediction import Prediction

        return [o if isinstance(o, Prediction) else None for o in getattr(evaluation, "outputs", None) or []]

    def should_accept(self, proposal: Any, state: Any) -> bool:
        old = sum(proposal.subsample_scores_before or [])
        new = sum(proposal.subsample_scores_after or [])
        golds = self._golds(proposal)
        if golds is None or proposal.eval_before is None or proposal.eval_after is None:
            return new > old
        before = self.objective.value(self._outputs(proposal.eval_before), golds)
        after = self.objective.value(self._outputs(proposal.eval_after), golds)
        accept = after > before or (after == before and new > old)
        self.decisions.append((before, after, accept))
        return accept
