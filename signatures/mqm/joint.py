"""Joint MQM judging: every candidate translation of one source segment in one prompt (WMT25 Nvidia-Nemo's idea;
WMT26's gold ESA is collected contrastively, candidates side by side)."""

from __future__ import annotations

import dspy
from pydantic import BaseModel, ConfigDict, Field

from tribunal.signatures.mqm.errors import GembaError


class Candidate(BaseModel):
    """One candidate translation as the judge is shown it: a label and the text."""

    model_config = ConfigDict(extra="forbid")

    label: str = Field(description="the candidate's label, e.g. A")
    translation: str


class CandidateJudgment(BaseModel):
    """The judge's annotation of one candidate: its label and its MQM errors."""

    model_config = ConfigDict(extra="forbid")

    candidate: str = Field(description="the label of the candidate judged")
    errors: list[GembaError] = Field(description="its errors; an empty list for a perfect translation")


class JointMQM(dspy.Signature):
    """You are an annotator for the quality of machine translation. You are shown one source segment and
    several candidate translations of it, each with a label. Compare them side by side, then annotate every
    candidate on its own merits: identify its errors and classify them. The categories of errors are:
    accuracy (addition, mistranslation, omission, untranslated text), fluency (character encoding, grammar,
    inconsistency, punctuation, register, spelling), style (awkward), terminology (inappropriate for context,
    inconsistent use), non-translation, other. Each error is one of three severities: critical (inhibits
    comprehension), major (disrupts the flow, but the meaning is understandable), minor (technically an error,
    but does not disrupt the flow). Give spans as exact substrings of that candidate's translation. Return
    exactly one judgment per candidate, naming its label; an empty error list for a perfect translation.
    The order in which the candidates are listed says nothing about their quality."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    candidates: list[Candidate] = dspy.InputField()
    judgments: list[CandidateJudgment] = dspy.OutputField()
