"""What an MT judge's program returns for one translation: its score, its errors and the steps that led there.

Every MT program (``tribunal.programs.mqm``) builds its result with :func:`judged`, which validates it as an
:class:`MTJudgment` where the program returns it (a malformed one raises :class:`MalformedJudgment` there) and
gives it as a ``dspy.Prediction`` (DSPy attaches its usage tracking to a ``Prediction``) carrying the
judgment's typed fields; a joint judge returns one such judgment per candidate (``judgments``). Whoever reads
a program's result (the runner, the scorer, the optimizers' metrics) reads it in one way,
:meth:`MTJudgment.of`: a result that is not a judgment raises :class:`MalformedJudgment`, which leaves the
item unscored with its reason, never zero, instead of failing later in a writer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from tribunal.core.degraded_role import DegradedRole
from tribunal.core.ensemble_record import EnsembleRecord
from tribunal.core.judged_error import JudgedError
from tribunal.core.judgment_step import Step, debate_summaries

if TYPE_CHECKING:
    import dspy

FIELDS = ("score", "errors", "transcript", "degraded", "ensemble", "scale")
"""What a judgment carries; anything else on a prediction is not read."""


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
    scale: str | None = None
    """The score's scale when it is not MQM's (``"esa"``: GEMBA-ESA's 0-100)."""

    @classmethod
    def of(cls, prediction: object) -> MTJudgment:
        """The judgment ``prediction`` carries (:func:`judgment_of`); :class:`MalformedJudgment` if none."""
        return judgment_of(prediction)

    def as_prediction(self) -> dspy.Prediction:
        """This judgment as the ``dspy.Prediction`` a program returns: its typed fields, the empty ones left out."""
        import dspy  # heavy: dspy (the journal's readers import this module without it)

        given = {name: getattr(self, name) for name in FIELDS}
        return dspy.Prediction(**{k: v for k, v in given.items() if k in ("score", "errors", "transcript")
                                  or v not in (None, [])})

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
    return _validated({name: _field(prediction, name) for name in FIELDS}, type(prediction).__name__)


def judged(score: object, errors: object = (), transcript: object = (), degraded: object = (),
           ensemble: object = None, scale: str | None = None) -> dspy.Prediction:
    """What an MT program returns: its parts validated as an :class:`MTJudgment` here, where it returns them
    (:class:`MalformedJudgment` if they are not one), given as a ``dspy.Prediction`` (:meth:`MTJudgment.as_prediction`).
    ``errors`` are its signatures' typed errors (or their dumps), ``transcript`` its steps (dicts or steps)."""
    values = dict(score=score, errors=errors, transcript=transcript, degraded=degraded, ensemble=ensemble,
                  scale=scale)
    return _validated(values, "program result").as_prediction()


def _validated(values: dict[str, object], what: str) -> MTJudgment:
    """``values`` (a judgment's fields, None where absent) as an :class:`MTJudgment`, or :class:`MalformedJudgment`."""
    plain = {name: _plain(value) for name, value in values.items()}
    plain = {k: v for k, v in plain.items() if v is not None and (k == "score" or v not in ({}, []))}
    try:
        return MTJudgment.model_validate(plain)
    except ValidationError as err:
        problem = err.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "judgment"
        raise MalformedJudgment(f"{what} is not a judgment: {where}: {problem['msg']} "
                                f"({err.error_count()} problem{'s' if err.error_count() > 1 else ''})") from None


def judgments_of(prediction: object, count: int) -> list[MTJudgment]:
    """A joint judge's ``judgments``, one per candidate of its ``count``; :class:`MalformedJudgment` otherwise."""
    judgments = _field(prediction, "judgments")
    if not isinstance(judgments, (list, tuple)) or len(judgments) != count:
        found = f"{len(judgments)} judgments" if isinstance(judgments, (list, tuple)) else "no list of judgments"
        raise MalformedJudgment(f"{type(prediction).__name__}: {found} for {count} candidates")
    return [judgment_of(judgment) for judgment in judgments]
