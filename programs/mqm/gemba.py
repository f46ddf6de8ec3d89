"""The GEMBA-MQM baseline: one coupled prompt with 3 fixed demos, scored by GEMBA's own scheme."""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.roles import RoleLMs, ainvoke, invoke
from tribunal.programs.mqm.scoring import gemba_mqm_score
from tribunal.programs.mqm.segment_inputs import segment_aware
from tribunal.signatures.mqm.gemba import GembaMQM


class GembaMQMJudge(dspy.Module):
    def __init__(self, lms: RoleLMs | None = None):
        super().__init__()
        self.lms = lms
        self.annotate = dspy.Predict(GembaMQM)

    @segment_aware  # also takes reference= and context= (SegmentInputs)
    def forward(self, source: str, translation: str, source_lang: str = "", target_lang: str = ""):
        out = invoke(self.lms, "gemba", "gemba", self.annotate, source=source, translation=translation,
                     source_lang=source_lang, target_lang=target_lang)
        return self.judged(out)

    @segment_aware
    async def aforward(self, source: str, translation: str, source_lang: str = "", target_lang: str = ""):
        """:meth:`forward` for the async runner (``mt evaluate --judging async``)."""
        out = await ainvoke(self.lms, "gemba", "gemba", self.annotate, source=source, translation=translation,
                            source_lang=source_lang, target_lang=target_lang)
        return self.judged(out)

    @staticmethod
    def judged(out):
        """The judgment from the annotator's answer."""
        errors = list(out.errors)
        transcript = [{"stage": "gemba", "role": "gemba", "errors": [e.model_dump() for e in errors]}]
        return dspy.Prediction(errors=errors, score=gemba_mqm_score(errors), transcript=transcript, debates={})
