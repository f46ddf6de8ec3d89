"""An MT judge run in MLflow, opened before the work: the slice it judges, the prompts it sends, a
trace per judged item as the item lands, and judge-vs-human agreement at the end.

``tribunal.eval.mt.job.run_evaluation`` opens it with :func:`open_mt_run` and calls
:meth:`MTRunTracker.landed` for each finished item and :meth:`MTRunTracker.finish` once; with
tracking off every call is a no-op.
"""

from __future__ import annotations

import contextlib
import math
from collections import defaultdict
from typing import Any, Iterator

from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.traces import TraceWriter
from tribunal.eval.tracking.mt_traces import item_tree
from tribunal.eval.tracking.prompts import PromptRegistry
from tribunal.eval.tracking.run_names import mt_run_name

DATA_CONTEXT = "evaluation"


def tuned_version(run: Any, config: Any) -> str | None:
    """``v3`` for a tuned export registered as version 3 of ``tribunal-<program>`` (its name says "tuned")."""
    if not config.program_sha256:
        return None
    from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

    try:
        versions = run.client.search_model_versions(f"name = 'tribunal-{config.program}'")
    except MlflowException:
        versions = []
    version = next((v.version for v in versions if (v.tags or {}).get("sha256") == config.program_sha256), None)
    return f"v{version}" if version else None


class MTRunTracker:
    """Per-run tracking state of an MT evaluation (see the module docstring)."""

    def __init__(self, run: Any, config: Any, items: Any, pair: Any, languages: dict[str, str],
                 trace_sample: float | None = None):
        self.run, self.config, self.items, self.pair, self.languages = run, config, items, pair, languages
        self.run_id = run.run_id
        self.traces = TraceWriter(run, trace_sample)
        self.trace_ids: dict[str, str] = {}
        self.seen: set[str] = set()  # items offered to the trace writer (traced or sampled out)
        self.cells: dict[str, list[Any]] = defaultdict(list)
        for cell in items.cells:
            self.cells[cell.key].append(cell)
        self.counts = {"datasets": 0, "prompts": 0}

    def start(self, slice_hash: str, make_program: Any) -> None:
        """Link the data slice and the program's prompts to the run."""
        if self.run_id is None:
            return
        from tribunal.eval.tracking.datasets import evaluation_dataset, log_input, mt_records, wmt23_slice_table  # heavy: pulls in pandas, pyarrow

        data = self.config.data.name if self.config.data else "data"
        tags = {"items": len(self.items.items), "cells": len(self.items.cells), "rated_only": self.config.rated_only,
                "limit": self.config.limit}
        log_input(self.run, f"{data}/{self.config.lp}", slice_hash, self.config.data,
                  wmt23_slice_table(self.items, self.pair), DATA_CONTEXT, tags)
        records = mt_records(self.items, self.pair, self.languages)
        if evaluation_dataset(self.run, f"{data}-{self.config.lp}-rated", slice_hash, records, tags):
            self.counts["datasets"] += 1
        registry = PromptRegistry(self.run)
        program = make_program()
        registry.signatures(program)
        if self.config.program_sha256:
            registry.program(program, self.config.program, f"tuned export {self.config.program_sha256[:12]}",
                             {"sha256": self.config.program_sha256})
        self.counts["prompts"] = len(registry.linked)

    def landed(self, result: Any) -> None:
        """Write the trace of a finished item (sampled; unscored items always)."""
        if not self.traces.enabled or result.key not in self.items.items:
            return
        attempt = 2 if result.key in self.seen else 1  # the run's second pass judged the item again
        self.seen.add(result.key)
        from tribunal.eval.tracking.assessments import item_assessments  # heavy: pulls in pandas, pyarrow

        tree = item_tree(self.config.metric_name, self.items.items[result.key], result, self.languages,
                         self.cells[result.key])
        scored = result.status == "scored"
        assessments = item_assessments(self._human(result.key), result.score if scored else None, "human_mqm",
                                       f"{self.config.metric_name}_mqm", f"{self.pair.lp} MQM", self.config.lm.model,
                                       None if scored else result.reason)
        status = "degraded" if scored and result.degraded else result.status  # a trace tag to filter on
        tags = {"tribunal.status": status} | ({"tribunal.attempt": str(attempt)} if attempt > 1 else {})
        trace_id = self.traces.write(tree, result.key, tags, always=status != "scored" or attempt > 1,
                                     assessments=assessments)
        if trace_id:
            self.trace_ids[result.key] = trace_id

    def _human(self, key: str) -> float | None:
        gold = self.pair.gold_seg
        values = [gold[c.system][c.segment] for c in self.cells[key] if c.system in gold]
        values = [v for v in values if not math.isnan(v)]
        return sum(values) / len(values) if values else None

    def finish(self, results: dict[str, Any]) -> dict[str, float]:
        """Trace resumed items, wait for the traces, log agreement; the tracking counts and agreement metrics."""
        if self.run_id is None:
            return {}
        from tribunal.eval.meta.judge_human import MQM_BANDS, mqm_band  # heavy: pulls in pandas, pyarrow
        from tribunal.eval.tracking.assessments import LabelledVerdict, categorical_agreement, log_agreement  # heavy: pulls in pandas, pyarrow

        for key, result in results.items():
            if key not in self.seen and result.trace is not None:
                self.landed(result)  # judged by an earlier, interrupted run
        counts = self.traces.close()
        verdicts = [LabelledVerdict(self.trace_ids.get(key), self._human(key),
                                    result.score if result.status == "scored" else None,
                                    None if result.status == "scored" else result.reason)
                    for key, result in results.items()]
        rated = [v for v in verdicts if v.human is not None]
        agreement: dict[str, float] = {}
        if rated:
            result = categorical_agreement(rated, MQM_BANDS, mqm_band, scores=True)
            log_agreement(self.run, result, f"{self.config.metric_name} vs human MQM bands")
            agreement = result.metrics()
        counts |= {k: float(v) for k, v in self.counts.items()}
        return {f"tracking.{k}": v for k, v in counts.items()} | agreement


@contextlib.contextmanager
def open_mt_run(tracking: TrackingSettings, config: Any, items: Any, pair: Any, languages: dict[str, str],
                signature: str, trace_sample: float | None = None) -> Iterator[MTRunTracker]:
    """Open the run (before any item is judged: its duration is the job's) and yield its tracker."""
    with tracked_run(tracking, "mt-evaluate", tags={"tribunal.command": "mt evaluate"}, signature=signature) as run:
        if run.run_id is not None:
            name = mt_run_name(config, len(items.items), tuned_version(run, config))
            run.client.set_tag(run.run_id, "mlflow.runName", name)
        yield MTRunTracker(run, config, items, pair, languages, trace_sample)
