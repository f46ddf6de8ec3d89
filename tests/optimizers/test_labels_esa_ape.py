"""TED MQM labels as typed demos of GEMBA-ESA (spans and score) and MQM-APE (its evaluator), and the
ESA scale in the optimizer metric."""

from __future__ import annotations

import pytest

from tribunal.optimizers.labelled_demos import LabelledFewShot, labeler_for
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.training_data import load_training_data
from tribunal.programs.mqm.ape import APEConfig, MQMAPEJudge
from tribunal.programs.mqm.esa import ESAConfig, GembaESAJudge
from tribunal.signatures.mqm.errors import GembaError
from tribunal.signatures.mqm.esa_spans import ESAError

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
ROWS = [  # item 0: a critical error and a minor one; item 1: clean; item 2: an error without a span
    "A\tt\t1\t1\tr1\tThe red dog barks.\tDer <v>Katze</v> bellt.\tAccuracy/Mistranslation\tCritical\t\n",
    "A\tt\t1\t1\tr1\tThe red dog barks.\tDer Katze <v>bellt</v>.\tStyle/Awkward\tMinor\t\n",
    "B\tt\t1\t1\tr2\tThe red dog barks.\tDer rote Hund bellt.\tNo-error\tNo-error\t\n",
    "D\tt\t1\t1\tr1\tThe red dog barks.\tRoter Hund bellt.\tFluency/Grammar\tMinor\t\n",
]


@pytest.fixture
def ted(tmp_path):
    path = tmp_path / "mqm_ted_ende.tsv"
    path.write_text(HEADER + "".join(ROWS), encoding="utf-8")
    return load_training_data(f"mqm-ted:{path}").examples


def test_esa_span_demo_counts_critical_as_major(ted):
    labels = labeler_for("gemba-esa").labels
    demo = labels["annotate"](ted[0])
    assert demo.errors == [ESAError(span="Katze", category="accuracy", subcategory="mistranslation", severity="major"),
                           ESAError(span="bellt", category="style", subcategory="awkward", severity="minor")]
    assert labels["annotate"](ted[1]).errors == [] and labels["annotate"](ted[2]) is None


def test_esa_score_demo_shows_the_human_spans_and_the_human_score_on_esas_scale(ted):
    rate = labeler_for("gemba-esa").labels["rate"]
    first, clean = rate(ted[0]), rate(ted[1])
    assert ted[0].gold_score == -26  # critical 25 + minor 1
    assert first.score == 0 and [e.span for e in first.errors] == ["Katze", "bellt"]
    assert clean.score == 100 and clean.errors == []
    assert set(first.inputs().keys()) == {"source", "translation", "source_lang", "target_lang"}


def test_labeled_few_shot_fills_esa_and_ape_predictors_with_typed_demos(ted):
    esa = LabelledFewShot(k=2, labeler=labeler_for("gemba-esa")).compile(GembaESAJudge(), trainset=ted)
    assert len(esa.annotate.demos) == 2 and len(esa.rate.demos) == 2
    assert all(isinstance(e, ESAError) for d in esa.annotate.demos for e in d.errors)
    direct = LabelledFewShot(k=2, labeler=labeler_for("gemba-esa")).compile(
        GembaESAJudge(ESAConfig(ablate=("spans",))), trainset=ted)
    assert len(direct.rate.demos) == 2  # the same score demos serve ESA without its span step
    ape = LabelledFewShot(k=2, labeler=labeler_for("mqm-ape")).compile(MQMAPEJudge(APEConfig()), trainset=ted)
    assert len(ape.evaluate.demos) == 2 and all(isinstance(e, GembaError) for d in ape.evaluate.demos for e in d.errors)
    assert ape.post_edit.demos == [] and ape.verify.demos == []


def test_metric_compares_an_esa_score_on_mqms_scale(ted):
    gold = ted[2]  # one minor error without a span: human MQM -1
    metric = MQMMetric(weights={"score": 1.0, "spans": 0.0, "severity": 0.0})
    as_esa = metric.judge(gold, {"score": 96.0, "scale": "esa", "errors": []})
    assert as_esa.score == pytest.approx(1.0)  # 96 on ESA's scale is MQM -1
    assert metric.judge(gold, {"score": 96.0, "errors": []}).score == 0.0  # read as MQM it would be absurd
    assert metric.judge(gold, {"score": 50.0, "scale": "esa", "errors": []}).score == pytest.approx(1 - 11.5 / 25)
    assert metric.judge(gold, {"score": 50.0, "scale": "percent", "errors": []}).scored is False
