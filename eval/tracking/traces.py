"""MLflow traces written after the fact from recorded calls, each span with its recorded times.

Jobs hand a :class:`TraceWriter` one span tree per judged unit (an MT item, an equivalence pair, a
workflow slot) as the unit lands; the writer creates the spans with MLflow's tracing API
(``mlflow.start_span_no_context`` with explicit start and end times), links the trace to the run
(trace metadata ``mlflow.sourceRun``, so ``mlflow.search_traces(run_id=...)`` finds it) and lets
MLflow's asynchronous exporter write it while the job goes on. Nothing is instrumented inside the
concurrent runner, so the tree is right whatever thread or process made each call.

Sampling: ``--trace-sample RATE`` or ``TRIBUNAL_TRACE_SAMPLE`` (0 to 1, default 1) keeps a
deterministic share of the units (by a hash of the unit's key, so reruns trace the same units);
units that end unscored are always traced. ``0`` writes no traces.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from typing import Any

from tribunal.secrets import secret_values

SAMPLE_ENV = "TRIBUNAL_TRACE_SAMPLE"
# MLflow's exporter defaults (5 spans per write, every 5 s) make a SQLite commit per few spans and leave the
# export for the end of a run; bigger batches sent every second keep up with the judging instead.
# MLflow prices LLM spans with LiteLLM's table: the bundled copy, never a download.
_EXPORT_SETTINGS = {"MLFLOW_ASYNC_TRACE_LOGGING_MAX_SPAN_BATCH_SIZE": "256",
                    "MLFLOW_ASYNC_TRACE_LOGGING_MAX_INTERVAL_MILLIS": "1000",
                    "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def sample_rate(value: float | None = None) -> float:
    """The trace sampling rate: ``value``, else ``$TRIBUNAL_TRACE_SAMPLE``, else 1."""
    if value is None:
        text = os.environ.get(SAMPLE_ENV, "").strip()
        try:
            value = float(text) if text else 1.0
        except ValueError:
            raise ValueError(f"{SAMPLE_ENV}={text!r}: expected a number from 0 to 1") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"trace sample rate {value}: expected a number from 0 to 1")
    return value


def sampled(key: str, rate: float) -> bool:
    """Whether the unit ``key`` is among the sampled ``rate`` share (stable across runs)."""
    if rate >= 1.0:
        return True
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0x1_0000_0000 < rate


@dataclass
class SpanNode:
    """One span to write: times in epoch seconds, ``error`` marks it failed."""

    name: str
    start: float
    end: float
    span_type: str = "CHAIN"
    inputs: Any = None
    outputs: Any = None
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    children: list["SpanNode"] = field(default_factory=list)

    @classmethod
    def around(cls, name: str, children: list["SpanNode"], **fields: Any) -> "SpanNode":
        """A span enclosing ``children`` (from the first start to the last end)."""
        return cls(name, min(c.start for c in children), max(c.end for c in children), children=children, **fields)

    def count(self) -> int:
        return 1 + sum(child.count() for child in self.children)


def call_node(record: dict[str, Any], name: str | None = None, inputs: dict[str, Any] | None = None) -> SpanNode:
    """The span of one recorded predictor call (:mod:`tribunal.eval.tracking.call_log`)."""
    tokens_in, tokens_out = record.get("prompt_tokens", 0), record.get("completion_tokens", 0)
    attributes = {"tribunal.stage": record.get("stage"), "tribunal.role": record.get("role"),
                  "tribunal.signature": record.get("signature"), "tribunal.lm_calls": record.get("lm_calls", 0),
                  "tribunal.lm_failures": record.get("lm_failures", 0),
                  "mlflow.chat.tokenUsage": {"input_tokens": tokens_in, "output_tokens": tokens_out,
                                             "total_tokens": tokens_in + tokens_out}}
    if record.get("model"):
        attributes["mlflow.llm.model"] = record["model"]
    end = record.get("end") or record["start"]
    return SpanNode(name or record.get("role") or record.get("signature") or "call", record["start"], end, "LLM",
                    {**(inputs or {}), **record.get("inputs", {})}, record.get("outputs"), attributes,
                    record.get("error"))


def _masked(value: Any, secrets: list[str]) -> Any:
    """Credential values masked in every string (by value only: MLflow's keys, e.g. ``tokenUsage``, stay)."""
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {k: _masked(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v, secrets) for v in value]
    return value


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


class TraceWriter:
    """Writes span trees as traces of one run's experiment, linked to the run. A no-op without a run."""

    def __init__(self, run: Any, rate: float | None = None):
        self.rate = sample_rate(rate)
        self.run_id = getattr(run, "run_id", None)
        self.enabled = self.run_id is not None and self.rate > 0
        self.written = 0
        self.skipped = 0
        self.assessments = 0
        self._secrets = secret_values()
        if self.enabled:
            import mlflow  # heavy: mlflow, pandas

            for name, value in _EXPORT_SETTINGS.items():
                os.environ.setdefault(name, value)
            logging.getLogger("mlflow.tracing.export.async_export_queue").setLevel(logging.WARNING)
            self.experiment_id = run.experiment_id
            mlflow.set_tracking_uri(run.client.tracking_uri)  # MLflow's exporter writes to the global URI

    def write(self, root: SpanNode, key: str, tags: dict[str, str] | None = None, always: bool = False,
              assessments: list[Any] = ()) -> str | None:
        """Write ``root`` as a trace (if ``key`` is sampled, or ``always``); returns the trace id.

        ``assessments`` (MLflow ``Feedback`` / ``Expectation``) are stored with the trace in the same
        write, as ``mlflow.log_feedback`` does for the active trace, instead of one write each afterwards.
        """
        if not self.enabled:
            return None
        if not (always or sampled(key, self.rate)):
            self.skipped += 1
            return None
        import mlflow  # heavy: mlflow, pandas

        span = mlflow.start_span_no_context(
            root.name, span_type=root.span_type, inputs=_masked(root.inputs, self._secrets), attributes=_masked(root.attributes, self._secrets),
            tags={"tribunal.key": key, **(tags or {})}, metadata={"mlflow.sourceRun": self.run_id},
            experiment_id=self.experiment_id, start_time_ns=_ns(root.start))
        for child in root.children:
            self._write_child(child, span)
        if assessments:
            _attach(span.trace_id, assessments)
        self._end(span, root)
        self.written += 1
        self.assessments += len(assessments)
        return span.trace_id

    def _write_child(self, node: SpanNode, parent: Any) -> None:
        import mlflow  # heavy: mlflow, pandas

        span = mlflow.start_span_no_context(node.name, span_type=node.span_type, parent_span=parent,
                                            inputs=_masked(node.inputs, self._secrets), attributes=_masked(node.attributes, self._secrets),
                                            start_time_ns=_ns(node.start))
        for child in node.children:
            self._write_child(child, span)
        self._end(span, node)

    def _end(self, span: Any, node: SpanNode) -> None:
        if node.error:
            span.record_exception(_masked(node.error, self._secrets))
        span.end(outputs=_masked(node.outputs, self._secrets), status="ERROR" if node.error else "OK", end_time_ns=_ns(node.end))

    def close(self) -> dict[str, float]:
        """Wait until every trace is stored; the counts, for the run's metrics."""
        if self.enabled:
            import mlflow  # heavy: mlflow, pandas

            mlflow.flush_trace_async_logging()
        return {"traces": float(self.written), "traces_sampled_out": float(self.skipped),
                "assessments": float(self.assessments)}


def _attach(trace_id: str, assessments: list[Any]) -> None:
    """Add assessments to a trace still being built (MLflow's own path for the active trace)."""
    from mlflow.tracing.trace_manager import InMemoryTraceManager  # heavy: mlflow, pandas

    with InMemoryTraceManager.get_instance().get_trace(trace_id) as trace:
        for assessment in assessments:
            assessment.trace_id = trace_id
            trace.info.assessments.append(assessment)
