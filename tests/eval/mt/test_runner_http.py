"""The runner over real HTTP against a loopback OpenAI-compatible server with injected faults."""

from __future__ import annotations

import hashlib
import json
import threading

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config
from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)

pytestmark = pytest.mark.usefixtures("either_judging")

FAULTS = {0: "500", 1: "garbage", 2: "429", 3: "timeout"}


def fault_kind(translation: str) -> str | None:
    return FAULTS.get(int(hashlib.sha256(translation.encode()).hexdigest()[:6], 16) % 7)


def make_fault():
    """500 / garbage on every hit of an item's accuracy agent; 429 / timeout on its first hit only."""
    seen: set[str] = set()
    lock = threading.Lock()

    def fault(_number, name, inputs):
        translation = str(inputs.get("translation", ""))
        kind = fault_kind(translation)
        if kind is None or name not in ("AccuracyAssessment", "GuidedAccuracyAssessment"):  # lean, paper preset
            return None
        with lock:
            first = translation not in seen
            seen.add(translation)
        return kind if kind in ("500", "garbage") or first else None

    return fault


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def test_every_item_ends_scored_or_unscored_with_its_reason(tmp_path, api_key):
    with loopback_server(synthetic_judge, make_fault(), hang=1.5) as (api_base, state):
        config = loopback_config(api_base, tmp_path / "out", limit=20)
        result = run_evaluation(config, TrackingSettings(enabled=False))
    items = {k: r for k, r in result.results.items()}
    assert len(items) == result.summary["items"] == 20  # none lost
    kinds = {}
    for record in map(json.loads, (tmp_path / "out" / "transcripts.jsonl").read_text().splitlines()):
        kinds[record["key"]] = fault_kind(record["translation"])
    assert {"500", "garbage", "429", "timeout", None} <= set(kinds.values()), "the slice must exercise every fault"
    for key, record in items.items():
        kind = kinds[key]
        if kind == "500":
            assert record.status == "unscored" and record.reason.startswith("server error"), record.reason
        elif kind == "garbage":
            assert record.status == "unscored" and record.reason.startswith("refusal"), record.reason
            assert record.score is None
        else:  # transient faults are retried by DSPy's LM layer and end scored
            assert record.status == "scored", (kind, record.reason)
    retried = [h for h in state.hits if h[1] in ("429", "timeout")]
    assert retried, "transient faults were injected"
    assert result.summary["unscored"] == sum(k in ("500", "garbage") for k in kinds.values())
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path


def test_score_files_are_readable_as_a_metric_and_cover_only_scored_cells(tmp_path, api_key):
    from tribunal.data.score_files import read_seg_scores

    with loopback_server(synthetic_judge) as (api_base, _):
        result = run_evaluation(loopback_config(api_base, tmp_path / "out"), TrackingSettings(enabled=False))
    seg = read_seg_scores(result.paths["seg"], 1976)
    covered = sum(int((v == v).sum()) for v in seg.values())
    assert covered == result.summary["cells"] - 0 and result.summary["unscored"] == 0
    # 12 items of 1976 segments: no system score claims to cover the test set
    assert "sys" not in result.paths and not list(result.paths["seg"].parent.glob("*.sys.score"))
    assert result.summary["system_scores_gap"].startswith("--limit stopped the run at 12 items")
    assert result.meta and "seg_acc_t" in result.meta
    errors = [json.loads(line) for line in result.paths["errors"].read_text().splitlines()]
    assert len(errors) == result.summary["cells"]
    assert all(e["start"] is not None for r in errors for e in r["errors"])  # synthetic spans are in the text


def test_concurrency_bounds_the_lm_calls_in_flight_not_the_items(tmp_path, api_key):
    with loopback_server(synthetic_judge, latency=0.03) as (api_base, state):
        result = run_evaluation(loopback_config(api_base, tmp_path / "out", limit=10, concurrency=3),
                                TrackingSettings(enabled=False))
    assert result.summary["scored"] == 10
    assert state.peak == 3, f"at most 3 requests at once, and all 3 slots used (peak {state.peak})"
    assert len(state.hits) == result.summary["lm_calls"]
