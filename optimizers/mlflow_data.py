"""Training and dev data from MLflow traces a person labelled: the ``mlflow:`` SPEC.

``mlflow:EXPERIMENT[:A-B][?FILTER]`` reads the traces of experiment EXPERIMENT in the tracking
store of the command (``--tracking-uri``; ``FILTER`` is MLflow's trace search syntax, e.g.
``tags.tribunal.status = 'scored'``). Each trace's human label is picked by
:mod:`tribunal.optimizers.trace_labels` (who, which name, the latest wins). Traces of the same
item (the same source and translation, or the same pair of hypotheses) are one item whose label is
the latest human label among them. Items are ordered by their first trace's time, so ``A-B``
ranges are stable while traces are added. A trace that yields no item is counted with its reason;
traces of a run that judged WMT23 are skipped too (WMT23 is test data only).

The slice's hash covers every item's trace ids and label values, so a new or changed label makes a
new signature.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from tribunal.errors import UserError
from tribunal.optimizers.trace_labels import LabelProblem, TraceLabel, trace_label, updated_ms
from tribunal.optimizers.example_inputs import EQUIV_INPUTS, MT_INPUTS

TEST_DATA = "judged on WMT23 (test data only)"
OTHER_KIND = "another kind of item than the slice's"
_PAGE = 500


@dataclass
class TraceSlice:
    """The labelled items of an experiment's traces, and what was skipped and why."""

    examples: list[Any]
    kind: str
    traces: int
    skipped: Counter = field(default_factory=Counter)
    skipped_traces: dict[str, list[str]] = field(default_factory=dict)


def _root(trace: Any) -> Any | None:
    spans = getattr(trace.data, "spans", None) or []
    return next((s for s in spans if s.parent_id is None), spans[0] if spans else None)


def _experiment_id(client: Any, name: str, uri: str) -> str:
    found = client.get_experiment_by_name(name)
    if found is None:
        raise UserError(f"mlflow:{name}: no experiment {name!r} in {uri} (--tracking-uri names the store)")
    return found.experiment_id


def search_all_traces(client: Any, experiment_id: str, filter_string: str | None, uri: str) -> list[Any]:
    """Every trace of the experiment matching the filter, oldest first."""
    from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

    traces, token = [], None
    while True:
        try:
            page = client.search_traces(locations=[experiment_id], filter_string=filter_string or None,
                                        max_results=_PAGE, order_by=["timestamp_ms ASC"], page_token=token)
        except MlflowException as err:
            raise UserError(f"mlflow: cannot search the traces of {uri}: {err.message.splitlines()[0]}") from None
        traces.extend(page)
        token = page.token
        if not token or not page:
            return sorted(traces, key=_trace_order)


def _trace_order(trace: Any) -> tuple[int, str, str]:
    """Oldest first; traces of the same millisecond by their inputs, then id (the same order in any store)."""
    inputs = getattr(_root(trace), "inputs", None)
    return trace.info.timestamp_ms, json.dumps(inputs, sort_keys=True, default=str), trace.info.trace_id


class _TestDataRuns:
    """Whether a trace's source run judged WMT23 (its signature or dataset inputs say so); cached per run."""

    def __init__(self, client: Any):
        self.client, self.seen = client, {}

    def __call__(self, trace: Any) -> bool:
        run_id = (trace.info.request_metadata or {}).get("mlflow.sourceRun")
        if not run_id:
            return False
        if run_id not in self.seen:
            from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

            try:
                run = self.client.get_run(run_id)
            except MlflowException:
                self.seen[run_id] = False
                return False
            signature = run.data.tags.get("tribunal.signature", "")
            inputs = getattr(run.inputs, "dataset_inputs", None) or []
            self.seen[run_id] = "data:wmt23/" in signature or any(
                d.dataset.name.lower().startswith("wmt23/") for d in inputs)
        return self.seen[run_id]


def _item_key(label: TraceLabel) -> tuple:
    return (label.kind, *sorted(label.inputs.items()))


def _example(label: TraceLabel, trace_ids: list[str]) -> Any:
    import dspy  # heavy: dspy, pydantic


    fields = {**label.inputs, **label.labels, "trace_ids": trace_ids}
    if label.kind == "equiv":
        fields["pair_id"] = trace_ids[0]
    return dspy.Example(**fields).with_inputs(*(MT_INPUTS if label.kind == "mt" else EQUIV_INPUTS))


def labelled_items(traces: list[Any], is_test_data: Any = lambda trace: False) -> TraceSlice:
    """Traces (oldest first) -> one example per labelled item, the rest counted by reason."""
    skipped: dict[str, list[str]] = defaultdict(list)
    items: dict[tuple, list[tuple[int, TraceLabel, str]]] = {}
    for trace in traces:
        trace_id = trace.info.trace_id
        root = _root(trace)
        try:
            label = trace_label(getattr(root, "inputs", None), getattr(root, "outputs", None),
                                trace.info.assessments or [])
        except LabelProblem as problem:
            skipped[problem.reason].append(trace_id)
            continue
        if is_test_data(trace):
            skipped[TEST_DATA].append(trace_id)
            continue
        newest = max(updated_ms(a) for a in trace.info.assessments
                     if a.assessment_id in label.assessment_ids)
        items.setdefault(_item_key(label), []).append((newest, label, trace_id))
    kinds = Counter(key[0] for key in items)
    kind = "equiv" if kinds["equiv"] > kinds["mt"] else "mt"
    examples = []
    for key, labelled in items.items():
        if key[0] != kind:
            skipped[OTHER_KIND].extend(trace_id for _, _, trace_id in labelled)
            continue
        _, latest, _ = max(labelled, key=lambda entry: entry[0])  # stable: the first of equals wins
        examples.append(_example(latest, [trace_id for _, _, trace_id in labelled]))
    return TraceSlice(examples, kind, len(traces), Counter({k: len(v) for k, v in skipped.items()}), dict(skipped))


def parse_target(target: str) -> tuple[str, str | None]:
    """``EXPERIMENT?FILTER`` -> (experiment, filter or None)."""
    name, _, query = target.partition("?")
    if not name:
        raise UserError("mlflow SPEC: expected mlflow:EXPERIMENT[:A-B][?FILTER]")
    return name, query.strip() or None


def load_trace_slice(experiment: str, filter_string: str | None, tracking_uri: str) -> TraceSlice:
    """The labelled items of ``experiment``'s traces in the store at ``tracking_uri``."""
    from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client, store_errors  # heavy: pulls in pydantic

    import mlflow  # heavy: mlflow, pandas

    client = mlflow_client(TrackingSettings(uri=tracking_uri))
    mlflow.set_tracking_uri(tracking_uri)  # a server's trace spans are downloaded through the module-level URI
    with store_errors(tracking_uri):
        experiment_id = _experiment_id(client, experiment, tracking_uri)
        traces = search_all_traces(client, experiment_id, filter_string, tracking_uri)
        return labelled_items(traces, _TestDataRuns(client))
