"""Stage 1 of M-MAD as published (the paper preset): four agents under one shared MQM guideline.

Each agent's instruction is the shared guideline (fine-grained spans, one error per span, the
severities, the non-translation rule) followed by its own task; every agent may report
non-translation, and style has the single subcategory "awkward". The agents answer with their
errors only (the published agents return bare annotations, no rationale). ``GuidedCoupledAssessment``
is the same guideline over all four dimensions at once: the stage-1 ablation of this preset.
"""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import (AccuracyError, DimensionError, GuidedFluencyError, GuidedStyleError,
                                            GuidedTerminologyError)
from tribunal.signatures.mqm.guideline import DIMENSION_TASKS, MQM_GUIDELINE, SPAN_RULES


def _instruction(role: str, task: str) -> str:
    return f"{role}\n{MQM_GUIDELINE}\n\n{task}\n\n{SPAN_RULES}"


class _GuidedInputs(dspy.Signature):
    """Shared inputs of the guided assessors (the instruction is each subclass's ``__doc__``)."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()


class GuidedAccuracyAssessment(_GuidedInputs):
    __doc__ = _instruction("You are an accuracy errors detection expert for translations, annotating the quality "
                           "of machine translation.", DIMENSION_TASKS["accuracy"])

    errors: list[AccuracyError] = dspy.OutputField()


class GuidedFluencyAssessment(_GuidedInputs):
    __doc__ = _instruction("You are a fluency errors detection expert for translations, annotating the quality "
                           "of machine translation.", DIMENSION_TASKS["fluency"])

    errors: list[GuidedFluencyError] = dspy.OutputField()


class GuidedStyleAssessment(_GuidedInputs):
    __doc__ = _instruction("You are a style errors detection expert for translations, annotating the quality "
                           "of machine translation.", DIMENSION_TASKS["style"])

    errors: list[GuidedStyleError] = dspy.OutputField()


class GuidedTerminologyAssessment(_GuidedInputs):
    __doc__ = _instruction("You are a terminology errors detection expert for translations, annotating the "
                           "quality of machine translation.", DIMENSION_TASKS["terminology"])

    errors: list[GuidedTerminologyError] = dspy.OutputField()


class GuidedCoupledAssessment(_GuidedInputs):
    __doc__ = _instruction(
        "You are an annotator of all four MQM dimensions of machine translation at once.",
        "\n\n".join(DIMENSION_TASKS[d] for d in ("accuracy", "fluency", "terminology", "style"))
        + "\n\nTag each error with its dimension; tag a non-translation error with dimension accuracy.")

    errors: list[DimensionError] = dspy.OutputField()


GUIDED_ASSESSORS: dict[str, type[dspy.Signature]] = {
    "accuracy": GuidedAccuracyAssessment,
    "fluency": GuidedFluencyAssessment,
    "style": GuidedStyleAssessment,
    "terminology": GuidedTerminologyAssessment,
}
