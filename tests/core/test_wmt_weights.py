"""The one WMT MQM weighting: each rule, each non-translation spelling, the three scores that use it, and
the published scores it reproduces on the real files (WMT23's rating files, TED MQM's annotations)."""

from __future__ import annotations

import math
from collections import defaultdict

import pytest

from tests.conftest import shared_data
from tribunal.data.multi_ratings import error_weight
from tribunal.core.spans import Span
from tribunal.data.ratings import read_ratings
from tribunal.optimizers.example_inputs import human_mqm_score
from tribunal.programs.mqm.scoring import wmt_mqm_score
from tribunal.core.wmt_weights import wmt_weight
from tribunal.signatures.mqm.errors import DimensionError

SAMPLE_EVERY = 7  # every 7th rated cell of each file: a few thousand cells, a second or two


@pytest.mark.parametrize("spelling", ["Non-translation!", "non-translation", "Non-translation", "NON-TRANSLATION",
                                      "accuracy/non-translation", "Accuracy/Non-translation", " non-translation! "])
@pytest.mark.parametrize("severity", ["minor", "major", "critical", "neutral"])
def test_every_spelling_of_non_translation_weighs_25(spelling, severity):
    assert wmt_weight(spelling, severity) == 25.0


@pytest.mark.parametrize("category, severity, weight", [
    ("accuracy/mistranslation", "major", 5.0), ("accuracy/mistranslation", "minor", 1.0),
    ("Fluency/Punctuation", "minor", 0.1), ("fluency/punctuation", "major", 5.0),
    ("style/awkward", "neutral", 0.0), ("other", "critical", 25.0),
    ("source issue", "major", 0.0), ("Source issue", "minor", 0.0),  # WMT23: an error of the source
    ("accuracy/creative reinterpretation", "major", 0.0),  # WMT23: a liberty, not an error
    ("Source error", "major", 5.0),  # TED MQM's category: counted (its published scores say so)
])
def test_the_other_weights(category, severity, weight):
    assert wmt_weight(category, severity) == pytest.approx(weight)


@pytest.mark.parametrize("dimension, subcategory, severity", [
    ("accuracy", "non-translation", "major"), ("fluency", "non-translation", "minor"),
    ("fluency", "punctuation", "minor"), ("fluency", "punctuation", "major"), ("style", "awkward", "minor"),
    ("terminology", "inappropriate for context", "major"),
])
def test_the_three_scores_weigh_an_error_alike(dimension, subcategory, severity):
    category = f"{dimension}/{subcategory}"
    judge = wmt_mqm_score([DimensionError(dimension=dimension, span="x", subcategory=subcategory, severity=severity)])
    human = human_mqm_score([{"category": category, "severity": severity}])
    rated = -error_weight(Span(0, 1, severity, category=category))
    assert judge == human == rated == -wmt_weight(category, severity)


def _published(path) -> dict[tuple[str, int], float]:
    scores, seen = {}, defaultdict(int)
    for line in path.read_text(encoding="utf-8").splitlines():
        system, _, value = line.partition("\t")
        if value != "None":
            scores[(system, seen[system])] = float(value)
        seen[system] += 1
    return scores


@pytest.mark.parametrize("lp", ["en-de", "zh-en"])
def test_the_rule_reproduces_wmt23s_published_segment_scores(wmt23_root, lp):
    """From categories and severities alone (each error's own ``score`` ignored); a cell rated by several
    raters is published as their mean."""
    folder = wmt23_root / "human-scores"
    published = _published(folder / f"{lp}.mqm.seg.score")
    cells: dict[tuple[str, int], list[float]] = defaultdict(list)
    given: dict[tuple[str, int], list[float]] = defaultdict(list)
    for path in sorted(folder.glob(f"{lp}.mqm.*.seg.rating")):
        for system, block in read_ratings(path).items():
            for segment, rating in enumerate(block):
                if rating is not None and segment % SAMPLE_EVERY == 0:
                    cells[(system, segment)].append(-sum(wmt_weight(e.category, e.severity) for e in rating))
                    given[(system, segment)].append(-sum(error_weight(e) for e in rating))
    assert len(cells) > 500
    for key, scores in cells.items():
        assert sum(scores) / len(scores) == pytest.approx(published[key], abs=1e-9), key
        assert sum(given[key]) / len(given[key]) == pytest.approx(published[key], abs=1e-9), key


@pytest.mark.parametrize("lp", ["ende", "zhen"])
def test_the_training_score_reproduces_ted_mqms_averaged_scores(lp):
    from tribunal.data.mqm_tsv import annotated_segments, read_mqm_tsv

    folder = shared_data() / "mqm-ted"
    if not folder.is_dir():
        pytest.skip(f"TED MQM data not found at {folder}; set TRIBUNAL_DATA")
    published = {}
    for line in (folder / f"mqm_ted_{lp}.avg_seg_scores.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        system, rest = line.split("\t")
        value, segment = rest.split(" ")
        if value != "None":
            published[(system, int(segment))] = float(value)
    cells: dict[tuple[str, int], list[float]] = defaultdict(list)
    for segment in annotated_segments(read_mqm_tsv(folder / f"mqm_ted_{lp}.tsv")):
        if segment.seg_id % SAMPLE_EVERY == 0:
            errors = [{"category": e.category, "severity": e.severity} for e in segment.errors]
            cells[(segment.system, segment.seg_id)].append(human_mqm_score(errors))
    compared = [key for key in cells if key in published]
    assert len(compared) > 500
    for key in compared:
        mean = sum(cells[key]) / len(cells[key])
        assert math.isclose(mean, published[key], abs_tol=1e-5), key
