"""``mt evaluate --program joint-mqm`` over a tiny MTME folder and the loopback peer: one call per source segment
for all its systems, per-translation results as any judge's (score files that ``mt meta-eval`` reads), a group
whose answer is unusable left unscored, and a resumed run that asks nothing again (on threads and on
``--judging async``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.small_mtme import SOURCES, write_small_mtme
from tribunal.cli import app
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config
from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)

OFF = TrackingSettings(enabled=False)


@pytest.fixture
def small_mtme(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    return write_small_mtme(tmp_path / "mtme")


def _config(api_base, data, out, **joint):
    config = loopback_config(api_base, out, data=data, lp="en-de", limit=None, program="joint-mqm")
    return config.model_copy(update={"settings": config.settings.model_copy(update=joint)})


def _joint_hits(state):
    return [inputs for name, _, inputs in state.hits if name == "JointMQM"]


@pytest.mark.usefixtures("either_judging")  # threads and --judging async
def test_one_call_per_source_scores_every_translation_and_meta_eval_reads_them(small_mtme, tmp_path):
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        result = run_evaluation(_config(api_base, small_mtme, out), OFF)
        assert sorted(h["source"] for h in _joint_hits(state)) == sorted(SOURCES) and len(state.hits) == 4  # 4 calls, 12 items
        again = run_evaluation(_config(api_base, small_mtme, out), OFF)
        assert len(state.hits) == 4  # resumed: no finished group is asked again
    assert result.summary["scored"] == 12 and result.summary["lm_calls"] == 4
    assert again.summary["resumed_items"] == 12 and again.results.keys() == result.results.keys()
    records = [json.loads(line) for line in (out / "transcripts.jsonl").read_text().splitlines()]
    steps = [r["transcript"][0] for r in records]
    assert all({"order", "position", "label", "group"} <= s.keys() and s["candidates"] == 3 for s in steps)
    table = tmp_path / "table.tsv"
    meta = CliRunner().invoke(app, ["mt", "meta-eval", "--data", str(small_mtme), "--lp", "en-de", "--scores",
                                    str(out / "metric-scores"), "--output", str(table), "--no-track"])
    assert meta.exit_code == 0, meta.output
    assert "Joint-MQM" in pd.read_csv(table, sep="\t").set_index("metric").index


@pytest.mark.usefixtures("either_judging")  # threads and --judging async
def test_an_unusable_answer_leaves_its_group_unscored_and_two_orders_cost_two_calls(small_mtme, tmp_path):
    def garbled_second_source(name, inputs):
        return "no judgments here" if inputs.get("source") == SOURCES[1] else synthetic_judge(name, inputs)

    with loopback_server(garbled_second_source) as (api_base, state):
        config = _config(api_base, small_mtme, tmp_path / "out", orders=2)
        config = config.model_copy(update={"lm": config.lm.model_copy(update={"reasks": 0})})
        result = run_evaluation(config, OFF)
    unscored = [r for r in result.results.values() if r.status == "unscored"]
    assert len(unscored) == 3 and all(r.score is None and r.reason for r in unscored)
    assert result.summary["scored"] == 9 and len(state.hits) == 8  # 2 orders x 4 sources
    assert config.metric_name == "Joint-MQM-orders2"


def test_the_estimate_counts_one_call_per_source_and_order(small_mtme, tmp_path):
    from tribunal.eval.estimate.mt_estimate import estimate_evaluation

    for orders, calls in ((1, 4), (2, 8)):
        estimate = estimate_evaluation(_config("http://127.0.0.1:9/v1", small_mtme, tmp_path / "out", orders=orders),
                                       OFF).as_json()
        assert estimate["items"] == 12 and estimate["calls"] == {"low": calls, "high": calls}
        assert "1/N" in estimate["rule"]


def test_what_it_does_not_take_is_refused_before_any_call(small_mtme, tmp_path):
    from tribunal.errors import UserError

    config = _config("http://127.0.0.1:9/v1", small_mtme, tmp_path / "out").model_copy(update={"processes": 2})
    with pytest.raises(UserError, match="candidates together: not with --processes"):
        run_evaluation(config, OFF)
