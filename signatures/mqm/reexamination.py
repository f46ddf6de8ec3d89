"""Stage 2 of M-MAD as published (the paper preset): a dimension expert re-examines its annotations.

Both agents of a debate are the same expert: neither is told to defend or attack. Each reads the
exchange so far from its own side (round 0: its opening annotations) and, given two different
answers, examines both step by step, leaning toward minor (``SEVERITY_GUIDANCE``, in every turn).
"""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import AccuracyError, GuidedFluencyError, GuidedStyleError, GuidedTerminologyError
from tribunal.signatures.mqm.guideline import DIMENSION_EXPERTS, SEVERITY_GUIDANCE, SPAN_RULES

TURN = (
    "You and another agent have annotated this translation. The debate lists, round by round, your annotations "
    "(\"you\") and the other agent's (\"other agent\"); round 0 holds the opening annotations. Given two different "
    "answers, think about it again. Examine your annotations and the other agent's annotations step by step. "
    f"{SEVERITY_GUIDANCE} Then give your annotations."
)


def _instruction(dimension: str) -> str:
    return f"You are an expert in detecting {dimension} errors in translations.\n" \
           f"{DIMENSION_EXPERTS[dimension]}\n\n{TURN}\n\n{SPAN_RULES}"


class _ReexaminationFields(dspy.Signature):
    """Shared fields of the re-examination turns (the instruction is each subclass's ``__doc__``)."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    debate: str = dspy.InputField(desc="the exchange so far, from your side")
    analysis: str = dspy.OutputField(desc="your step-by-step examination of both annotations")


class AccuracyReexamination(_ReexaminationFields):
    __doc__ = _instruction("accuracy")

    errors: list[AccuracyError] = dspy.OutputField()


class FluencyReexamination(_ReexaminationFields):
    __doc__ = _instruction("fluency")

    errors: list[GuidedFluencyError] = dspy.OutputField()


class StyleReexamination(_ReexaminationFields):
    __doc__ = _instruction("style")

    errors: list[GuidedStyleError] = dspy.OutputField()


class TerminologyReexamination(_ReexaminationFields):
    __doc__ = _instruction("terminology")

    errors: list[GuidedTerminologyError] = dspy.OutputField()


REEXAMINATIONS: dict[str, type[dspy.Signature]] = {
    "accuracy": AccuracyReexamination,
    "fluency": FluencyReexamination,
    "style": StyleReexamination,
    "terminology": TerminologyReexamination,
}
