"""A credential from the environment never reaches a trace: not in inputs, outputs, attributes or errors."""

from __future__ import annotations

import json
import time
import uuid

import mlflow

from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.traces import SpanNode, TraceWriter

SECRET = "sk-span-secret-0123456789"


def test_credentials_are_masked_in_every_part_of_a_trace(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_PROVIDER_API_KEY", SECRET)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    now = time.time()
    call = SpanNode("judge", now, now + 0.1, "LLM", inputs={"prompt": f"key={SECRET}"},
                    outputs={"errors": [f"echoed {SECRET}"]}, attributes={"tribunal.note": f"Bearer {SECRET}"},
                    error=f"401 Unauthorized: invalid key {SECRET}")
    root = SpanNode.around("item", [call], inputs={"source": f"a source quoting {SECRET}"})
    with tracked_run(TrackingSettings(uri=uri, experiment=f"secrets-{uuid.uuid4().hex[:8]}"), "secrets") as run:
        writer = TraceWriter(run)
        trace_id = writer.write(root, "item-1")
        writer.close()
    mlflow.set_tracking_uri(uri)
    trace = mlflow.get_trace(trace_id)
    stored = json.dumps(trace.to_dict())
    assert SECRET not in stored
    assert stored.count("***") >= 5, "each place held the masked value"
    judge = next(s for s in trace.data.spans if s.name == "judge")
    assert judge.inputs == {"prompt": "key=***"} and judge.status.status_code == "ERROR"
