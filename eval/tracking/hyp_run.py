"""The hypothesis workflow in MLflow: a trace per (instance, run, opening) with a span per step.

    workflow metformin-b12/d1-r0 opening 0   inputs: question, finding, opening hypothesis;
    │                                        outputs: the lineage's delivered hypotheses, its challenges
    ├── propose                     ProposeHypotheses
    └── critique round 1
        ├── critic                  CritiqueHypothesis
        └── reviser                 ReviseHypothesis

(The engagement judge runs after the workflow, on its own LM; its labels are on the challenges.)
"""

from __future__ import annotations

from typing import Any, Sequence

from tribunal.eval.tracking.traces import SpanNode, TraceWriter, call_node
from tribunal.eval.tracking.run_names import join_name, short_lm

STEP_NAMES = {"ProposeHypotheses": "propose", "ProposeHypothesis": "propose", "CritiqueHypothesis": "critic",
              "ReviseHypothesis": "reviser", "JudgeEngagement": "engagement judge"}


def workflow_run_name(instances: Sequence[Any], depths: Sequence[int], reruns: int, lm_public: dict) -> str:
    """``hyp run | depths 0,1,5 x5 | gpt-4o-mini | instance-id`` (``N instances`` for several)."""
    which = instances[0].id if len(instances) == 1 else f"{len(instances)} instances"
    return join_name("hyp run", f"depths {','.join(map(str, depths))} x{reruns}", short_lm(lm_public.get("model")),
                     which)


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
    openings = instance.opening_hypotheses if instance is not None else []
    inputs = {"research_question": getattr(instance, "research_question", None),
              "observed_finding": getattr(instance, "observed_finding", None),
              "opening_hypothesis": openings[index] if index < len(openings) else None}
    delivered = [d.model_dump(mode="json") for d in record.delivered if d.opening == index]
    challenges = [c.model_dump(mode="json") for c in record.challenges if c.opening == index]
    return SpanNode(f"workflow {record.instance}/{record.run_id} opening {index}", slot["start"], slot["end"], "AGENT",
                    inputs, {"delivered": delivered, "challenges": challenges},
                    {"tribunal.instance": record.instance, "tribunal.depth": record.depth,
                     "tribunal.rerun": record.rerun, "tribunal.opening": index},
                    slot.get("error"), children)


def log_workflow_traces(run: Any, instances: dict[str, Any], records: Sequence[Any],
                        trace_sample: float | None = None) -> None:
    """A trace per opening of every stored run that recorded its calls (``instances``: by id)."""
    writer = TraceWriter(run, trace_sample)
    for record in records:
        for slot in record.traces:
            writer.write(slot_tree(record, slot, instances.get(record.instance)),
                         f"{record.instance}/{record.run_id}/{slot.get('slot', 0)}",
                         {"tribunal.depth": str(record.depth)}, always=bool(slot.get("error")))
    counts = writer.close()
    if writer.enabled:
        run.log_metrics({f"tracking.{k}": v for k, v in counts.items()})
