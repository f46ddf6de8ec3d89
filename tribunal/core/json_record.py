"""A JSON record with typed fields that writes back exactly what it was given: the base of the journal's parts.

The parts of a journal line (an error, a transcript step, a call of a trace, the usage counts) were written as
plain JSON objects before they had types, and their readers (score files, span files, transcripts, the run
page, MLflow traces) read those objects. A :class:`JsonRecord` declares the fields tribunal reads, typed, and
keeps any other key of its object as typed JSON (:data:`pydantic.JsonValue`, never ``Any``). Dumped, it gives
back the keys it was given, in the order given, and no default it filled in: so a line read from an old
journal and written again is the same line, and an object built in code dumps as the dict it replaced.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, JsonValue, PrivateAttr, SerializerFunctionWrapHandler, \
    ValidatorFunctionWrapHandler, model_serializer, model_validator


class JsonRecord(BaseModel):
    """Typed fields over a JSON object; other keys kept as JSON; dumped as given (see the module docstring)."""

    model_config = ConfigDict(extra="allow")

    __pydantic_extra__: dict[str, JsonValue]
    _given: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_keys(cls, data: object, handler: ValidatorFunctionWrapHandler) -> Self:
        """Validate, keeping the order of the keys given (a record validated from a record keeps its own)."""
        record = handler(data)
        if type(data) is dict:  # JSON keys are strings (a record's own keys validate as such, or fail)
            record.__pydantic_private__["_given"] = tuple(data)
        elif isinstance(data, JsonRecord) and record is not data:
            record.__pydantic_private__["_given"] = data._given
        return record

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """The keys given, in their order (then any field set since, in field order); the values are dumped
        already (``object``: not dumped again)."""
        dumped = handler(self)
        given = (self.__pydantic_private__ or {}).get("_given", ())  # none when made by model_construct
        fields_set, extra = self.__pydantic_fields_set__, self.__pydantic_extra__ or {}
        out = {k: dumped[k] for k in given if k in dumped}
        if len(out) < len(fields_set) + len(extra):  # a field set since it was given (or never validated)
            out.update((k, v) for k, v in dumped.items() if k not in out and (k in fields_set or k in extra))
        return out
