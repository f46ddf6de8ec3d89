"""The answer parser builds one pydantic validator per output annotation, not one per answer."""

from __future__ import annotations

from typing import Annotated, Literal

import pydantic
import pytest

from tribunal.programs.answers import adapter


def test_the_validator_of_an_annotation_is_built_once_and_reused():
    adapter._cached_adapter.cache_clear()
    first = adapter._adapter(list[Literal["minor", "major"]])
    again = adapter._adapter(list[Literal["minor", "major"]])
    assert first is again
    assert adapter._cached_adapter.cache_info().hits == 1
    assert again.validate_python(["major"]) == ["major"]
    with pytest.raises(pydantic.ValidationError):
        again.validate_python(["critical"])


def test_an_annotation_that_cannot_be_hashed_is_still_validated():
    annotation = Annotated[list[int], {"not": "hashable"}]
    with pytest.raises(TypeError):
        hash(annotation)
    assert adapter._adapter(annotation).validate_python(["1", 2]) == [1, 2]
