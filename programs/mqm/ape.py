"""MQM-APE (Lu et al., COLING 2025): keep only the errors whose automatic post-edit helps.

1. the ``evaluator`` lists MQM errors (GEMBA-MQM's prompt and three fixed demos);
2. for each error, the ``post_editor`` fixes that error alone in the translation;
3. the pairwise ``verifier`` compares the translation (A) with that post-edit (B); the error is
   kept only when B is better, i.e. fixing it improved the translation;
4. the kept errors are scored as MQM: critical 25, major 5, minor 1, capped at 25
   (:func:`~tribunal.programs.mqm.scoring.ape_mqm_score`).

Calls per item: 1 + 2 per error found (a clean translation costs 1). The post-edit and check of
different errors are independent: under a runner's scheduler they run side by side
(a :class:`~tribunal.programs.mqm.plans.Together`); errors keep the evaluator's order either way.

A post-editor or verifier that stays unusable after its re-asks falls back to what the method is
without its filter (:data:`FALLBACK`): that error is kept as the evaluator annotated it (GEMBA-MQM's
verdict on it), and the item is marked degraded; ``strict`` unscores it instead. The evaluator has
no fallback.

Ablation ``ablate=("verifier",)``: APE without the verifier, 1 + 1 per error; an error is kept when
its post-edit changed the translation (the post-editor found something to fix).
"""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import ConfigDict, Field

from tribunal.core.judge_settings import Ablations
from tribunal.core.mt_judgment import judged
from tribunal.programs.answers.unusable import UnusableAnswer
from tribunal.programs.fallbacks import Fallback, stand_in
from tribunal.programs.mqm.plans import Plan, Together, ask
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.scoring import ape_mqm_score
from tribunal.signatures.mqm.errors import GembaError
from tribunal.signatures.mqm.gemba import GembaMQM
from tribunal.signatures.mqm.pairwise_quality import PairwiseQuality
from tribunal.signatures.mqm.post_edit import PostEdit

EVALUATOR = "evaluator"
POST_EDITOR = "post_editor"
VERIFIER = "verifier"
ROLES: tuple[str, ...] = (EVALUATOR, POST_EDITOR, VERIFIER)
"""The roles its calls are made as, declared once (its registry entry reads them from here)."""


FALLBACK = Fallback(("post_editor", "verifier"), "the evaluator's error, kept unverified (MQM-APE without its "
                                                 "post-edit filter, for this error)")


class APEConfig(Ablations):
    """The switches of an MQM-APE program (part of the run's signature)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ablate: tuple[Literal["verifier"], ...] = Field((), description="steps left out: verifier (keep every "
                                                                                  "error the evaluator found)")


class MQMAPEJudge(SegmentJudge):
    """MQM-APE; ``forward`` returns the kept ``errors``, their MQM ``score``, a ``transcript`` and ``degraded``."""

    strict = False  # True: no fallback (set by the runner, --strict)

    def __init__(self, config: APEConfig | None = None, lms: RoleLMs | None = None):
        super().__init__()
        self.config = config = config or APEConfig()
        self.lms = lms
        self.evaluate = dspy.Predict(GembaMQM)
        self.post_edit = dspy.Predict(PostEdit)
        self.verified = "verifier" not in config.ablate
        if self.verified:
            self.verify = dspy.Predict(PairwiseQuality)

    def checking(self, langs: dict, source: str, translation: str, error: GembaError) -> Plan:
        """Post-edit ``error`` away, then decide whether it stays: ``{"error", "post_edit", "kept", ...}``; an
        unusable post-editor or verifier keeps the error (``{"error", "kept": True, "degraded": ...}``). A plan."""
        try:
            edited = (yield ask(self.lms, POST_EDITOR, "post_edit", self.post_edit, source=source,
                                translation=translation, error=error, **langs)).post_edit
            record = {"error": error.model_dump(), "post_edit": edited}
            if not self.verified:
                return record | {"kept": edited.strip() != translation.strip()}
            better = (yield ask(self.lms, VERIFIER, "verify", self.verify, source=source, translation_a=translation,
                                translation_b=edited, **langs)).better
            return record | {"better": better, "kept": better == "B"}
        except UnusableAnswer as err:
            fallback = stand_in(FALLBACK, err, self.strict, error.span)
            return {"error": error.model_dump(), "kept": True, "degraded": fallback.as_dict()}

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The evaluator's errors, then each one's post-edit and check (side by side), the kept ones scored."""
        langs = dict(source_lang=source_lang, target_lang=target_lang)
        found = list((yield ask(self.lms, EVALUATOR, "evaluate", self.evaluate, source=source,
                                translation=translation, **langs)).errors)
        transcript: list[dict] = [{"stage": "evaluate", "role": "evaluator", "errors": [e.model_dump() for e in found]}]
        checks = yield Together([self.checking(langs, source, translation, e) for e in found])
        transcript += [{"stage": "verify" if self.verified else "post_edit", **check} for check in checks]
        kept = [error for error, check in zip(found, checks) if check["kept"]]
        degraded = [check["degraded"] for check in checks if "degraded" in check]
        return judged(ape_mqm_score(kept), kept, transcript, degraded)
