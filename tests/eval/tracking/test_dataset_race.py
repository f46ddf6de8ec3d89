"""Two runs logging the same data slice at the same moment: the second is linked, not failed.

Seen against a real ``mlflow server`` with two worker processes: the store creates a dataset on
first use, unique per (experiment, name, digest), so the second insert of a race fails with a
UNIQUE-constraint error; a moment later the same write finds the dataset and links it.
"""

from __future__ import annotations

import pandas as pd
import pytest
from mlflow.exceptions import MlflowException

from tribunal.eval.tracking.datasets import log_input


class RacingClient:
    def __init__(self, failures: int, message: str = "(sqlite3.IntegrityError) UNIQUE constraint failed: datasets"):
        self.failures, self.message, self.calls = failures, message, 0

    def log_inputs(self, run_id, inputs):
        self.calls += 1
        if self.calls <= self.failures:
            raise MlflowException(self.message)


class FakeRun:
    run_id = "r1"

    def __init__(self, client):
        self.client = client


def test_a_lost_race_is_retried_until_the_dataset_is_linked(tmp_path):
    client = RacingClient(failures=2)
    log_input(FakeRun(client), "wmt23/zh-en", "abc123", tmp_path, pd.DataFrame({"segment": [0, 1]}))
    assert client.calls == 3


def test_other_store_errors_are_not_retried(tmp_path):
    client = RacingClient(failures=5, message="permission denied")
    with pytest.raises(MlflowException, match="permission denied"):
        log_input(FakeRun(client), "wmt23/zh-en", "abc123", tmp_path, pd.DataFrame({"segment": [0]}))
    assert client.calls == 1
