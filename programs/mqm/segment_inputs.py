"""A judge's optional segment inputs: which reference it sees and how much document context.

:class:`SegmentInputs` is the setting (``--reference NAME|none``, ``--context N``; ``--set
reference=... --set context=...`` in ``tribunal optimize``), shared by every MT program. It changes
the program's structure: :func:`with_segment_inputs` gives every predictor that reads the segment
the extra input fields (:func:`~tribunal.signatures.mqm.segment_context.segment_signature`), so an
export remembers them and loads only into a program built the same way.

At call time a judge's ``forward`` takes ``reference=`` and ``context=`` (:func:`segment_aware`)
and every predictor call of that item receives the ones its signature declares
(:func:`given_to`, used by :func:`~tribunal.programs.mqm.roles.invoke`): the M-MAD agents, debaters,
reviewers and judges, ESA's two steps, APE's evaluator, post-editor and verifier alike. Values
travel in the run context (:mod:`tribunal.core.run_context`), so the nested modules and the concurrent
calls of an item (which run in copies of its context) see them without being rewired.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tribunal.core.run_context import current, reset, setter
from tribunal.signatures.mqm.segment_context import ContextSegment, segment_signature

MAX_CONTEXT = 20
SEGMENT_KEYS = ("reference", "context")

_SET_GIVEN = setter("segment_inputs")


class SegmentInputs(BaseModel):
    """The reference (by the data set's name for it, e.g. ``refA``; None: none) and the context size."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reference: str | None = Field(None, description="the data set's reference shown to the judge, by name "
                                                    "(e.g. refA); none: reference-free, the papers' setting")
    context: int = Field(0, ge=0, le=MAX_CONTEXT, description="previous segments of the same document shown as "
                                                              "context (never judged)")

    @field_validator("reference", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
            return None
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", value.strip()):
            raise ValueError("a reference name (letters, digits and . _ -, e.g. refA) or none")
        return value.strip()

    @property
    def used(self) -> bool:
        return self.reference is not None or self.context > 0

    def name_parts(self) -> list[str]:
        """What the metric name says: ``["ref", "ctx2"]``."""
        return (["ref"] if self.reference else []) + ([f"ctx{self.context}"] if self.context else [])

    def settings(self) -> dict[str, Any]:
        """The non-default values (an export's config keeps these)."""
        return self.model_dump(exclude_defaults=True)


def segment_inputs_of(config: dict[str, Any]) -> SegmentInputs:
    """The segment inputs recorded in a program's JSON config (an export's ``program.config``)."""
    return SegmentInputs(**{k: config[k] for k in SEGMENT_KEYS if k in config})


def with_segment_inputs(program: Any, inputs: SegmentInputs | None) -> Any:
    """``program`` with every segment-reading predictor's signature extended as ``inputs`` asks (in place)."""
    if inputs is None or not inputs.used:
        return program
    for _, predictor in program.named_predictors():
        predictor.signature = segment_signature(predictor.signature, inputs.reference is not None, inputs.context > 0)
    return program


def segment_aware(forward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a judge's ``forward`` (or ``async`` ``aforward``) so it takes ``reference=`` and ``context=``
    for its predictor calls."""
    if inspect.iscoroutinefunction(forward):
        @functools.wraps(forward)
        async def ajudged(self: Any, *args: Any, reference: str | None = None, context: Any = None,
                          **kwargs: Any) -> Any:
            token = _SET_GIVEN(_given(reference, context))
            try:
                return await forward(self, *args, **kwargs)
            finally:
                reset(token)

        return ajudged

    @functools.wraps(forward)
    def judged(self: Any, *args: Any, reference: str | None = None, context: Any = None, **kwargs: Any) -> Any:
        token = _SET_GIVEN(_given(reference, context))
        try:
            return forward(self, *args, **kwargs)
        finally:
            reset(token)

    return judged


def _given(reference: str | None, context: Any) -> dict[str, Any]:
    given: dict[str, Any] = {}
    if reference is not None:
        given["reference"] = reference
    if context is not None:
        given["context"] = [c if isinstance(c, ContextSegment) else ContextSegment.model_validate(c) for c in context]
    return given


def given_to(predictor: Any) -> dict[str, Any]:
    """The item's reference and context that ``predictor``'s signature takes (``{}`` for none)."""
    given = current().segment_inputs
    if not given:
        return {}
    fields = predictor.signature.input_fields
    return {name: value for name, value in given.items() if name in fields}
