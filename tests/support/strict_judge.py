"""A judge a researcher adds, with a setting of its own: GEMBA-MQM whose ``strictness=high`` counts every
error twice. Its program and settings model are this file; its registry entry is :data:`STRICT` (added by
:func:`registered`, removed after). ``docs/guides/add-a-judge.md`` lists the files such a judge touches."""

from __future__ import annotations

import contextlib
from typing import Iterator, Literal

from pydantic import ConfigDict, Field

from tribunal.core.judge_settings import JudgeSettings
from tribunal.core.judges import JUDGES, Judge, Settings
from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.scoring import gemba_mqm_score


class StrictSettings(JudgeSettings):
    """The strict judge's settings (config section ``strict``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strictness: Literal["low", "high"] = Field("low", description="high: every error counts twice")


class StrictGembaJudge(GembaMQMJudge):
    """GEMBA-MQM, its score doubled under ``strictness=high``."""

    def __init__(self, config: StrictSettings | None = None, lms: RoleLMs | None = None):
        super().__init__(lms)
        self.config = config or StrictSettings()

    def score_of(self, errors: list) -> float:
        """GEMBA-MQM's score, twice over when strict."""
        score = gemba_mqm_score(errors)
        return 2 * score if self.config.strictness == "high" else score


STRICT = Judge("test-strict-gemba", f"{__name__}:StrictGembaJudge", "mt", "GEMBA-STRICT",
               roles="tribunal.programs.mqm.gemba:ROLES",
               settings=Settings(f"{__name__}:StrictSettings", "strict"), answer_tokens=(("gemba", 512),),
               labels="tribunal.programs.mqm.labels:GEMBA_LABELS")


@contextlib.contextmanager
def registered() -> Iterator[Judge]:
    """The strict judge in the registry for the duration (removed after)."""
    JUDGES.add(STRICT)
    try:
        yield STRICT
    finally:
        JUDGES.remove(STRICT.name)
