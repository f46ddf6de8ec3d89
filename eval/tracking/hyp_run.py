"""The hypothesis workflow in MLflow: a trace per (run, opening slot) with a span per step.

    workflow d1-r0 slot 0           inputs: question, finding, opening hypothesis; outputs: delivered
    ├── propose                     ProposeHypothesis
    └── critique round 1
        ├── critic                  CritiqueHypothesis
        ├── reviser                 ReviseHypothesis
        └── engagement judge        JudgeEngagement, one per demand
"""

from __future__ import annotations

from typing import Any, Sequence

from tribunal.eval.tracking.traces import SpanNode, TraceWriter, call_node

STEP_NAMES = {"ProposeHypothesis": "propose", "CritiqueHypothesis": "critic", "ReviseHypothesis": "reviser",
              "JudgeEngagement": "engagement judge"}


def workflow_run_name(instance: Any, depths: Sequence[int], reruns: int, lm_public: dict) -> str:
    """``hyp run | depths 0,1,5 x5 | gpt-4o-mini | instance-id``."""
    from tribunal.eval.tracking.run_names import join_name, short_lm

    return join_name("hyp run", f"depths {','.join(map(str, depths))} x{reruns}", short_lm(lm_public.get("model")),
                     instance.id)


def slot_tree(record: Any, slot: dict[str, Any], instance: Any) -> SpanNode:
    """The trace of one workflow slot (see the module docstring)."""
    children: list[SpanNode] = []
    round_calls: list[SpanNode] = []
    rounds = 0
    for call in slot.get("calls", []):
        node = call_node(call, STEP_NAMES.get(call.get("signature"), call.get("signature")))
        if call.get("signature") == "CritiqueHypothesis":
            if round_calls:
                children.append(SpanNode.around(f"critique round {rounds}", round_calls))
            rounds, round_calls = rounds + 1, []
        (round_calls if rounds else children).append(node)
    if round_calls:
        children.append(SpanNode.around(f"critique round {rounds}", round_calls))
    index = slot.get("slot", 0)
    delivered = record.hypotheses[index] if index < len(record.hypotheses) else None
    inputs = {"research_question": instance.research_question, "observed_finding": instance.observed_finding,
              "opening_hypothesis": instance.opening_hypotheses[index] if index < len(instance.opening_hypotheses) else None}
    outputs = delivered.model_dump(mode="json") if delivered is not None else None
    demands = [d.model_dump(mode="json") for d in record.demands if d.slot == index]
    return SpanNode(f"workflow {record.run_id} slot {index}", slot["start"], slot["end"], "AGENT", inputs,
                    {"delivered": outputs, "demands": demands},
                    {"tribunal.depth": record.depth, "tribunal.rerun": record.rerun, "tribunal.slot": index},
                    slot.get("error"), children)


def log_workflow_traces(run: Any, instance: Any, records: Sequence[Any], trace_sample: float | None = None) -> None:
    """A trace per slot of every stored run that recorded its calls."""
    writer = TraceWriter(run, trace_sample)
    for record in records:
        for slot in record.traces:
            writer.write(slot_tree(record, slot, instance), f"{record.run_id}/{slot.get('slot', 0)}",
                         {"tribunal.depth": str(record.depth)}, always=bool(slot.get("error")))
    counts = writer.close()
    if writer.enabled:
        run.log_metrics({f"tracking.{k}": v for k, v in counts.items()})
