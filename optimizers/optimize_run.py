"""An optimize run in MLflow: its training and dev slices as dataset inputs and as evaluation
datasets (inputs + human labels as expectations), and the tuned program's prompts — every
predictor's instruction and demos — as new versions in the prompt registry, linked to the run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from tribunal.eval.tracking.run_names import join_name, short_lm
from tribunal.eval.tracking.datasets import evaluation_dataset, log_input, slug
from tribunal.eval.tracking.prompts import PromptRegistry
from tribunal.optimizers.training_data import MQM_TED_FILES

_TABLE_FIELDS = {"mt": ("source", "translation", "gold_score", "system", "seg_id", "rater", "trace_ids"),
                 "equiv": ("pair_id", "kind", "verdict")}


def optimize_run_name(program: str, optimizer: str, lm: str, train_spec: str) -> str:
    """``optimize gemba-mqm | labeled | gpt-4o-mini | mqm-ted:en-de:0-200``."""
    return join_name(f"optimize {program}", optimizer, short_lm(lm), train_spec)


def training_source(spec: str) -> str:
    """The file a training SPEC reads (for the dataset's source)."""
    from tribunal.eval.equiv.suite import default_suite_path  # heavy: pulls in sklearn, scipy

    source, *rest = spec.split(":")
    target = rest[0] if rest else ""
    if source == "mqm-ted":
        root = Path(os.environ.get("TRIBUNAL_DATA") or Path.home() / ".tribunal" / "data")
        return str(root / "mqm-ted" / MQM_TED_FILES[target]) if target in MQM_TED_FILES else target
    return target if target.endswith(".jsonl") else str(default_suite_path())


def _record(example: Any, kind: str) -> dict[str, Any]:
    inputs = {k: example[k] for k in example.inputs().keys()}
    if kind == "mt":
        return {"inputs": inputs, "expectations": {"human_mqm": example.gold_score, "human_errors": example.gold_errors}}
    return {"inputs": {**inputs, "kind": example.kind}, "expectations": {"verdict": example.verdict}}


def log_training_inputs(run: Any, **slices: Any) -> None:
    """Each slice (``train=..., dev=...``: TrainingData) as a dataset input and an evaluation dataset."""
    if getattr(run, "run_id", None) is None:
        return

    for role, data in slices.items():
        fields = _TABLE_FIELDS[data.kind]
        table = pd.DataFrame([{f: e.get(f) for f in fields} for e in data.examples], columns=list(fields))
        context = "training" if role == "train" else "validation"
        tags = {"items": len(data.examples), "kind": data.kind}
        if data.skipped:  # an mlflow: slice: traces left out, by reason
            tags |= {"skipped": sum(data.skipped.values()),
                     **{f"skipped.{reason}": n for reason, n in data.skipped.items()}}
        log_input(run, data.spec, data.hash, data.origin or training_source(data.spec), table.astype(str), context,
                  tags)
        evaluation_dataset(run, slug(data.spec.replace(":", "-")), data.hash,
                           [_record(e, data.kind) for e in data.examples], {"spec": data.spec, "kind": data.kind})


def log_tuned_prompts(run: Any, program: Any, program_name: str, document: dict[str, Any]) -> list[str]:
    """Register the tuned program's predictors (and their base signatures) and link them to the run."""
    if getattr(run, "run_id", None) is None:
        return []

    metadata = document.get("metadata", {})
    registry = PromptRegistry(run)
    registry.signatures(program)
    registry.program(program, program_name,
                     f"tuned by {metadata.get('optimizer')} in run {run.run_id} (dev score {metadata.get('dev_score')})",
                     {"optimizer": metadata.get("optimizer"), "sha256": document.get("sha256"),
                      "dev_score": metadata.get("dev_score"), "run_id": run.run_id})
    run.set_tags({"tribunal.prompts": ",".join(registry.linked)})
    return registry.linked
