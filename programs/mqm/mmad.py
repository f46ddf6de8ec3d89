"""M-MAD (Feng et al., ACL 2025): dimension agents, a debate per dimension, a final judge.

Stage switches give the paper's ablations: without stage 1 one coupled MQM template replaces the
four agents; without stage 2 the stage-1 verdicts go straight to the judge; without stage 3 the
debated verdicts are concatenated. Cost rules (each a documented switch):
- a dimension with nothing to debate costs no debate calls;
- consensus is read from the debaters' typed answers (``consensus_check="inline"``);
- ``opening="stage1"``: the stage-1 agent's rationale is the defender's first turn, so round 1
  costs one call (the opposer's); ``opening="debater"`` spends a defender call on it;
- ``judge_policy="if-errors"``: when no dimension has an error left, the final judge is skipped
  and the score is 0 (the judge only removes errors, so it could not change that verdict).

The four stage-1 agents are independent, and so are the debates of different dimensions: under a
runner's scheduler with an executor each group runs concurrently
(:func:`tribunal.programs.mqm.scheduling.fan_out`); results and transcript keep ``DIMENSIONS``
order either way, and without a scheduler the calls run one after another, as listed.
"""

from __future__ import annotations

import functools
from typing import Literal

import dspy
from pydantic import BaseModel, ConfigDict, Field

from tribunal.programs.mqm.debate import DebateCase, make_strategy
from tribunal.programs.mqm.roles import RoleLMs, invoke
from tribunal.programs.mqm.scheduling import fan_out
from tribunal.programs.mqm.scoring import wmt_mqm_score
from tribunal.signatures.mqm.coupled import CoupledAssessment
from tribunal.signatures.mqm.debater import TOPICS
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.errors import DIMENSIONS, DimensionError, tag
from tribunal.signatures.mqm.final_judge import FinalJudgment

Stage = Literal["stage1", "stage2", "stage3"]


class MMADConfig(BaseModel):
    """Every switch of an M-MAD program (part of the run's signature)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strategy: str = "consensus"
    rounds: int = Field(3, ge=1, le=10)
    topic: Literal["severity", "category", "free"] = "severity"
    ablate: tuple[Stage, ...] = ()
    opening: Literal["stage1", "debater"] = "stage1"
    consensus_check: Literal["inline", "separate"] = "inline"
    judge_policy: Literal["if-errors", "always"] = "if-errors"


def _as_dimension(errors: list[DimensionError], dimension: str) -> list[DimensionError]:
    return [e.model_copy(update={"dimension": dimension}) for e in errors]


class MMAD(dspy.Module):
    """The M-MAD judge; ``forward`` returns ``errors``, ``score`` and a ``transcript``."""

    def __init__(self, config: MMADConfig | None = None, lms: RoleLMs | None = None):
        super().__init__()
        self.config = config = config or MMADConfig()
        self.lms = lms
        if "stage1" in config.ablate:
            self.coupled = dspy.Predict(CoupledAssessment)
        else:
            for dimension in DIMENSIONS:
                setattr(self, dimension, dspy.Predict(ASSESSORS[dimension]))
        if "stage2" not in config.ablate:
            self.debate = make_strategy(config.strategy, rounds=config.rounds, lms=lms,
                                        separate_check=config.consensus_check == "separate")
        if "stage3" not in config.ablate:
            self.judge = dspy.Predict(FinalJudgment)

    def assess(self, langs: dict, source: str, translation: str, transcript: list) -> tuple[dict, dict]:
        """Stage 1: ``({dimension: errors}, {dimension: rationale})``."""
        found: dict[str, list[DimensionError]] = {}
        rationale: dict[str, str] = {}
        if "stage1" in self.config.ablate:
            out = invoke(self.lms, "coupled", "stage1", self.coupled, source=source, translation=translation, **langs)
            for dimension in DIMENSIONS:
                found[dimension] = [e for e in out.errors if e.dimension == dimension]
                rationale[dimension] = out.rationale
            transcript.append({"stage": "stage1", "role": "coupled", "rationale": out.rationale,
                               "errors": [e.model_dump() for e in out.errors]})
            return found, rationale
        calls = [functools.partial(invoke, self.lms, dimension, "stage1", getattr(self, dimension),
                                   source=source, translation=translation, **langs) for dimension in DIMENSIONS]
        for dimension, out in zip(DIMENSIONS, fan_out(calls)):  # the transcript keeps DIMENSIONS order
            found[dimension] = tag(out.errors, dimension)
            rationale[dimension] = out.rationale
            transcript.append({"stage": "stage1", "role": dimension, "rationale": out.rationale,
                               "errors": [e.model_dump() for e in found[dimension]]})
        return found, rationale

    def forward(self, source: str, translation: str, source_lang: str = "", target_lang: str = ""):
        langs = dict(source_lang=source_lang, target_lang=target_lang)
        transcript: list[dict] = []
        verdicts, rationale = self.assess(langs, source, translation, transcript)
        debates: dict[str, dict] = {}
        if "stage2" not in self.config.ablate:
            cases = [DebateCase(source, translation, dimension, TOPICS[self.config.topic], verdicts[dimension],
                                opening=rationale[dimension] if self.config.opening == "stage1" else None)
                     for dimension in DIMENSIONS if verdicts[dimension]]  # nothing to debate: no call
            outcomes = fan_out([functools.partial(self.debate, case) for case in cases])
            for case, outcome in zip(cases, outcomes):
                dimension = case.dimension
                verdicts[dimension] = _as_dimension(outcome.errors, dimension)
                debates[dimension] = {"rounds": outcome.rounds, "consensus": outcome.consensus,
                                      "decided_by": outcome.decided_by}
                transcript.append({"stage": "stage2", "dimension": dimension, **debates[dimension],
                                   "turns": case.turns})
        merged = [e for dimension in DIMENSIONS for e in verdicts[dimension]]
        if "stage3" in self.config.ablate:
            final = merged
        elif not merged and self.config.judge_policy == "if-errors":
            final = []
            transcript.append({"stage": "stage3", "role": "judge", "skipped": "no errors left to judge"})
        else:
            out = invoke(self.lms, "judge", "stage3", self.judge, source=source, translation=translation,
                         verdicts=merged, **langs)
            final = list(out.errors)
            transcript.append({"stage": "stage3", "role": "judge", "errors": [e.model_dump() for e in final]})
        return dspy.Prediction(errors=final, score=wmt_mqm_score(final), transcript=transcript, debates=debates)
