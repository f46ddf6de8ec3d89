"""A scripted equivalence judge that follows the rubric text it is shown (wiring, not a model).

The judge looks the two hypotheses up by their rendered text (it knows each step's entity, as
the suite does) and applies only the clauses of the instruction in front of it:

- the first link compared on its own (``stepwise``: "compare the first link of each causal chain
  on its own"; ``component``: "First judge whether they share the initiating event"): a different
  first entity makes the pair different;
- the initiating event named without that instruction (``full``: "the initiating event differs"):
  a different first entity counts only when most of the downstream entities differ too (the
  shared downstream language hides it, as the rubric's caution warns);
- a route clause (``full``, ``stepwise``: "load-bearing route"; ``component``: "the causal route (the
  intermediate steps"): a different intermediate entity makes the pair different;
- none of these (``none``): different when more than half of the entities differ.

So the rubrics' audit rows differ exactly where their texts differ; they say nothing about what
a real model does with those texts.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from tests.support.equiv_fakes import output_fields
from tests.support.mqm_fakes import parse_fields

FIRST_ON_ITS_OWN = ("compare the first link of each causal chain on its own",
                    "First judge whether they share the initiating event")
INITIATING_EVENT = "the initiating event differs"
ROUTE = ("load-bearing route", "the causal route (the intermediate steps")


def follows_rubric(instruction: str, first: list[str], second: list[str]) -> bool:
    """True (same) or False (different) for two chains of entities, under ``instruction``'s clauses."""
    text = " ".join(instruction.split())
    first_differs = first[0] != second[0]
    downstream_shared = sum(a == b for a, b in zip(first[1:], second[1:])) / max(1, len(first) - 1)
    if any(clause in text for clause in FIRST_ON_ITS_OWN) and first_differs:
        return False
    if INITIATING_EVENT in text and first_differs and downstream_shared < 0.5:
        return False
    if any(clause in text for clause in ROUTE) and first[1:-1] != second[1:-1]:
        return False
    if not any(clause in text for clause in (*FIRST_ON_ITS_OWN, INITIATING_EVENT, *ROUTE)):
        return sum(a != b for a, b in zip(first, second)) + abs(len(first) - len(second)) <= len(first) / 2
    return True


def rubric_reader(hypotheses: Iterable[Any]) -> Callable[[str, str], dict[str, Any]]:
    """A ``respond(system, user)`` for :func:`tests.support.scripted_lm.scripted_lm` over these hypotheses."""
    chains = {h.render(): [step.entity for step in h.steps] for h in hypotheses}

    def respond(system: str, user: str) -> dict[str, Any]:
        inputs = parse_fields(user)
        same = follows_rubric(system, chains[str(inputs["hypothesis_a"])], chains[str(inputs["hypothesis_b"])])
        return {name: ("same" if same else "different") if name == "verdict" else same if kind == "bool"
                else "scripted" for name, kind in output_fields(system).items()}

    return respond
