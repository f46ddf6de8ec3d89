"""Verdict accuracy of an equivalence judge against perturbation labels.

The label of a perturbed pair follows from its kind: ``wording-only``, ``wording-chain`` and
``alias-chain`` keep the mechanism ("same"); ``first-step-swapped``, ``middle-step-swapped`` and
the two minimal swaps change it ("different"). An example carrying ``verdict`` (a labelled pair file's ``label``) is judged by it.
"""

from __future__ import annotations

from typing import Any

from tribunal.optimizers.metric_base import JudgeMetric, Outcome, unscored

EXPECTED_VERDICT = {
    "wording-only": "same",
    "wording-chain": "same",
    "alias-chain": "same",
    "first-step-swapped": "different",
    "middle-step-swapped": "different",
    "first-step-minimal": "different",
    "middle-step-minimal": "different",
}
WHY = {
    "wording-only": "only the explanation was reworded; the causal chain is unchanged",
    "wording-chain": "the chain was reworded with aliases; the ordered entities and relations are unchanged",
    "first-step-swapped": "the initiating event was replaced",
    "middle-step-swapped": "a load-bearing intermediate step was replaced",
    "alias-chain": "the steps were renamed through aliases (abbreviations, gene/protein, brand/generic names)",
    "first-step-minimal": "one entity, number, direction or relation of the initiating event was changed",
    "middle-step-minimal": "one entity, number, direction or relation of a later step or link was changed",
}


def expected_verdict(gold: Any) -> str:
    """'same' or 'different' for a gold example: its ``verdict`` (a labelled pair's own label wins),
    else the label its perturbation ``kind`` implies."""
    verdict = gold.get("verdict") if hasattr(gold, "get") else getattr(gold, "verdict", None)
    if verdict in ("same", "different"):
        return verdict
    kind = gold.get("kind") if hasattr(gold, "get") else getattr(gold, "kind", None)
    if kind in EXPECTED_VERDICT:
        return EXPECTED_VERDICT[kind]
    raise ValueError(f"gold example has neither a known perturbation kind nor a verdict (kind={kind!r})")


def predicted_verdict(pred: Any) -> str | None:
    """The judge's verdict: ``pred.judgment.same`` (majority judges) or ``pred.verdict``; None if absent."""
    judgment = getattr(pred, "judgment", None) if not isinstance(pred, dict) else pred.get("judgment")
    if judgment is not None:
        same = getattr(judgment, "same", None)
        return None if same is None else ("same" if same else "different")
    verdict = pred.get("verdict") if isinstance(pred, dict) else getattr(pred, "verdict", None)
    if isinstance(verdict, str) and verdict.strip().lower() in ("same", "different"):
        return verdict.strip().lower()
    return None


class EquivalenceMetric(JudgeMetric):
    """1.0 when the verdict matches the perturbation label, 0.0 when it does not."""

    name = "equiv-verdict-accuracy"
    success_threshold = 1.0

    def judge(self, gold: Any, pred: Any) -> Outcome:
        expected = expected_verdict(gold)
        verdict = predicted_verdict(pred)
        if verdict is None:
            judgment = getattr(pred, "judgment", None)
            return unscored(getattr(judgment, "reason", None) or "no parseable verdict")
        kind = gold.get("kind") if hasattr(gold, "get") else None
        why = f" ({WHY[kind]})" if kind in WHY and EXPECTED_VERDICT[kind] == expected else ""
        if verdict == expected:
            return Outcome(1.0, f"Correct: the verdict '{verdict}' matches the label{why}.",
                           components={"accuracy": 1.0})
        return Outcome(0.0, f"Wrong: the judge said '{verdict}' but the label is '{expected}'{why}.",
                       components={"accuracy": 0.0})
