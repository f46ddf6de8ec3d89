"""M-MAD (Feng et al., ACL 2025): dimension agents, a debate per dimension, a final judge.

``MMADConfig.preset`` picks the protocol (:mod:`tribunal.programs.mqm.presets`):
- ``paper`` (default) reproduces the published code: stage-1 agents under one shared MQM guideline;
  only dimensions with a major error or non-translation are debated; the opposer opens with the
  stage-1 annotations downgraded to minor; both debaters re-examine with the minor-leaning guidance;
  a separate yes/no consensus check after each round; the final judge keeps the most severe error
  per span (accuracy > fluency > terminology > style on ties) and may declare non-translation.
- ``lean`` is tribunal's cost-saving variant: every dimension with an error is debated by free
  stance debaters, consensus is read from their typed answers, the stage-1 rationale is the
  defender's opening (round 1 costs one call), and the judge is skipped when no error is left.

Stage switches give the paper's ablations: without stage 1 one coupled MQM template replaces the
four agents; without stage 2 the stage-1 verdicts go straight to the judge; without stage 3 the
debated verdicts are concatenated. A dimension with nothing to debate costs no debate call.

A role that stays unusable after its re-asks falls back to what the method itself defines
(:data:`FALLBACKS`, :mod:`tribunal.programs.fallbacks`): a failed debate leaves its dimension with the
stage-1 annotation (the paper's stage-2 ablation, for that dimension), and a failed final judge leaves the
debated verdicts merged by the most-severe rule the paper's judge applies (stage-3 ablation plus its
merge rule). The item stays scored, marked degraded; ``strict`` (``--strict``) unscores it instead. A
stage-1 agent has no fallback: without its annotation there is nothing of the method left to score.

The four stage-1 agents are independent, and so are the debates of different dimensions: under a
runner's scheduler with an executor each group runs concurrently
(:func:`tribunal.core.scheduling.fan_out`); results and transcript keep ``DIMENSIONS``
order either way, and without a scheduler the calls run one after another, as listed.
"""

from __future__ import annotations

import dspy

from tribunal.core.mt_judgment import judged
from tribunal.programs.answers.unusable import UnusableAnswer
from tribunal.programs.fallbacks import Degradation, Fallback, stand_in
from tribunal.programs.mqm.debate import DebateCase, DebateOutcome
from tribunal.programs.mqm.debate_strategies import make_strategy
from tribunal.programs.mqm.merging import merge_most_severe
from tribunal.programs.mqm.minor_leaning import worth_debating
from tribunal.programs.mqm.mmad_roles import CONSENSUS, COUPLED, DEBATE_JUDGE, DEFENDER, JUDGE, OPPOSER, REVIEWER
from tribunal.programs.mqm.mmad_settings import MMADConfig
from tribunal.programs.mqm.plans import Plan, Sub, Together, ask, run
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs, concerning
from tribunal.programs.mqm.scoring import wmt_mqm_score
from tribunal.signatures.mqm.coupled import CoupledAssessment
from tribunal.signatures.mqm.debater import TOPICS
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.errors import DIMENSIONS, DimensionError, tag
from tribunal.signatures.mqm.final_judge import FinalJudgment
from tribunal.signatures.mqm.guided_dimensions import GUIDED_ASSESSORS, GuidedCoupledAssessment
from tribunal.signatures.mqm.merging_judge import MergingJudgment


# What stands in for a role that stays unusable after its re-asks, per stage (stage 1 has no fallback).
FALLBACKS: dict[str, Fallback] = {
    "stage2": Fallback((DEFENDER, OPPOSER, CONSENSUS, REVIEWER, DEBATE_JUDGE),
                       "the dimension's stage-1 annotation (M-MAD without stage 2, for this dimension)"),
    "stage3": Fallback((JUDGE,), "the dimension verdicts merged by the most-severe rule (one error per span, "
                                   "accuracy > fluency > terminology > style; M-MAD without its stage-3 judge)"),
}


def _as_dimension(errors: list[DimensionError], dimension: str) -> list[DimensionError]:
    return [e.model_copy(update={"dimension": dimension}) for e in errors]


class MMAD(SegmentJudge):
    """The M-MAD judge; ``forward`` returns its judgment (:func:`~tribunal.core.mt_judgment.judged`): ``errors``,
    ``score``, a ``transcript`` (each debate a ``stage2`` step with its rounds, consensus and how it was decided)
    and ``degraded`` (the fallbacks taken, as dicts of :class:`~tribunal.programs.fallbacks.Degradation`)."""

    strict = False  # True: no fallback, an unusable role unscores the item (set by the runner, --strict)

    def __init__(self, config: MMADConfig | None = None, lms: RoleLMs | None = None):
        super().__init__()
        self.config = config = config or MMADConfig()
        self.lms = lms
        guided = config.assessors == "guideline"
        if "stage1" in config.ablate:
            self.coupled = dspy.Predict(GuidedCoupledAssessment if guided else CoupledAssessment)
        else:
            for dimension in DIMENSIONS:
                setattr(self, dimension, dspy.Predict((GUIDED_ASSESSORS if guided else ASSESSORS)[dimension]))
        if "stage2" not in config.ablate:
            self.debate = make_strategy(config.strategy, rounds=config.rounds, lms=lms, debaters=config.debaters,
                                        separate_check=config.consensus_check == "separate")
        if "stage3" not in config.ablate:
            self.judge = dspy.Predict(MergingJudgment if config.judge == "most-severe" else FinalJudgment)

    def assess(self, langs: dict, source: str, translation: str, transcript: list) -> tuple[dict, dict]:
        """Stage 1: ``({dimension: errors}, {dimension: rationale})`` (rationale "" for guided agents)."""
        return run(self.assessing(langs, source, translation, transcript))

    def assessing(self, langs: dict, source: str, translation: str, transcript: list) -> Plan:
        """:meth:`assess` as a plan (:mod:`tribunal.programs.mqm.plans`)."""
        found: dict[str, list[DimensionError]] = {}
        rationale: dict[str, str] = {}
        if "stage1" in self.config.ablate:
            out = yield ask(self.lms, COUPLED, "stage1", self.coupled, source=source, translation=translation, **langs)
            reason = getattr(out, "rationale", "") or ""
            for dimension in DIMENSIONS:
                found[dimension] = [e for e in out.errors if e.dimension == dimension]
                rationale[dimension] = reason
            transcript.append({"stage": "stage1", "role": COUPLED, "rationale": reason,
                               "errors": [e.model_dump() for e in out.errors]})
            return found, rationale
        outs = yield Together([ask(self.lms, dimension, "stage1", getattr(self, dimension), source=source,
                                   translation=translation, **langs) for dimension in DIMENSIONS])
        for dimension, out in zip(DIMENSIONS, outs):  # the transcript keeps DIMENSIONS order
            found[dimension] = tag(out.errors, dimension)
            rationale[dimension] = getattr(out, "rationale", "") or ""
            transcript.append({"stage": "stage1", "role": dimension, "rationale": rationale[dimension],
                               "errors": [e.model_dump() for e in found[dimension]]})
        return found, rationale

    def argue(self, case: DebateCase) -> tuple[DebateOutcome | None, Degradation | None]:
        """Stage 2 for one dimension: the debate's outcome, or its fallback when a debater stays unusable."""
        return run(self.arguing(case))

    def arguing(self, case: DebateCase) -> Plan:
        """:meth:`argue` as a plan: the debate strategy called as a sub-module, about the dimension."""
        try:
            with concerning(case.dimension):
                return (yield Sub(self.debate, (case,))), None
        except UnusableAnswer as err:
            return None, stand_in(FALLBACKS["stage2"], err, self.strict, case.dimension)

    def debated(self, errors: list[DimensionError]) -> bool:
        """Whether a dimension's stage-1 errors go to debate (``MMADConfig.debated``)."""
        return worth_debating(errors) if self.config.debated == "major" else bool(errors)

    def final_judgment(self, langs: dict, source: str, translation: str, verdicts: dict) -> tuple[list, dict]:
        """Stage 3: ``(final errors, transcript entry)``."""
        return run(self.judging(langs, source, translation, verdicts))

    def judging(self, langs: dict, source: str, translation: str, verdicts: dict) -> Plan:
        """:meth:`final_judgment` as a plan."""
        if self.config.judge == "most-fitting":
            merged = [e for dimension in DIMENSIONS for e in verdicts[dimension]]
            out = yield ask(self.lms, JUDGE, "stage3", self.judge, source=source, translation=translation,
                            verdicts=merged, **langs)
            return list(out.errors), {}
        out = yield ask(self.lms, JUDGE, "stage3", self.judge, source=source, translation=translation,
                        **{f"{d}_annotations": verdicts[d] for d in DIMENSIONS}, **langs)
        final = merge_most_severe(list(out.errors), translation)
        return final, {"analysis": out.analysis, "answered": [e.model_dump() for e in out.errors]}

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The whole judgment as a plan: stage 1, the debates (side by side), the final judge."""
        langs = dict(source_lang=source_lang, target_lang=target_lang)
        transcript: list[dict] = []
        verdicts, rationale = yield from self.assessing(langs, source, translation, transcript)
        found = any(verdicts[d] for d in DIMENSIONS)
        degraded: list[Degradation] = []
        if "stage2" not in self.config.ablate:
            cases = [DebateCase(source, translation, dimension, TOPICS[self.config.topic], verdicts[dimension],
                                opening=rationale[dimension] if self.config.opening == "stage1" else None, **langs)
                     for dimension in DIMENSIONS if self.debated(verdicts[dimension])]  # no debate: no call
            outcomes = yield Together([self.arguing(case) for case in cases])
            self.record_debates(cases, outcomes, verdicts, degraded, transcript)
        merged = [e for dimension in DIMENSIONS for e in verdicts[dimension]]
        policy = self.config.judge_policy
        if "stage3" in self.config.ablate:
            final = merged
        elif (policy == "if-errors" and not merged) or (policy == "if-stage1-errors" and not found):
            final = []
            reason = "no errors left to judge" if policy == "if-errors" else "stage 1 found no error"
            transcript.append({"stage": "stage3", "role": JUDGE, "skipped": reason})
        else:
            try:
                final, extra = yield from self.judging(langs, source, translation, verdicts)
            except UnusableAnswer as err:
                fallback = stand_in(FALLBACKS["stage3"], err, self.strict)
                degraded.append(fallback)
                final, extra = merge_most_severe(merged, translation), {"degraded": fallback.as_dict()}
            transcript.append({"stage": "stage3", "role": JUDGE, **extra,
                               "errors": [e.model_dump() for e in final]})
        return judged(wmt_mqm_score(final), final, transcript, [d.as_dict() for d in degraded])

    @staticmethod
    def record_debates(cases: list, outcomes: list, verdicts: dict, degraded: list, transcript: list) -> None:
        """Each debate's outcome into the verdicts and the transcript (a ``stage2`` step: rounds, consensus,
        decided_by, turns), or its fallback into ``degraded``."""
        for case, (outcome, fallback) in zip(cases, outcomes):
            dimension = case.dimension
            if fallback is not None:  # the stage-1 verdict stands for this dimension
                degraded.append(fallback)
                transcript.append({"stage": "stage2", "dimension": dimension,
                                   "rounds": max((t["round"] for t in case.turns), default=0),
                                   "consensus": None, "decided_by": "fallback",
                                   "turns": case.turns, "degraded": fallback.as_dict()})
                continue
            verdicts[dimension] = _as_dimension(outcome.errors, dimension)
            transcript.append({"stage": "stage2", "dimension": dimension, "rounds": outcome.rounds,
                               "consensus": outcome.consensus, "decided_by": outcome.decided_by, "turns": case.turns})
