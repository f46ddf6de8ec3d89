"""The span tree of one judged MT item, built from its journal record.

    M-MAD item                      inputs: source, translation, languages; outputs: score, errors
    ├── stage 1: dimension agents
    │   ├── accuracy | fluency | style | terminology   (or: coupled)
    ├── stage 2: debates
    │   └── debate: accuracy        outputs: rounds, consensus, decided_by
    │       ├── round 1
    │       │   └── opposer
    │       └── round 2 ...
    └── stage 3: final judge
        └── judge

A sampled ensemble's item has a ``sample k`` node per sample (rollout id k) above each judgment's
stages, and its K scores and spread as attributes.

Every leaf is one predictor call (:func:`tribunal.eval.tracking.traces.call_node`): inputs, typed
outputs or the error, tokens, model, latency. Debate calls are placed in their rounds by matching a
dimension's calls, in start order, with its transcript turns (each call adds exactly one turn; the
stage-1 opening turn costs none). Single-call programs (GEMBA-MQM, EAPrompt) get one leaf.
"""

from __future__ import annotations

from collections import defaultdict
from types import SimpleNamespace
from typing import Any

from tribunal.core.item_result import ItemResult
from tribunal.core.judgment_step import Step, debate_summaries
from tribunal.eval.tracking.traces import SpanNode, call_node

STAGE_TITLES = {"stage1": "stage 1: dimension agents", "stage2": "stage 2: debates", "stage3": "stage 3: final judge"}


def _round_of_calls(calls: list[dict[str, Any]], transcript: list[dict[str, Any]], dimension: str) -> list[int | None]:
    debate = next((t for t in transcript if t.get("stage") == "stage2" and t.get("dimension") == dimension), None)
    # Turns with a source (the stage-1 opening, the paper preset's downgraded opening or rebuttal) cost no call.
    turns = [turn for turn in (debate or {}).get("turns", []) if not turn.get("source")]
    return [turns[i].get("round") if i < len(turns) else None for i in range(len(calls))]


def _debate_nodes(calls: list[dict[str, Any]], result: Any, item_inputs: dict[str, Any]) -> list[SpanNode]:
    by_dimension: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        by_dimension[str(call.get("subject") or call.get("inputs", {}).get("dimension", "?"))].append(call)
    nodes = []
    for dimension, group in by_dimension.items():
        rounds: dict[Any, list[SpanNode]] = defaultdict(list)
        for call, round_ in zip(group, _round_of_calls(group, result.transcript, dimension)):
            rounds[round_].append(call_node(call, inputs=item_inputs))
        children = [SpanNode.around(f"round {r}", spans, attributes={"tribunal.round": r})
                    for r, spans in sorted(((r, s) for r, s in rounds.items() if r is not None), key=lambda p: p[0])]
        children += rounds.get(None, [])  # calls of a debate that failed before its turn was recorded
        nodes.append(SpanNode.around(f"debate: {dimension}", children, outputs=result.debates.get(dimension),
                                     attributes={"tribunal.dimension": dimension,
                                                 **{f"tribunal.{k}": v for k, v in (result.debates.get(dimension) or {}).items()}}))
    return nodes


def _stage_nodes(calls: list[dict[str, Any]], result: Any, item_inputs: dict[str, Any]) -> list[SpanNode]:
    """One judgment's calls as stage nodes (``result``: anything with its ``transcript`` and ``debates``)."""
    stages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        stages[call.get("stage", "other")].append(call)
    children: list[SpanNode] = []
    for stage, group in stages.items():
        if stage == "stage2":
            debates = _debate_nodes(group, result, item_inputs)
            if debates:
                children.append(SpanNode.around(STAGE_TITLES[stage], debates))
        elif stage in STAGE_TITLES:
            children.append(SpanNode.around(STAGE_TITLES[stage], [call_node(c, inputs=item_inputs) for c in group]))
        else:  # single-call programs: the call is the item's only child
            children += [call_node(c, inputs=item_inputs) for c in group]
    return children


def _sample_nodes(calls: list[dict[str, Any]], result: Any, item_inputs: dict[str, Any]) -> list[SpanNode]:
    """A sampled ensemble: one ``sample k`` node per sample, holding that judgment's stages."""
    by_sample: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        by_sample[int(call.get("sample") or 0)].append(call)
    entries = {t.get("sample"): t for t in result.transcript if t.get("stage") == "sample"}
    nodes = []
    for number, group in sorted(by_sample.items()):
        entry = entries.get(number, {})
        steps = entry.get("transcript", [])
        judgment = SimpleNamespace(transcript=steps, debates=debate_summaries([Step.model_validate(t) for t in steps]))
        outputs = {k: entry[k] for k in ("status", "score", "errors", "reason") if k in entry}
        nodes.append(SpanNode.around(f"sample {number}", _stage_nodes(group, judgment, item_inputs), outputs=outputs,
                                     attributes={"tribunal.sample": number, "tribunal.rollout_id": number}))
    return nodes


def item_tree(program: str, item: Any, result: ItemResult, languages: dict[str, str], cells: list[Any] = ()) -> SpanNode:
    """The trace of one judged item (``item``: a JudgeItem, ``result``: its ItemResult with ``trace``)."""
    calls = result.call_records()
    judgment = SimpleNamespace(transcript=[step.model_dump() for step in result.transcript], debates=result.debates)
    extras = item.extras() if hasattr(item, "extras") else {}
    item_inputs = {"source": item.source, "translation": item.translation, **extras, **languages}
    sampled = any("sample" in call for call in calls)
    children = (_sample_nodes if sampled else _stage_nodes)(calls, judgment, item_inputs)
    recorded = result.trace
    start = (recorded and recorded.start) or min((c.start for c in children), default=0.0)
    end = (recorded and recorded.end) or max((c.end for c in children), default=start + result.seconds)
    errors = [error.model_dump() for error in result.errors]
    outputs = ({"score": result.score, "errors": errors} if result.status == "scored"
               else {"status": "unscored", "reason": result.reason})
    attributes = {"tribunal.key": result.key, "tribunal.status": result.status, "tribunal.score": result.score,
                  "tribunal.cells": [f"{c.system}:{c.segment}" for c in cells][:50],
                  "tribunal.lm_calls": sum(c.get("lm_calls", 0) for c in calls)}
    if result.reason:
        attributes["tribunal.unscored_reason"] = result.reason
    if result.degraded:  # scored with a fallback: which role failed, why, and what stood in
        degraded = [d.model_dump() for d in result.degraded]
        attributes["tribunal.degraded"] = degraded
        outputs["degraded"] = degraded
    if result.ensemble is not None:
        attributes |= {f"tribunal.samples.{k}": v for k, v in result.ensemble.model_dump().items()}
    return SpanNode(f"{program} item", start, end, "AGENT", item_inputs, outputs, attributes,
                    error=f"unscored: {result.reason}" if result.status == "unscored" else None, children=children)
