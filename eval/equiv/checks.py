"""Deterministic validity checks, one per perturbation kind.

A check returns the list of problems (empty = valid). Generated perturbations — from the
alias tables or from an LM — are kept only when their check passes. The checks of the kinds
people make (alias rewordings, minimal swaps) are in :mod:`minimal_checks`.
"""

from __future__ import annotations

from typing import Callable

from tribunal.eval.equiv.check_basics import Aliases, known_name as _known_name, norm as _norm
from tribunal.eval.equiv.check_basics import same_relations as _same_relations
from tribunal.core.hypothesis import Hypothesis
from tribunal.eval.equiv.minimal_checks import check_alias_chain, check_first_step_minimal, check_middle_step_minimal

PERTURBATION_KINDS = ("wording-only", "wording-chain", "alias-chain", "first-step-swapped", "middle-step-swapped",
                      "first-step-minimal", "middle-step-minimal")
# What a faithful rule should say for each kind.
EXPECTED_SAME = {"wording-only": True, "wording-chain": True, "alias-chain": True, "first-step-swapped": False,
                 "middle-step-swapped": False, "first-step-minimal": False, "middle-step-minimal": False}

Check = Callable[[Hypothesis, Hypothesis, Aliases], list[str]]


def check_wording_only(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    problems = _same_relations(original, perturbed)
    if original.steps != perturbed.steps:
        problems.append("chain changed (steps must be identical)")
    if _norm(original.explanation) == _norm(perturbed.explanation):
        problems.append("explanation not reworded")
    return problems


def check_wording_chain(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    problems = _same_relations(original, perturbed)
    if original.entities != perturbed.entities:
        problems.append("ordered entities changed")
    elif not any(_norm(a.text) != _norm(b.text) for a, b in zip(original.steps, perturbed.steps)):
        problems.append("no step reworded")
    if aliases:
        unknown = [s.text for s in perturbed.steps if not _known_name(s.entity, s.text, aliases)]
        if unknown:
            problems.append(f"wording not in the alias table: {unknown}")
    return problems


def _swap_problems(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases, index: int) -> list[str]:
    problems = _same_relations(original, perturbed)
    if len(original.steps) != len(perturbed.steps):
        return problems + ["chain length changed"]
    new, old = perturbed.steps[index], original.steps[index]
    if _norm(new.entity) == _norm(old.entity) or _known_name(old.entity, new.text, aliases):
        problems.append(f"step {index} not replaced (still {old.entity!r})")
    if any(_norm(new.entity) == _norm(e) for e in original.entities):
        problems.append(f"step {index} replaced by an entity already in the chain")
    for i, (a, b) in enumerate(zip(original.steps, perturbed.steps)):
        if i != index and a != b:
            problems.append(f"step {i} must stay fixed")
    return problems


def check_first_step_swapped(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    return _swap_problems(original, perturbed, aliases, 0)


def check_middle_step_swapped(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    if len(original.steps) != len(perturbed.steps):
        return ["chain length changed"]
    changed = [i for i, (a, b) in enumerate(zip(original.steps, perturbed.steps)) if a.entity != b.entity]
    if len(changed) != 1 or not 0 < changed[0] < len(original.steps) - 1:
        return [f"exactly one intermediate step must be replaced (changed: {changed})"]
    return _swap_problems(original, perturbed, aliases, changed[0])


CHECKS: dict[str, Check] = {
    "wording-only": check_wording_only,
    "wording-chain": check_wording_chain,
    "alias-chain": check_alias_chain,
    "first-step-swapped": check_first_step_swapped,
    "middle-step-swapped": check_middle_step_swapped,
    "first-step-minimal": check_first_step_minimal,
    "middle-step-minimal": check_middle_step_minimal,
}


def check_perturbation(kind: str, original: Hypothesis, perturbed: Hypothesis, aliases: Aliases | None = None) -> list[str]:
    """Problems that make ``perturbed`` an invalid ``kind`` perturbation of ``original``."""
    if kind not in CHECKS:
        raise ValueError(f"unknown perturbation kind {kind!r} (have {', '.join(CHECKS)})")
    return CHECKS[kind](original, perturbed, aliases or {})
