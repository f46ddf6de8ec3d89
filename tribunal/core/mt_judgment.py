"""What an MT judge's program returns for one translation: its score, its errors and the steps that led there.

Every MT program (``tribunal.programs.mqm``) returns a ``dspy.Prediction`` carrying ``score``, ``errors``
(typed errors of its signatures), ``transcript`` (a list of steps) and, when it took fallbacks or sampled an
ensemble, ``degraded`` and ``ensemble``; a joint judge returns one such judgment per candidate
(``judgments``). The runner takes a prediction in one place (:func:`judgment_of`) and validates it into a
:class:`MTJudgment`: a program returning something malformed raises :class:`MalformedJudgment`, which leaves
the item unscored with its reason, instead of failing later in a writer.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from tribunal.core.degraded_role import DegradedRole
from tribunal.core.ensemble_record import EnsembleRecord
from tribunal.core.judged_error import JudgedError
from tribunal.core.judgment_step import Step, debate_summaries

FIELDS = ("score", "errors", "transcript", "degraded", "ensemble")
"""What a judgment carries; anything else on the prediction (``scale``, M-MAD's ``debates``) stays the program's."""


class MalformedJudgment(ValueError):
    """A program's result is not a judgment (a missing score, an error of the wrong shape...)."""


class MTJudgment(BaseModel):
    """One judge's judgment of one translation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    score: float
    errors: list[JudgedError] = []
    transcript: list[Step] = []
    degraded: list[DegradedRole] = []
    """Fallbacks taken (scored, but degraded): empty for a judgment every role answered."""
    ensemble: EnsembleRecord | None = None
    """A sampled ensemble's record of its K judgments (None: one judgment)."""

    @property
    def debates(self) -> dict[str, dict[str, JsonValue]]:
        """The debates' summaries read off the steps (:func:`~tribunal.core.judgment_step.debate_summaries`)."""
        return debate_summaries(self.transcript, self.ensemble.chosen if self.ensemble else None)


def _plain(value: object) -> object:
    """``value`` with typed errors (pydantic models) as their dumps, lists as lists."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _field(prediction: object, name: str) -> object:
    """``prediction``'s ``name`` (a ``dspy.Prediction``'s field, a mapping's key, an attribute), None if it has none."""
    if isinstance(prediction, dict):
        return prediction.get(name)
    try:
        return getattr(prediction, name)
    except AttributeError:
        return None


def judgment_of(prediction: object) -> MTJudgment:
    """The :class:`MTJudgment` ``prediction`` carries; :class:`MalformedJudgment` (one line) if it carries none."""
    if isinstance(prediction, MTJudgment):
        return prediction
    values = {name: _plain(_field(prediction, name)) for name in FIELDS}
    values = {k: v for k, v in values.items() if v is not None and (k == "score" or v not in ({}, []))}
    try:
        return MTJudgment.model_validate(values)
    except ValidationError as err:
        problem = err.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "judgment"
        raise MalformedJudgment(f"{type(prediction).__name__} is not a judgment: {where}: {problem['msg']} "
                                f"({err.error_count()} problem{'s' if err.error_count() > 1 else ''})") from None


def judgments_of(prediction: object, count: int) -> list[MTJudgment]:
    """A joint judge's ``judgments``, one per candidate of its ``count``; :class:`MalformedJudgment` otherwise."""
    judgments = _field(prediction, "judgments")
    if not isinstance(judgments, (list, tuple)) or len(judgments) != count:
        found = f"{len(judgments)} judgments" if isinstance(judgments, (list, tuple)) else "no list of judgments"
        raise MalformedJudgment(f"{type(prediction).__name__}: {found} for {count} candidates")
    return [judgment_of(judgment) for judgment in judgments]
