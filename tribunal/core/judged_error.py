"""One error a judge marked, as the run records it: the common shape of every MT judge's typed errors.

The signatures' error types (``MQMError`` and its dimension-narrowed kinds, M-MAD's ``DimensionError``,
GEMBA's ``GembaError``, ESA's ``ESAError``) live in the signatures layer, above this one; what a run keeps of
them is their dump, and this type reads every one of them: ``span``, ``severity``, ``is_source_error``, the
``subcategory``, and ``category`` (GEMBA, ESA) or ``dimension`` (M-MAD) when the judge gives it. Dumped, it
gives back the keys of the error it was made from (:class:`~tribunal.core.json_record.JsonRecord`).
"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from tribunal.core.json_record import JsonRecord


class JudgedError(JsonRecord):
    """One error of a judgment (an error span quoted by the judge, not yet located by offsets)."""

    model_config = ConfigDict(extra="forbid")

    span: str = Field(description="exact substring of the translation (of the source if is_source_error)")
    category: str | None = None
    subcategory: str = ""
    severity: str
    is_source_error: bool = False
    dimension: str | None = None
