"""The memoised DSPy lookups give exactly what the originals give, as independent copies."""

from __future__ import annotations

from dspy.adapters import utils as adapter_utils
from dspy.clients import model_metadata

from tribunal.programs.dspy_speedups import install, memoise_json_schema, memoise_model_info, reuse_type_adapters
from tribunal.signatures.mqm.errors import DimensionError


def test_model_info_memoised_equals_original_for_known_and_unknown_models():
    fast = memoise_model_info(model_metadata.model_info)
    for provider, model in (("openai", "gpt-4o-mini"), ("openai", "my-vllm-model"), ("anthropic", "nope")):
        assert fast(provider, model) == model_metadata.model_info(provider, model)
    first = fast("openai", "gpt-4o-mini")
    first["mutated"] = True
    assert "mutated" not in fast("openai", "gpt-4o-mini")  # callers get copies


def test_json_schema_memoised_equals_original():
    fast = memoise_json_schema(adapter_utils._get_json_schema)
    annotation = list[DimensionError]
    assert fast(annotation) == adapter_utils._get_json_schema(annotation)
    fast(annotation)["properties"] = None
    assert fast(annotation) == adapter_utils._get_json_schema(annotation)


def test_install_is_idempotent_and_swaps_the_call_sites():
    from dspy.clients import capabilities, costs

    install()
    install()
    assert capabilities.model_info is costs.model_info
    assert capabilities.model_info is not model_metadata.model_info
    assert capabilities.model_info("openai", "x-unknown") == model_metadata.model_info("openai", "x-unknown")


def test_serialisation_with_reused_adapters_equals_original():
    fast = reuse_type_adapters(adapter_utils.serialize_for_json)
    error = DimensionError(span="a word", subcategory="mistranslation", severity="major", dimension="accuracy")
    values = [[error, error], error, {"k": [1, 2]}, "text", 3.5, None, object()]
    for value in values[:-1]:
        assert fast(value) == adapter_utils.serialize_for_json(value)
        assert fast(value) == adapter_utils.serialize_for_json(value)  # second time from the cached adapter
    assert fast(values[-1]).startswith("<object object")
