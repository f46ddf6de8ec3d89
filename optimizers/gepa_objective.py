"""GEPA under a corpus-level objective: segment-whole minibatches, proposals kept by the objective.

GEPA (the ``gepa`` package under ``dspy.GEPA``) takes an ``acceptance_criterion`` through
``gepa_kwargs``: an object with ``should_accept(proposal, state)``, given the parent's and the
proposal's outputs on the same minibatch (``proposal.eval_before`` / ``eval_after``). This one
computes the objective over those outputs; when it does not separate them (equal, e.g. a
segment-level statistic with no within-segment pair in a small minibatch), the item metric's sum
decides as in GEPA's default (strict improvement).

A segment-level statistic needs translations of the same source segment in the minibatch, which a
shuffled 6-item minibatch of a large training set seldom has; so the minibatches are drawn by
:class:`SegmentBatchSampler` (GEPA's ``batch_sampler``): whole segments in a seeded shuffled
order, :data:`CORPUS_MINIBATCH` items (the last segment cut to fit). Examples without a ``seg_id``
are segments of one.
"""

from __future__ import annotations

import random
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
        from dspy.primitives.prediction import Prediction  # heavy: dspy, pydantic

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


class SegmentBatchSampler:
    """GEPA ``BatchSampler``: minibatches of whole segments (``seg_id``), cycling through a seeded shuffle."""

    def __init__(self, trainset: list[Any], size: int = CORPUS_MINIBATCH, seed: int = 0):
        groups: dict[Any, list[int]] = {}
        for index, example in enumerate(trainset):
            key = example.get("seg_id") if hasattr(example, "get") else None
            groups.setdefault(("seg", key) if key is not None else ("item", index), []).append(index)
        self.groups = list(groups.values())
        self.size = max(1, min(size, len(trainset)))
        self.rng = random.Random(seed)
        self.order: list[int] = []

    def next_minibatch_ids(self, loader: Any, state: Any) -> list[int]:
        """The next ``size`` ids: the next segments of the shuffle (reshuffled when used up)."""
        ids: list[int] = []
        while len(ids) < self.size:
            if not self.order:
                self.order = list(range(len(self.groups)))
                self.rng.shuffle(self.order)
            ids.extend(i for i in self.groups[self.order.pop()] if i not in ids)
        return ids[:self.size]
