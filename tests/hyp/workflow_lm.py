"""Scripted answers for the hypothesis workflow's roles (proposer, critic, reviser, engagement judge).

``answer(role, inputs)`` is shared by the in-process scripted LM and the loopback HTTP server.
Statements carry a marker so the reviser can branch: a hypothesis whose statement starts with
``S0`` is revised into two alternatives, any other into one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tribunal.signatures.hyp_engagement import JudgeEngagement
from tribunal.signatures.hyp_workflow import CritiqueHypothesis, ProposeHypotheses, ReviseHypothesis

SIGNATURES = {"propose": ProposeHypotheses, "critique": CritiqueHypothesis, "revise": ReviseHypothesis,
              "engage": JudgeEngagement}
FIRST_LINES = {role: cls.instructions.strip().split("\n")[0].strip() for role, cls in SIGNATURES.items()}
DEMANDS = ["Show B12 levels.", "Rule out duration.", "Explain MMA.", "Cite a trial."]
LABELS = {"Show B12 levels.": "answered", "Rule out duration.": "conceded", "Explain MMA.": "partial"}


def role_of(system: str) -> str:
    [role] = [role for role, line in FIRST_LINES.items() if line in system]
    return role


def hypothesis(statement: str, first: str = "metformin") -> dict[str, Any]:
    return {"statement": statement, "explanation": "E", "causal_chain": [first, "low vitamin B12", "nerve damage"]}


def answer(role: str, inputs: dict[str, Any], calls: Counter | None = None) -> dict[str, Any] | str:
    if calls is not None:
        calls[role] += 1
    if role == "propose":
        opening = str(inputs["opening_hypothesis"])
        if opening.startswith("Metformin reduces"):  # the first opening: two alternatives
            return {"hypotheses": [hypothesis("S0 ileal uptake"), hypothesis("S0 intrinsic factor", "gastric")]}
        return {"hypotheses": [hypothesis(f"S:{opening}")]}
    if role == "critique":
        return {"demands": DEMANDS}
    if role == "revise":
        before = str(inputs["hypothesis"])
        statement = before.split("\n")[0].removeprefix("Statement: ")
        kids = 2 if statement.startswith("S0") else 1
        return {"responses": ["r1", "r2", "r3", "r4"],
                "hypotheses": [hypothesis(f"{statement} +{i}") for i in range(kids)]}
    if role == "engage":
        demands = inputs["demands"]
        return {"demand_labels": [LABELS.get(d, "dropped") for d in demands]}
    raise AssertionError(f"unexpected role {role}")


def scripted_responder(scripted, calls: Counter):
    """``respond(system, user)`` for :func:`tests.support.scripted_lm.scripted_lm`."""
    import json

    def read(user: str, name: str) -> Any:
        value = scripted.field(user, name)
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value

    def respond(system: str, user: str):
        role = role_of(system)
        fields = {"propose": ["opening_hypothesis"], "critique": [], "revise": ["hypothesis"], "engage": ["demands"]}
        return answer(role, {name: read(user, name) for name in fields[role]}, calls)

    return respond
