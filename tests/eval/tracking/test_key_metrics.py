"""A run's key metrics are read from the statistics' declarations when asked: a statistic registered after
import (as ``docs/guides/add-a-statistic.md`` declares one) is among them, in its declared place."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tribunal.eval.meta.correlation import pearson
from tribunal.eval.meta.statistic import statistic
from tribunal.eval.meta.statistics import STATISTICS, key_metric_keys
from tribunal.eval.tracking.run_names import RUN_KEY_METRICS, key_metric_names, key_metric_order
from tribunal.eval.tracking.runs_view import runs_table


@pytest.fixture
def late_statistic():
    """A key-metric statistic registered after every module is imported, removed after the test."""
    statistic("late_pearson", level="segment", inputs="cells", resampling="recompute", display="late pearson",
              correlation=True, tables=("run",), key_metric=0)(pearson)
    yield STATISTICS["late_pearson"]
    del STATISTICS["late_pearson"]


def test_a_statistic_registered_later_is_a_key_metric(late_statistic):
    order = key_metric_order()
    assert order[0] == "meta.late_pearson"  # key_metric=0: before the shipped ones (1, 2, 3)
    assert order == key_metric_keys() + RUN_KEY_METRICS
    assert key_metric_names(["lm_calls", "zzz", "meta.late_pearson"]) == ["meta.late_pearson", "lm_calls", "zzz"]


def test_the_runs_table_shows_it_among_the_key_metrics(late_statistic):
    run = SimpleNamespace(info=SimpleNamespace(run_id="r1", run_name="run", status="FINISHED", start_time=0,
                                               end_time=1000),
                          data=SimpleNamespace(tags={}, metrics={"other": 1.0, "meta.late_pearson": 0.5, "scored": 3.0}))
    assert runs_table([run], key_metrics=1)["key metrics"][0] == "meta.late_pearson 0.5"


def test_it_is_gone_once_removed():
    assert "meta.late_pearson" not in key_metric_order()
