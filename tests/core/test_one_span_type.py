"""One span type: every span tribunal handles (a rater's, a judge's, a measure's) is ``core.spans.Span``."""

import importlib.util
from pathlib import Path

from tribunal.core import rating
from tribunal.core.spans import Span, side_of, span
from tribunal.eval.mt import grounding, outputs
from tribunal.optimizers import mt_metric

ROOT = Path(__file__).resolve().parents[2]


def code_shape():
    spec = importlib.util.spec_from_file_location("code_shape", ROOT / "benchmarks" / "code_shape.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_code_has_one_span_class_and_one_locate():
    shape = code_shape().measure(ROOT)
    assert shape["span classes"] == 1 and shape["detail"]["span classes"][0].startswith("tribunal/core/spans.py:")
    assert [f.split()[-1] for f in shape["detail"]["span functions"]] == ["locate"]
    assert shape["detail"]["span functions"][0].startswith("eval/mt/grounding.py:")


def test_the_old_span_classes_and_locates_are_gone():
    assert not hasattr(rating, "ErrorSpan") and not hasattr(outputs, "PredictedSpan")
    assert mt_metric.Span is Span and outputs.locate is grounding.locate
    assert mt_metric.locate is grounding.locate and not hasattr(mt_metric, "span_f1")


def test_a_rating_error_is_a_span_with_its_category_score_and_side():
    error = Span(0, 3, "major", side_of(True), category="accuracy/mistranslation", score=5.0)
    assert error.is_source_error and error.length == 3 and error.overlap(Span(1, 2, side="source")) == 1
    assert not span(0, 3, " Major ").is_source_error and span(0, 3, " Major ").severity == "major"
    assert error.overlap(Span(0, 3)) == 0  # sides never overlap
