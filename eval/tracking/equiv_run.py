"""An equivalence audit in MLflow: the perturbation suite as a dataset (run input and evaluation
dataset), and per rule a trace per judged pair with the expected verdict and the rule's verdict as
assessments, plus judge-vs-expected agreement (kappa, confusion matrix).

Trace of one pair under the LLM rule::

    equivalence: llm-full           inputs: hypothesis_a, hypothesis_b, kind; outputs: verdict, votes
    ├── vote 1 (ab)                 one predictor call: inputs, typed outputs, tokens, latency
    ├── vote 2 (ba)
    └── vote 3 (ab)                 only when the first two disagree

Similarity rules judge the whole suite in one vectorised pass, so each pair's trace starts with that
pass and lasts its share of it (attribute ``tribunal.batched``); it holds the cosines as outputs.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from tribunal.eval.tracking.traces import SpanNode, TraceWriter, call_node
from tribunal.eval.tracking.assessments import LabelledVerdict, categorical_agreement, item_assessments, log_agreement
from tribunal.eval.tracking.datasets import evaluation_dataset, log_input
from tribunal.eval.tracking.prompts import PromptRegistry
from tribunal.eval.tracking.run_names import join_name, short_lm

VERDICTS = ("same", "different")


def _verdict(same: bool | None) -> str | None:
    return None if same is None else ("same" if same else "different")


def suite_records(suite: Any) -> list[dict[str, Any]]:
    """The suite's pairs as evaluation records: both hypotheses in, the expected verdict as expectation."""
    return [{"inputs": {"hypothesis_a": p.original.render(), "hypothesis_b": p.perturbed.render(), "kind": p.kind,
                        "pair": p.id},
             "expectations": {"verdict": _verdict(p.expected_same)}} for p in suite.pairs]


def log_suite(run: Any, suite: Any, context: str = "audit") -> None:
    """The suite as the run's dataset input and as an evaluation dataset (both named with its hash)."""
    if getattr(run, "run_id", None) is None:
        return
    from tribunal.eval.equiv.suite import default_suite_path  # heavy: pulls in sklearn, scipy

    table = pd.DataFrame([{"pair": p.id, "kind": p.kind, "original": p.original.id, "perturbed": p.perturbed.id,
                           "expected": _verdict(p.expected_same)} for p in suite.pairs])
    source = default_suite_path().parent / f"{suite.name}.jsonl"
    log_input(run, f"perturbation-suite/{suite.name}", suite.hash, source if source.exists() else suite.name,
              table, context, {"pairs": len(suite.pairs)})
    evaluation_dataset(run, f"perturbation-suite-{suite.name}", suite.hash, suite_records(suite),
                       {"pairs": len(suite.pairs)})


def pair_tree(label: str, pair: Any, judgment: Any, recorded: dict[str, Any] | None,
              window: tuple[float, float]) -> SpanNode:
    """The span tree of one judged pair (see the module docstring)."""
    inputs = {"hypothesis_a": pair.original.render(), "hypothesis_b": pair.perturbed.render(), "kind": pair.kind,
              "pair": pair.id}
    outputs = {"verdict": _verdict(judgment.same), "score": judgment.score,
               "votes": [{"order": v.order, "verdict": _verdict(v.same), "score": v.score, "error": v.error}
                         for v in judgment.votes]}
    attributes = {"tribunal.rule": label, "tribunal.kind": pair.kind, "tribunal.expected": _verdict(pair.expected_same)}
    error = f"unscored: {judgment.reason}" if judgment.same is None else None
    calls = (recorded or {}).get("calls", [])
    if calls:
        votes, number = [], 0
        for call in calls:  # a re-ask belongs to the vote before it
            number += not call.get("reask")
            order = judgment.votes[number - 1].order if 0 < number <= len(judgment.votes) else "?"
            again = f", re-ask after {call['reask']}" if call.get("reask") else ""
            votes.append(call_node(call, f"vote {number} ({order}{again})"))
        return SpanNode(f"equivalence: {label}", recorded["start"], recorded["end"], "AGENT", inputs, outputs,
                        {**attributes, "tribunal.lm_calls": judgment.calls}, error, votes)
    return SpanNode(f"equivalence: {label}", window[0], window[1], "CHAIN", inputs, outputs,
                    {**attributes, "tribunal.batched": True}, error)


def audit_run_name(rules: Any, suite: Any) -> str:
    """``equiv audit | tfidf, llm-full | gpt-4o-mini | hypotheses x160``."""
    models = sorted({short_lm(r.lm_name) for r in rules if getattr(r, "lm_name", None)})
    return join_name("equiv audit", ", ".join(r.label for r in rules), ", ".join(models),
                     f"{suite.name} x{len(suite.pairs)}")


def rule_run_name(audit: Any) -> str:
    """``llm-full | gpt-4o-mini`` or ``tfidf >= 0.25``."""
    if "threshold" in audit.params:
        return f"{audit.label} >= {audit.params['threshold']}"
    return join_name(audit.label, short_lm(audit.params.get("lm")) if audit.params.get("lm") else None)


def log_rule_judgments(run: Any, audit: Any, suite: Any, trace_sample: float | None = None) -> dict[str, float]:
    """Traces (first repeat) with assessments, and agreement with the expected verdicts, on a rule's run."""
    if getattr(run, "run_id", None) is None:
        return {}

    if getattr(audit, "program", None) is not None:
        PromptRegistry(run).signatures(audit.program)
    writer = TraceWriter(run, trace_sample)
    start, end = getattr(audit, "window", None) or (0.0, 0.0)
    window = (start, start + (end - start) / max(1, len(audit.repeats[0]) * len(audit.repeats)))  # one pair's share
    logs = getattr(audit, "call_logs", None) or {}
    verdicts = []
    for pair, judgment in zip(suite.pairs, audit.repeats[0]):
        expected, verdict = _verdict(pair.expected_same), _verdict(judgment.same)
        assessments = item_assessments(expected, verdict, "expected_verdict", f"{audit.label}_verdict",
                                       f"perturbation kind {pair.kind}", audit.label,
                                       judgment.reason if judgment.same is None else None)
        trace_id = writer.write(pair_tree(audit.label, pair, judgment, logs.get((pair.original.id, pair.perturbed.id, 0)),
                                          window), f"{audit.label}/{pair.id}", {"tribunal.kind": pair.kind},
                                always=judgment.same is None, assessments=assessments)
        verdicts.append(LabelledVerdict(trace_id, expected, verdict))
    counts = writer.close()
    log_agreement(run, categorical_agreement(verdicts, VERDICTS), f"{audit.label} vs expected verdicts",
                  prefix="judge_vs_expected.")
    run.log_metrics({f"tracking.{k}": v for k, v in counts.items()})
    return counts
