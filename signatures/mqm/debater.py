"""Stage 2 of M-MAD: one debater turn. The same signature serves both sides (``stance``).

The consensus decision is part of the debater's typed answer (``agrees``), so a debate round
needs no separate consensus call.
"""

from __future__ import annotations

from typing import Literal

import dspy

from tribunal.signatures.mqm.errors import DimensionError

TOPICS: dict[str, str] = {
    "severity": "the SEVERITY of each error (minor or major), and whether it is an error at all",
    "category": "the SUBCATEGORY of each error, and whether it is an error at all",
    "free": "any aspect of the assessment: validity, span, subcategory and severity of each error",
}


class DebateTurn(dspy.Signature):
    """You take part in a debate about one MQM dimension of a translation assessment.
    With stance "defend" you argue that the stage-1 assessment is right; with stance "oppose" you argue
    against it. Debate only the topic given. Read the debate so far, answer the other side's last
    argument, and state the error list you now hold to be correct (position). Set agrees to true only if
    you are now convinced by the other side's last position and accept it as it stands; your position
    then repeats theirs."""

    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    dimension: str = dspy.InputField()
    topic: str = dspy.InputField(desc="what the debate is about")
    stance: Literal["defend", "oppose"] = dspy.InputField()
    assessment: list[DimensionError] = dspy.InputField(desc="the stage-1 errors under debate")
    debate: str = dspy.InputField(desc="the debate so far (empty in the first turn)")
    argument: str = dspy.OutputField()
    position: list[DimensionError] = dspy.OutputField(desc="the errors you hold to be correct")
    agrees: bool = dspy.OutputField(desc="true if you accept the other side's last position")
