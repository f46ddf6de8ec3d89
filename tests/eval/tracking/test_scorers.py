"""tribunal's judges inside ``mlflow.genai.evaluate``: assessments per row, agreement on the run."""

from __future__ import annotations

import math
import uuid

import mlflow

from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.data.mtme import LanguagePair
from tribunal.scorers import EquivalenceJudge, MQMJudge, log_agreement


def five_rows() -> list[dict]:
    pair = LanguagePair(wmt23(), "zh-en")
    gold = pair.gold_seg["Lan-BridgeMT"]
    rated = [i for i in range(pair.n_segments) if not math.isnan(gold[i])][:5]
    outputs = pair.system_output("Lan-BridgeMT")
    return [{"inputs": {"source": pair.sources[i], "source_lang": "Chinese", "target_lang": "English"},
             "outputs": outputs[i], "expectations": {"human_mqm": float(gold[i])}} for i in rated]


def test_evaluate_with_a_tribunal_scorer_returns_assessments(tmp_path, monkeypatch, store_uri):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    mlflow.set_tracking_uri(store_uri)
    mlflow.set_experiment(f"scorers-{uuid.uuid4().hex[:8]}")
    with loopback_server(synthetic_judge) as (api_base, state):
        judge = MQMJudge(program="gemba-mqm", lm="openai/loopback-judge", api_base=api_base, api_key_env=KEY_ENV, cache=False)
        result = mlflow.genai.evaluate(data=five_rows(), scorers=[judge])
    assert len(state.hits) == 5
    assert len(result.result_df) == 5
    for trace_id in result.result_df["trace_id"]:
        trace = mlflow.get_trace(trace_id)
        assert trace.info.request_metadata["mlflow.sourceRun"] == result.run_id
        kinds = {a.name: a for a in trace.info.assessments}
        assert isinstance(kinds["gemba_mqm_mqm"].value, float) and kinds["gemba_mqm_mqm"].value <= 0
        assert "human_mqm" in kinds
    agreement = log_agreement(result, judge="gemba_mqm_mqm", human="human_mqm")
    metrics = mlflow.get_run(result.run_id).data.metrics
    assert agreement.both == 5 and metrics["gemba_mqm_mqm.vs_human.both_labelled"] == 5
    assert "gemba_mqm_mqm.vs_human.kappa" in metrics


def test_equivalence_scorer_judges_pairs_offline(tmp_path):
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path}/mlflow.db")
    mlflow.set_experiment("equivalence")
    text = "Statement: X raises Y. Causal chain: X -[raises]-> Y -[causes]-> Z."
    data = [{"inputs": {"hypothesis_a": text, "hypothesis_b": text}, "expectations": {"verdict": "same"}},
            {"inputs": {"hypothesis_a": text, "hypothesis_b": "Statement: a quantum dot emits light."},
             "expectations": {"verdict": "different"}}]
    result = mlflow.genai.evaluate(data=data, scorers=[EquivalenceJudge(rule="tfidf")])
    values = sorted(result.result_df["equivalence_tfidf/value"])
    assert values == ["different", "same"]
    assert log_agreement(result, judge="equivalence_tfidf", human="verdict", kind="verdict").accuracy == 1.0
